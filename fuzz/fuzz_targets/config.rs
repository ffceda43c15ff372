//! Arbitrary text into the configuration reader (`--config`): an error must be
//! an error that names a line of the input, never a panic, a hang or memory
//! without bound; whatever reads must give every knob's value (or an error
//! naming its line) and the cycle's knobs (or an error naming a line).
#![no_main]

use classad::matching::config::Config;
use classad::negotiate::CycleKnobs;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Bound the work per input; reading is linear in the text.
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `include`, `LOCAL_CONFIG_DIR` and `LOCAL_CONFIG_FILE` open files of the
    // machine the fuzzer runs on; the rest of the language is what is fuzzed.
    let lower = text.to_ascii_lowercase();
    if lower.contains("include") || lower.contains("local_config") {
        return;
    }
    let lines = text.lines().count().max(1) as u32;
    let config = match Config::parse(text, "fuzz") {
        Ok(c) => c,
        Err(e) => {
            assert_eq!(e.file, "fuzz", "{e}");
            assert!(e.line <= lines, "{e}: line past the end ({lines} lines)");
            return;
        }
    };
    for (name, place) in config.names() {
        assert!(place.line >= 1 && place.line <= lines, "{name} at {place}");
        if let Err(e) = config.get(name) {
            assert!(e.line >= 1 && e.line <= lines, "{e}");
        }
    }
    if let Err(e) = CycleKnobs::from_config(&config) {
        assert!(e.line <= lines, "{e}");
    }
});
