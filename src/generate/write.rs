//! Writing generated ads straight into a byte buffer, in old syntax (`Name =
//! value` lines, a blank line after each ad, as `condor_q -l` prints), new syntax
//! (one `[ a = 1; b = 2 ]` per line) or JSON (an array of objects as `condor_q
//! -json` prints, expressions as `"\/Expr(...)\/"` strings, the form
//! [`crate::ad::json`] reads). No ad is built in memory: a million job ads are
//! gigabytes of text, written as they are made.

use super::Syntax;
use std::fmt;
use std::io::Write;

/// A piece of a string attribute made of parts (see [`AdWriter::str_pieces`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum Piece<'s> {
    /// Text.
    S(&'s str),
    /// An integer, in decimal.
    I(i64),
}

/// Writes one ad's attributes, in order, into a buffer.
pub(super) struct AdWriter<'a> {
    buf: &'a mut Vec<u8>,
    syntax: Syntax,
    attrs: usize,
}

/// The text a JSON file of ads starts with.
pub(super) const JSON_HEAD: &[u8] = b"[";

/// The text a JSON file of ads ends with.
pub(super) const JSON_TAIL: &[u8] = b"\n]\n";

impl<'a> AdWriter<'a> {
    /// Starts an ad in `buf`; `first` says whether it is the first ad of its file
    /// (in JSON the others follow a comma).
    pub(super) fn begin(buf: &'a mut Vec<u8>, syntax: Syntax, first: bool) -> AdWriter<'a> {
        match syntax {
            Syntax::Old => {}
            Syntax::New => buf.extend_from_slice(b"[ "),
            Syntax::Json => buf.extend_from_slice(if first { b"\n{\n" } else { b",\n{\n" }),
        }
        AdWriter {
            buf,
            syntax,
            attrs: 0,
        }
    }

    /// Ends the ad; the number of attributes written.
    pub(super) fn end(self) -> usize {
        self.buf.extend_from_slice(match self.syntax {
            Syntax::Old => b"\n\n",
            Syntax::New => b" ]\n",
            Syntax::Json => b"\n}",
        });
        self.attrs
    }

    /// The separator and the attribute's name, up to its value.
    fn key(&mut self, name: &str) {
        let first = self.attrs == 0;
        self.attrs += 1;
        let b = &mut *self.buf;
        match self.syntax {
            Syntax::Old => {
                if !first {
                    b.push(b'\n');
                }
                b.extend_from_slice(name.as_bytes());
                b.extend_from_slice(b" = ");
            }
            Syntax::New => {
                if !first {
                    b.extend_from_slice(b"; ");
                }
                b.extend_from_slice(name.as_bytes());
                b.extend_from_slice(b" = ");
            }
            Syntax::Json => {
                if !first {
                    b.extend_from_slice(b",\n");
                }
                b.extend_from_slice(b"  \"");
                b.extend_from_slice(name.as_bytes());
                b.extend_from_slice(b"\": ");
            }
        }
    }

    /// An integer attribute.
    pub(super) fn int(&mut self, name: &str, v: i64) {
        self.key(name);
        push_int(self.buf, v);
    }

    /// A real attribute (finite), printed as Python's `repr` prints it: the
    /// shortest text that reads back as the same number, with a `.0` on whole
    /// numbers.
    pub(super) fn real(&mut self, name: &str, v: f64) {
        debug_assert!(v.is_finite());
        self.key(name);
        if v == 0.0 {
            self.buf.extend_from_slice(b"0.0");
        } else {
            write!(self.buf, "{v:?}").expect("writing to a Vec");
        }
    }

    /// A boolean attribute.
    pub(super) fn boolean(&mut self, name: &str, v: bool) {
        self.key(name);
        self.buf
            .extend_from_slice(if v { b"true" } else { b"false" });
    }

    /// A string attribute. Generated strings hold no quote, backslash or control
    /// character, so every syntax writes them alike.
    pub(super) fn str(&mut self, name: &str, s: &str) {
        debug_assert!(plain(s), "{s:?}");
        self.key(name);
        self.buf.push(b'"');
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(b'"');
    }

    /// A string attribute made of formatted pieces (see [`AdWriter::str`]).
    pub(super) fn str_fmt(&mut self, name: &str, args: fmt::Arguments<'_>) {
        self.key(name);
        self.buf.push(b'"');
        let start = self.buf.len();
        self.buf.write_fmt(args).expect("writing to a Vec");
        debug_assert!(plain(std::str::from_utf8(&self.buf[start..]).unwrap()));
        self.buf.push(b'"');
    }

    /// A string attribute made of text and integers (see [`AdWriter::str`]):
    /// cheaper than formatting for the strings every job ad has.
    pub(super) fn str_pieces(&mut self, name: &str, pieces: &[Piece<'_>]) {
        self.key(name);
        self.buf.push(b'"');
        for p in pieces {
            match *p {
                Piece::S(s) => {
                    debug_assert!(plain(s), "{s:?}");
                    self.buf.extend_from_slice(s.as_bytes());
                }
                Piece::I(i) => push_int(self.buf, i),
            }
        }
        self.buf.push(b'"');
    }

    /// An expression attribute, `text` in ClassAd syntax.
    pub(super) fn expr(&mut self, name: &str, text: &str) {
        self.key(name);
        match self.syntax {
            Syntax::Old | Syntax::New => self.buf.extend_from_slice(text.as_bytes()),
            Syntax::Json => push_json_expr(self.buf, text),
        }
    }

    /// A list of integers: `{ 1, 2 }`, or a JSON array.
    pub(super) fn int_list(&mut self, name: &str, items: &[u32]) {
        self.list(name, items.len(), |buf, i| {
            push_int(buf, i64::from(items[i]))
        });
    }

    /// A list of the attribute references `GPUs_GPU_<i as 8 hex digits>` for `i` in
    /// `0..n` (a slot's `AvailableGPUs`); in JSON each is an `"\/Expr(...)\/"`.
    pub(super) fn gpu_list(&mut self, name: &str, n: u32) {
        let json = self.syntax == Syntax::Json;
        self.list(name, n as usize, |buf, i| {
            if json {
                buf.extend_from_slice(b"\"\\/Expr(");
            }
            write!(buf, "GPUs_GPU_{i:08x}").expect("writing to a Vec");
            if json {
                buf.extend_from_slice(b")\\/\"");
            }
        });
    }

    /// A list of `n` items, each written by `item`: `{ a, b }` (`{  }` when empty,
    /// as the model prints it), or a JSON array laid out as HTCondor's
    /// `printJson` lays it out.
    fn list(&mut self, name: &str, n: usize, mut item: impl FnMut(&mut Vec<u8>, usize)) {
        self.key(name);
        let b = &mut *self.buf;
        match self.syntax {
            Syntax::Old | Syntax::New => {
                b.extend_from_slice(b"{ ");
                for i in 0..n {
                    if i > 0 {
                        b.extend_from_slice(b", ");
                    }
                    item(b, i);
                }
                b.extend_from_slice(b" }");
            }
            Syntax::Json => {
                b.extend_from_slice(b"[\n");
                for i in 0..n {
                    if i > 0 {
                        b.extend_from_slice(b",\n");
                    }
                    b.extend_from_slice(b"    ");
                    item(b, i);
                }
                if n > 0 {
                    b.push(b'\n');
                }
                b.extend_from_slice(b"  ]");
            }
        }
    }
}

/// True when `s` needs no escaping in any syntax.
fn plain(s: &str) -> bool {
    !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

/// Appends an integer in decimal.
pub(super) fn push_int(buf: &mut Vec<u8>, v: i64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Appends `"\/Expr(<text>)\/"`, the text escaped as a JSON string.
fn push_json_expr(buf: &mut Vec<u8>, text: &str) {
    buf.extend_from_slice(b"\"\\/Expr(");
    for &b in text.as_bytes() {
        match b {
            b'"' | b'\\' => {
                buf.push(b'\\');
                buf.push(b);
            }
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            b if b < 0x20 => write!(buf, "\\u{b:04X}").expect("writing to a Vec"),
            b => buf.push(b),
        }
    }
    buf.extend_from_slice(b")\\/\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(syntax: Syntax) -> String {
        let mut buf = Vec::new();
        for first in [true, false] {
            let mut w = AdWriter::begin(&mut buf, syntax, first);
            w.int("A", -12);
            w.real("R", 48.0);
            w.boolean("B", true);
            w.str("S", "x y");
            w.str_fmt("F", format_args!("{}-{}", 1, "z"));
            w.str_pieces("P", &[Piece::S("a"), Piece::I(-3), Piece::S("b")]);
            w.expr("E", "TARGET.Owner == \"ab\"");
            w.int_list("L", &[1, 2]);
            w.int_list("Empty", &[]);
            w.gpu_list("G", 2);
            assert_eq!(w.end(), 10);
        }
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn old_and_new_syntax() {
        let one = "A = -12\nR = 48.0\nB = true\nS = \"x y\"\nF = \"1-z\"\nP = \"a-3b\"\n\
                   E = TARGET.Owner == \"ab\"\nL = { 1, 2 }\nEmpty = {  }\n\
                   G = { GPUs_GPU_00000000, GPUs_GPU_00000001 }\n\n";
        assert_eq!(sample(Syntax::Old), format!("{one}{one}"));
        let one = "[ A = -12; R = 48.0; B = true; S = \"x y\"; F = \"1-z\"; P = \"a-3b\"; \
                   E = TARGET.Owner == \"ab\"; L = { 1, 2 }; Empty = {  }; \
                   G = { GPUs_GPU_00000000, GPUs_GPU_00000001 } ]\n";
        assert_eq!(sample(Syntax::New), format!("{one}{one}"));
    }

    #[test]
    fn json_reads_back() {
        let text = format!(
            "{}{}{}",
            String::from_utf8_lossy(JSON_HEAD),
            sample(Syntax::Json),
            String::from_utf8_lossy(JSON_TAIL)
        );
        let ads = crate::ad::read_ads(&text, "json").unwrap();
        let old = crate::ad::read_ads(&sample(Syntax::Old), "old").unwrap();
        assert_eq!(ads.len(), 2);
        for (j, o) in ads.iter().zip(&old) {
            assert_eq!(crate::ad::unparse_ad(j), crate::ad::unparse_ad(o));
        }
        assert!(text.contains(r#""E": "\/Expr(TARGET.Owner == \"ab\")\/""#));
    }

    #[test]
    fn integers() {
        for v in [0, 7, -7, 1_767_225_600, i64::MIN, i64::MAX] {
            let mut buf = Vec::new();
            push_int(&mut buf, v);
            assert_eq!(String::from_utf8(buf).unwrap(), v.to_string());
        }
    }
}
