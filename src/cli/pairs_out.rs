//! `classad match --all-pairs` output, written as the pairs come: a line per
//! pair (indices, or with `--names` ids and names), or a JSON array with an
//! object per job. A pool prints millions of lines, so a line costs a handful
//! of instructions: each job's text is made once, each slot's once per run.

use super::cycle::Format;
use super::match_output::job_json;
use crate::matching::batch::Candidate;
use std::io::Write;

/// Bytes gathered before they go to the writer.
const BUFFER: usize = 1 << 16;

/// A piece of a line of at most 8 bytes, held in a word (first byte lowest),
/// so that a line of two of them is written as one 16-byte store.
#[derive(Clone, Copy, Default)]
struct Piece {
    word: u64,
    len: u8,
}

impl Piece {
    /// `bytes` as a piece, when they fit.
    fn of(bytes: &[u8]) -> Option<Piece> {
        let mut word = [0u8; 8];
        word.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(Piece {
            word: u64::from_le_bytes(word),
            len: bytes.len() as u8,
        })
    }
}

/// The writer of `--all-pairs` output.
pub(super) struct PairsOut<'a> {
    format: Format,
    names_in_text: bool,
    ids: &'a [String],
    slot_names: &'a [Option<String>],
    /// Pairs written.
    pub(super) pairs: usize,
    /// Jobs with at least one pair.
    pub(super) jobs_matched: usize,
    last_job: Option<usize>,
    /// The text of a line before the slot: the last job's index or id and a
    /// space; and as a piece when it fits one.
    job_text: Vec<u8>,
    job_piece: Option<Piece>,
    /// The text of a line from the slot on, every slot's end to end: slot `m`'s
    /// is `slot_text[slot_ends[m]..slot_ends[m + 1]]`; and as pieces when all fit.
    slot_text: Vec<u8>,
    slot_ends: Vec<usize>,
    slot_pieces: Option<Vec<Piece>>,
    /// Lines not yet handed to the writer.
    buffer: Vec<u8>,
}

impl<'a> PairsOut<'a> {
    /// A writer for a pool of `slots` slots; `ids` (by job) and `slot_names`
    /// (by slot) are read only with `names_in_text` or JSON.
    pub(super) fn new(
        format: Format,
        names_in_text: bool,
        ids: &'a [String],
        slot_names: &'a [Option<String>],
        slots: usize,
    ) -> Self {
        let mut out = PairsOut {
            format,
            names_in_text,
            ids,
            slot_names,
            pairs: 0,
            jobs_matched: 0,
            last_job: None,
            job_text: Vec::new(),
            job_piece: None,
            slot_text: Vec::new(),
            slot_ends: vec![0],
            slot_pieces: None,
            buffer: Vec::new(),
        };
        if format != Format::Json {
            out.slot_ends.reserve(slots);
            for m in 0..slots {
                out.write_slot(m);
                out.slot_ends.push(out.slot_text.len());
            }
            out.slot_pieces = (0..slots).map(|m| Piece::of(out.slot(m))).collect();
            out.buffer.reserve(BUFFER + 16);
        }
        out
    }

    /// Appends slot `m`'s end of a line to `slot_text`.
    fn write_slot(&mut self, m: usize) {
        let text = &mut self.slot_text;
        match self.slot_names.get(m) {
            Some(Some(name)) if self.names_in_text => text.extend_from_slice(name.as_bytes()),
            _ => {
                if self.names_in_text {
                    text.push(b'#');
                }
                text.extend_from_slice(itoa::Buffer::new().format(m).as_bytes());
            }
        }
        text.push(b'\n');
    }

    /// Slot `m`'s end of a line.
    fn slot(&self, m: usize) -> &[u8] {
        &self.slot_text[self.slot_ends[m]..self.slot_ends[m + 1]]
    }

    /// One `<job> <slot>` line.
    pub(super) fn pair(&mut self, out: &mut impl Write, j: usize, m: usize) -> std::io::Result<()> {
        self.pairs += 1;
        if self.last_job != Some(j) {
            self.start_job(j);
        }
        match (self.job_piece, &self.slot_pieces) {
            (Some(job), Some(slots)) => {
                // Both pieces in one 16-byte store, the bytes past the line then
                // dropped: no copy of a length known only at run time.
                let slot = slots[m];
                let line = u128::from(job.word) | (u128::from(slot.word) << (8 * job.len));
                let keep = self.buffer.len() + usize::from(job.len + slot.len);
                self.buffer.extend_from_slice(&line.to_le_bytes());
                self.buffer.truncate(keep);
            }
            _ => {
                let (start, end) = (self.slot_ends[m], self.slot_ends[m + 1]);
                self.buffer.extend_from_slice(&self.job_text);
                self.buffer.extend_from_slice(&self.slot_text[start..end]);
            }
        }
        if self.buffer.len() >= BUFFER {
            out.write_all(&self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }

    /// Makes job `j`'s text, the first of its lines.
    fn start_job(&mut self, j: usize) {
        self.last_job = Some(j);
        self.jobs_matched += 1;
        self.job_text.clear();
        if self.names_in_text {
            self.job_text.extend_from_slice(self.ids[j].as_bytes());
        } else {
            self.job_text
                .extend_from_slice(itoa::Buffer::new().format(j).as_bytes());
        }
        self.job_text.push(b' ');
        self.job_piece = Piece::of(&self.job_text);
    }

    /// Job `j` and its candidates (JSON only), every job in queue order.
    pub(super) fn job(
        &mut self,
        out: &mut dyn Write,
        j: usize,
        cands: &[Candidate],
    ) -> std::io::Result<()> {
        self.pairs += cands.len();
        self.jobs_matched += usize::from(!cands.is_empty());
        let v = job_json(j, &self.ids[j], cands, self.slot_names);
        let sep = if self.last_job.is_none() {
            "[\n"
        } else {
            ",\n"
        };
        self.last_job = Some(j);
        write!(out, "{sep}{v}")
    }

    /// Writes what is left: the lines not yet written, or the JSON array's end.
    pub(super) fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&self.buffer)?;
        self.buffer.clear();
        if self.format == Format::Json {
            let open = if self.last_job.is_none() { "[" } else { "" };
            writeln!(out, "{open}\n]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `pairs` as written for a pool of `slots` slots.
    fn lines(
        names: bool,
        ids: &[String],
        slot_names: &[Option<String>],
        slots: usize,
        pairs: &[(usize, usize)],
    ) -> String {
        let mut w = PairsOut::new(Format::Text, names, ids, slot_names, slots);
        let mut out = Vec::new();
        for &(j, m) in pairs {
            w.pair(&mut out, j, m).unwrap();
        }
        w.finish(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lines_are_job_then_slot_whatever_their_lengths() {
        // Jobs of one to eight digits: a job's text ("12345678 ") past a word.
        let big = 12_345_678;
        let pairs = [
            (0, 0),
            (0, 7),
            (9, 1_000),
            (big, 3),
            (big, 999),
            (1_000, 99),
        ];
        let want: String = pairs.iter().map(|(j, m)| format!("{j} {m}\n")).collect();
        assert_eq!(lines(false, &[], &[], 1_001, &pairs), want);
    }

    #[test]
    fn names_and_ids_replace_indices() {
        let ids = vec!["1000.0".to_string(), "1000.1234567890".to_string()];
        let slot_names = vec![
            Some("slot1@a.example.org".to_string()),
            None,
            Some("s".to_string()),
        ];
        let pairs = [(0, 0), (0, 1), (1, 2), (1, 1)];
        assert_eq!(
            lines(true, &ids, &slot_names, 3, &pairs),
            "1000.0 slot1@a.example.org\n1000.0 #1\n1000.1234567890 s\n1000.1234567890 #1\n"
        );
    }

    #[test]
    fn lines_past_the_buffer_all_arrive_in_order() {
        let pairs: Vec<(usize, usize)> = (0..50_000).map(|i| (i / 7, i % 7)).collect();
        let want: String = pairs.iter().map(|(j, m)| format!("{j} {m}\n")).collect();
        assert_eq!(lines(false, &[], &[], 7, &pairs), want);
    }
}
