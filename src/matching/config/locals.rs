//! The files a configuration names to be read after it: `LOCAL_CONFIG_DIR`
//! (every file of each directory, in name order, but those
//! `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP` excludes) and `LOCAL_CONFIG_FILE`, as
//! HTCondor's `real_config` reads them (`process_directory`,
//! `get_config_dir_file_list` and `process_locals` in
//! `src/condor_utils/condor_config.cpp`): the directories, then the files, then
//! the directories again if the files changed `LOCAL_CONFIG_DIR`.
//!
//! A site's `condor_config` is mostly `LOCAL_CONFIG_DIR = $(ETC)/config.d`,
//! with the knobs in the files of that directory; without this, `--config
//! /etc/condor/condor_config` would read next to nothing, without a word.
//! `condor_config_val -dump` and `-summary` print the knobs of those files
//! already, so their output is not followed again.

use super::{Config, ConfigError, Place};
use std::sync::Arc;

/// `LOCAL_CONFIG_DIR_EXCLUDE_REGEXP`'s default in HTCondor 25.
const DEFAULT_EXCLUDE: &str = r"^((\..*)|(.*\.pl)|(.*\.py)|(.*\.sh)|(.*~)|(#.*)|(.*\.rpmsave)|(.*\.rpmnew)|(.*\.dpkg-old)|(.*\.dpkg-dist)|(.*\.cfsaved))$";

/// True when `text` is `condor_config_val`'s output (`-dump` begins
/// `# Configuration from ...`, `-summary` `# condor_config_val ...`), whose
/// knobs include those of the local files already.
pub(super) fn is_tool_output(text: &str) -> bool {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    first.starts_with("# Configuration from ") || first.starts_with("# condor_config_val ")
}

/// A list knob split as HTCondor's `StringTokenIterator` splits it.
fn items(value: &str) -> Vec<String> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

impl Config {
    /// Reads the local files and directories the configuration names.
    pub(super) fn read_locals(&mut self) -> Result<(), ConfigError> {
        let dirs = self.get("LOCAL_CONFIG_DIR")?.unwrap_or_default();
        self.read_directories(&dirs)?;
        self.read_local_files()?;
        let after = self.get("LOCAL_CONFIG_DIR")?.unwrap_or_default();
        if after != dirs {
            self.read_directories(&after)?;
        }
        Ok(())
    }

    /// Whether a local file that cannot be read is an error
    /// (`REQUIRE_LOCAL_CONFIG_FILE`, true by default).
    fn local_required(&self) -> Result<bool, ConfigError> {
        match self.get("REQUIRE_LOCAL_CONFIG_FILE")? {
            None => Ok(true),
            Some(v) if v.trim().is_empty() => Ok(true),
            Some(v) => super::parse_bool(&v).ok_or_else(|| {
                self.knob_error(
                    "REQUIRE_LOCAL_CONFIG_FILE",
                    &format!("{v:?} is not a boolean (true, false, yes, no, 1, 0)"),
                )
            }),
        }
    }

    /// `process_locals("LOCAL_CONFIG_FILE")`: each file in turn; a file that
    /// changes the list makes the rest of the new list (less what was read)
    /// the files to read.
    fn read_local_files(&mut self) -> Result<(), ConfigError> {
        let Some(mut list) = self.get("LOCAL_CONFIG_FILE")? else {
            return Ok(());
        };
        if list.contains('|') {
            let what = "a command (it holds |); the emulator runs no command from a \
                        configuration: give the files it would print";
            return Err(self.knob_error("LOCAL_CONFIG_FILE", what));
        }
        let mut done: Vec<String> = Vec::new();
        let mut todo = items(&list);
        while let Some(file) = todo.first().cloned() {
            todo.remove(0);
            self.read_local(&file, "LOCAL_CONFIG_FILE")?;
            done.push(file);
            let now = self.get("LOCAL_CONFIG_FILE")?.unwrap_or_default();
            if now != list {
                todo = items(&now)
                    .into_iter()
                    .filter(|f| !done.contains(f))
                    .collect();
                list = now;
            }
        }
        Ok(())
    }

    /// `process_directory`: every file (not directory) of each directory of
    /// `dirs`, in the order of their paths, but those the exclusion pattern
    /// matches. A directory that cannot be listed is skipped, as HTCondor
    /// skips it, with a note.
    fn read_directories(&mut self, dirs: &str) -> Result<(), ConfigError> {
        for dir in items(dirs) {
            let pattern = self
                .get("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")?
                .unwrap_or_else(|| DEFAULT_EXCLUDE.to_string());
            let exclude = regex::Regex::new(&pattern).map_err(|e| {
                self.knob_error(
                    "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP",
                    &format!("not a regular expression: {e}"),
                )
            })?;
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    let at = self.place_of("LOCAL_CONFIG_DIR");
                    self.notes.push(format!(
                        "{at}: LOCAL_CONFIG_DIR {dir}: cannot list it ({e}); skipped, as \
                         HTCondor skips it"
                    ));
                    continue;
                }
            };
            let mut files: Vec<String> = entries
                .filter_map(Result::ok)
                .filter(|e| !e.path().is_dir())
                .filter(|e| !exclude.is_match(&e.file_name().to_string_lossy()))
                .map(|e| e.path().to_string_lossy().into_owned())
                .collect();
            files.sort();
            let at = self.place_of("LOCAL_CONFIG_DIR");
            self.notes.push(format!(
                "{at}: LOCAL_CONFIG_DIR {dir}: read {} files, in this order: {}",
                files.len(),
                files.join(", ")
            ));
            for file in files {
                self.read_local(&file, "LOCAL_CONFIG_DIR")?;
            }
        }
        Ok(())
    }

    /// One local file (`process_config_source`): read as the configuration is,
    /// one level down; one that cannot be read is an error when
    /// `REQUIRE_LOCAL_CONFIG_FILE` is true, else skipped.
    fn read_local(&mut self, file: &str, knob: &str) -> Result<(), ConfigError> {
        let bytes = match self.read_included(file) {
            Ok(bytes) => bytes,
            Err(why) => {
                // As `process_config_source`: only a file that cannot be
                // opened is skipped when not required; a device or one past
                // the bound is never read in silence.
                let unreadable = matches!(why, super::lines::Included::Io(_));
                if unreadable && !self.local_required()? {
                    return Ok(());
                }
                let hint = if unreadable {
                    "; REQUIRE_LOCAL_CONFIG_FILE = false skips a local file that is not there"
                } else {
                    ""
                };
                let what = format!("{file}: cannot read it ({}){hint}", why.describe());
                return Err(self.knob_error(knob, &what));
            }
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| self.knob_error(knob, &format!("{file}: not text (UTF-8)")))?;
        self.read_file_text(&text, &Arc::from(file), 1)
    }

    /// Where `name` was defined, for a note.
    fn place_of(&self, name: &str) -> Place {
        self.place(name).cloned().unwrap_or_else(|| Place {
            file: Arc::from(self.file.as_str()),
            line: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condor_config_val_s_output_is_known_by_its_first_line() {
        assert!(is_tool_output(
            "# Configuration from machine: cm.example.org\nA = 1\n"
        ));
        assert!(is_tool_output(
            "\n# condor_config_val $CondorVersion: 25.0.0 $\n"
        ));
        assert!(!is_tool_output("# my pool\nLOCAL_CONFIG_DIR = /x\n"));
    }

    #[test]
    fn the_default_exclusion_is_htcondor_s() {
        let re = regex::Regex::new(DEFAULT_EXCLUDE).unwrap();
        for skipped in [".hidden", "x.rpmsave", "x~", "#x#", "run.sh", "x.dpkg-dist"] {
            assert!(re.is_match(skipped), "{skipped}");
        }
        for read in ["00-minicondor", "50-negotiator.conf", "local"] {
            assert!(!re.is_match(read), "{read}");
        }
    }

    /// `real_config`: the directories of `LOCAL_CONFIG_DIR` in path order (a
    /// backup or hidden file skipped), then `LOCAL_CONFIG_FILE`, each later
    /// file overriding; a local file that is not there is an error unless
    /// `REQUIRE_LOCAL_CONFIG_FILE` is false; `condor_config_val`'s output is
    /// not followed.
    #[test]
    fn a_site_s_directory_and_local_file_are_read_after_the_main_file() {
        let dir = std::env::temp_dir().join(format!("classad-locals-{}", std::process::id()));
        let d = dir.join("config.d");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("50-negotiator"),
            "NEGOTIATOR_DEPTH_FIRST = True\nX = 50\n",
        )
        .unwrap();
        std::fs::write(
            d.join("00-base"),
            "NEGOTIATOR_DEPTH_FIRST = False\nX = 0\nY = base\n",
        )
        .unwrap();
        std::fs::write(d.join("99-old.rpmsave"), "Y = saved\n").unwrap();
        std::fs::write(d.join(".hidden"), "Y = hidden\n").unwrap();
        std::fs::create_dir_all(d.join("sub")).unwrap();
        let local = dir.join("condor_config.local");
        std::fs::write(&local, "Z = $(X) local\n").unwrap();
        let main = format!(
            "LOCAL_CONFIG_DIR = {}\nLOCAL_CONFIG_FILE = {}\nX = main\n",
            d.display(),
            local.display()
        );
        let c = Config::parse(&main, "condor_config").unwrap();
        assert_eq!(
            c.get("NEGOTIATOR_DEPTH_FIRST").unwrap().as_deref(),
            Some("True")
        );
        assert_eq!(
            c.get("Y").unwrap().as_deref(),
            Some("base"),
            "backups skipped"
        );
        assert_eq!(
            c.get("Z").unwrap().as_deref(),
            Some("50 local"),
            "the file after the directory"
        );
        assert!(
            c.notes()[0].contains("read 2 files, in this order"),
            "{:?}",
            c.notes()
        );
        // A local file that is not there.
        let missing = format!("LOCAL_CONFIG_FILE = {}\n", dir.join("nope").display());
        let e = Config::parse(&missing, "condor_config").unwrap_err();
        assert_eq!((e.line, e.knob.as_deref()), (1, Some("LOCAL_CONFIG_FILE")));
        assert!(
            e.message
                .contains("REQUIRE_LOCAL_CONFIG_FILE = false skips"),
            "{e}"
        );
        let optional = format!("{missing}REQUIRE_LOCAL_CONFIG_FILE = false\n");
        assert!(Config::parse(&optional, "condor_config").is_ok());
        // Not required, a device is still refused, never skipped in silence.
        let device = "LOCAL_CONFIG_FILE = /dev/zero\nREQUIRE_LOCAL_CONFIG_FILE = false\n";
        let e = Config::parse(device, "condor_config").unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e}");
        // condor_config_val -dump holds the files' knobs already.
        let dump = format!("# Configuration from machine: cm\n{missing}");
        let c = Config::parse(&dump, "dump").unwrap();
        assert!(
            c.notes()[0].contains("they are not read again"),
            "{:?}",
            c.notes()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
