//! One line of an old-syntax file, read in a single pass: where its name and value
//! are, and the value itself when it is one of the common literals.

/// What one line holds. Lines end at `\n`; a `\r` before it is white space here, as
/// it is to `str::lines` followed by `trim_ascii`.
#[derive(Debug, PartialEq)]
pub(super) enum Line<'s> {
    /// Nothing but white space: ends an ad.
    Blank,
    /// A `#` comment (after optional white space), or a line holding nothing but
    /// complete `/* ... */` and `//` comments (see [`only_comments`]).
    Comment,
    /// `Name = value`: the name is what precedes the first `=`, trimmed, taken
    /// literally, as HTCondor's `SplitLongFormAttrValue` takes it.
    Attr {
        /// The name.
        name: &'s str,
        /// Byte offset in the file where the value's text starts.
        rhs_start: usize,
        /// The value.
        rhs: Rhs<'s>,
    },
    /// No `=`, or nothing before it: the line, trimmed.
    Malformed(&'s str),
}

/// An attribute's value as the line scan classifies it.
#[derive(Debug, PartialEq)]
pub(super) enum Rhs<'s> {
    /// A decimal integer of at most 18 digits, without a leading zero.
    Int(i64),
    /// `[-]digits.digits` without a leading zero.
    Real(f64),
    /// A string literal without backslashes: its text between the quotes.
    Str(&'s str),
    /// `true` or `false`, in any case.
    Bool(bool),
    /// Anything else, trimmed, for the parser (which owns every error).
    Expr(&'s str),
}

/// White space inside a line, as `trim_ascii` sees it (`\n` ends the line instead).
fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\x0c')
}

/// Reads the lines of a text from any offset.
#[derive(Clone, Copy)]
pub(super) struct Scanner<'s> {
    src: &'s str,
}

impl<'s> Scanner<'s> {
    pub(super) fn new(src: &'s str) -> Scanner<'s> {
        Scanner { src }
    }

    /// The first offset from `i` on that is not a blank (it may be a line end).
    pub(super) fn skip_blanks(&self, mut i: usize) -> usize {
        let b = self.src.as_bytes();
        while i < b.len() && is_blank(b[i]) {
            i += 1;
        }
        i
    }

    /// Where the line holding `at` ends (the offset of its `\n`, or the text's end).
    fn line_end(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.src.as_bytes()[at..]).map_or(self.src.len(), |i| at + i)
    }

    /// Skips blanks from `i`; the start of the next line when only blanks remain
    /// on this one.
    fn rest_is_blank(&self, i: usize) -> Option<usize> {
        let i = self.skip_blanks(i);
        match self.src.as_bytes().get(i) {
            None => Some(i),
            Some(b'\n') => Some(i + 1),
            Some(_) => None,
        }
    }

    /// Reads the value starting at `start` when it is a common literal that ends the
    /// line; gives it and the start of the next line.
    fn literal(&self, start: usize) -> Option<(Rhs<'s>, usize)> {
        let b = self.src.as_bytes();
        match *b.get(start)? {
            b'"' => {
                let i = find(b, start + 1, [b'"', b'\\', b'\n']);
                if b.get(i) != Some(&b'"') {
                    return None;
                }
                let next = self.rest_is_blank(i + 1)?;
                // The quotes are ASCII, so the cuts fall on character boundaries.
                Some((Rhs::Str(&self.src[start + 1..i]), next))
            }
            c @ (b'0'..=b'9' | b'-') => {
                let neg = c == b'-';
                let first = start + usize::from(neg);
                let mut i = first;
                let mut n: i64 = 0;
                while let Some(d @ b'0'..=b'9') = b.get(i) {
                    // At most 18 digits reach here (checked below before use), and
                    // wrapping keeps longer runs from overflowing on the way.
                    n = n.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
                    i += 1;
                }
                let digits = i - first;
                // A leading zero is an error (or octal) in old syntax: the parser's.
                if digits == 0 || (b[first] == b'0' && digits > 1) {
                    return None;
                }
                if b.get(i) == Some(&b'.') {
                    let frac = i + 1;
                    i = frac;
                    while let Some(d @ b'0'..=b'9') = b.get(i) {
                        n = n.wrapping_mul(10).wrapping_add(i64::from(d - b'0'));
                        i += 1;
                    }
                    if i == frac {
                        return None;
                    }
                    let next = self.rest_is_blank(i)?;
                    let v = match exact_decimal(n, digits + (i - frac), i - frac) {
                        Some(v) => v,
                        None => self.src[first..i].parse().ok()?,
                    };
                    return Some((Rhs::Real(if neg { -v } else { v }), next));
                }
                // `-0` is the parser's: HTCondor keeps it as a negated zero.
                if digits > 18 || (neg && n == 0) {
                    return None;
                }
                let next = self.rest_is_blank(i)?;
                Some((Rhs::Int(if neg { -n } else { n }), next))
            }
            b't' | b'T' | b'f' | b'F' => {
                let word = |w: &[u8]| {
                    b.get(start..start + w.len())
                        .is_some_and(|s| s.eq_ignore_ascii_case(w))
                };
                let (v, len) = if word(b"true") {
                    (true, 4)
                } else if word(b"false") {
                    (false, 5)
                } else {
                    return None;
                };
                let next = self.rest_is_blank(start + len)?;
                Some((Rhs::Bool(v), next))
            }
            _ => None,
        }
    }
}

impl<'s> Scanner<'s> {
    /// The value starting at `rhs_start` (after the blanks that follow `=`), and the
    /// start of the next line.
    pub(super) fn value(&self, rhs_start: usize) -> (Rhs<'s>, usize) {
        match self.literal(rhs_start) {
            Some(found) => found,
            None => {
                let end = self.line_end(rhs_start);
                (
                    Rhs::Expr(self.src[rhs_start..end].trim_ascii_end()),
                    end + 1,
                )
            }
        }
    }

    /// The line starting at `start` (which must be below the text's length), and the
    /// start of the next line.
    pub(super) fn line(&self, start: usize) -> (Line<'s>, usize) {
        let b = self.src.as_bytes();
        let i = self.skip_blanks(start);
        match b.get(i) {
            None => return (Line::Blank, i),
            Some(b'\n') => return (Line::Blank, i + 1),
            Some(b'#') => return (Line::Comment, self.line_end(i) + 1),
            Some(b'/') if only_comments(&b[i..self.line_end(i)]) => {
                return (Line::Comment, self.line_end(i) + 1)
            }
            Some(_) => {}
        }
        let name_start = i;
        let eq = find(b, i, [b'=', b'\n']);
        // `=` and blanks are ASCII, so every cut below falls on a character boundary.
        let name = self.src[name_start..eq].trim_ascii_end();
        if eq == b.len() || b[eq] == b'\n' || name.is_empty() {
            let end = self.line_end(eq);
            let text = self.src[name_start..end].trim_ascii_end();
            return (Line::Malformed(text), end + 1);
        }
        let rhs_start = self.skip_blanks(eq + 1);
        let (rhs, next) = self.value(rhs_start);
        let line = Line::Attr {
            name,
            rhs_start,
            rhs,
        };
        (line, next)
    }
}

/// True when `line` (one line, without its `\n`) holds nothing but white space,
/// complete `/* ... */` comments and a `//` comment. HTCondor's long-form reader
/// fails at such a line (`InsertLongFormAttrValue` finds no `=`) and so ends the
/// ad there (`CondorClassAdFileParseHelper::OnParseError`): where nothing follows
/// it, as in HTCondor's own test files, that reads exactly the ads we read; where
/// attributes or ads follow, HTCondor drops them and we read them (a deviation
/// listed in `tests/conformance/deviations.jsonl`). An unterminated `/*` is no
/// comment line.
pub(super) fn only_comments(line: &[u8]) -> bool {
    let mut rest = line;
    loop {
        rest = rest.trim_ascii_start();
        if rest.is_empty() || rest.starts_with(b"//") {
            return true;
        }
        let Some(body) = rest.strip_prefix(b"/*") else {
            return false;
        };
        match memchr::memmem::find(body, b"*/") {
            Some(end) => rest = &body[end + 2..],
            None => return false,
        }
    }
}

/// `mantissa / 10^scale` when both are exact doubles, so that the one division
/// rounds correctly and gives what a full decimal conversion gives (Clinger's fast
/// path): at most 15 digits in all, at most 22 after the point.
fn exact_decimal(mantissa: i64, digits: usize, scale: usize) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if digits > 15 {
        return None;
    }
    Some(mantissa as f64 / POW10.get(scale)?)
}

/// The offset of the first byte from `i` on that is one of `targets`, or the text's
/// length; eight bytes at a time, since names and strings run to tens of bytes.
fn find<const N: usize>(b: &[u8], mut i: usize, targets: [u8; N]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(w) = b.get(i..).and_then(|s| s.first_chunk::<8>()) {
        let w = u64::from_le_bytes(*w);
        // A byte equal to t becomes zero under the xor; the classic test flags
        // zero bytes, exactly up to the first (borrows only disturb higher bytes).
        let hits = targets.iter().fold(0, |m, &t| {
            let x = w ^ (ONES * u64::from(t));
            m | (x.wrapping_sub(ONES) & !x & HIGHS)
        });
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !targets.contains(&b[i]) {
        i += 1;
    }
    i.min(b.len())
}

/// How many bytes `a` and `b` share at their start, compared eight at a time: a
/// line is first held against the same line of the previous ad, which it usually
/// repeats.
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    while let (Some(x), Some(y)) = (a[i..].first_chunk::<8>(), b[i..].first_chunk::<8>()) {
        let diff = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // Fewer than eight bytes remain: compare the last eight, whose first ones are
    // already known to be equal.
    if let (Some(x), Some(y)) = (a.last_chunk::<8>(), b.last_chunk::<8>()) {
        let diff = u64::from_le_bytes(*x) ^ u64::from_le_bytes(*y);
        return if diff == 0 {
            n
        } else {
            n - 8 + (diff.trailing_zeros() / 8) as usize
        };
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the reader did before the one-pass scan: `str::lines`, `trim_ascii`, a
    /// `#` test, and a split at the first `=`.
    fn reference(src: &str) -> Vec<(String, Option<(String, String)>)> {
        src.lines()
            .map(|line| {
                let t = line.trim_ascii();
                let kind = if t.is_empty() {
                    "blank"
                } else if t.starts_with('#') || only_comments(t.as_bytes()) {
                    "comment"
                } else {
                    match line.split_once('=') {
                        Some((n, v)) if !n.trim_ascii().is_empty() => {
                            return (
                                "attr".to_string(),
                                Some((n.trim_ascii().to_string(), v.trim_ascii().to_string())),
                            )
                        }
                        _ => "malformed",
                    }
                };
                (kind.to_string(), None)
            })
            .collect()
    }

    /// Every line of `src`, with its start.
    fn lines(src: &str) -> Vec<(usize, Line<'_>)> {
        let scan = Scanner::new(src);
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < src.len() {
            let (line, next) = scan.line(pos);
            out.push((pos, line));
            assert!(next > pos);
            pos = next;
        }
        out
    }

    fn ours(src: &str) -> Vec<(String, Option<(String, String)>)> {
        lines(src)
            .into_iter()
            .map(|(_, line)| match line {
                Line::Blank => ("blank".to_string(), None),
                Line::Comment => ("comment".to_string(), None),
                Line::Malformed(_) => ("malformed".to_string(), None),
                Line::Attr {
                    name,
                    rhs_start,
                    rhs,
                } => {
                    // The value's text, as the slow path would see it.
                    let end = src[rhs_start..]
                        .find('\n')
                        .map_or(src.len(), |i| rhs_start + i);
                    let text = src[rhs_start..end].trim_ascii_end().to_string();
                    if let Rhs::Expr(t) = rhs {
                        assert_eq!(t, text);
                    }
                    ("attr".to_string(), Some((name.to_string(), text)))
                }
            })
            .collect()
    }

    #[test]
    fn lines_classify_like_str_lines_and_trim() {
        let pieces = [
            "",
            "a",
            "a = 1",
            " A=\"x\" ",
            "\r",
            "\n",
            "\r\n",
            "#c",
            "  # c = 1",
            "= 1",
            " =",
            "x =",
            "x = \"a\" \"b\"",
            "é = \"ü\"",
            "a\r= 2",
            "b = 3\r",
            "\x0c",
            "\x0b = 1",
            "n = -0",
            "n = 007",
            "t = TRUE",
            "t = truex",
            "s = \"a\\\"b\"",
            "s = \"unterminated",
            "r = 1.5 ",
            "r = 1.",
            "r = -2.25\r",
            "x = 1 + 2",
            "x == 2",
            "q = \"\"",
            "q = \"a\r\"",
        ];
        // Every piece alone, and every pair joined by each line end, with and
        // without a final newline.
        let mut texts: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
        for a in pieces {
            for b in pieces {
                for sep in ["\n", "\r\n"] {
                    texts.push(format!("{a}{sep}{b}"));
                    texts.push(format!("{a}{sep}{b}{sep}"));
                }
            }
        }
        for t in &texts {
            assert_eq!(ours(t), reference(t), "{t:?}");
        }
    }

    fn rhs(text: &str) -> Rhs<'_> {
        match Scanner::new(text).line(0).0 {
            Line::Attr { rhs, .. } => rhs,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn literals_are_recognised_and_the_rest_left_to_the_parser() {
        assert_eq!(rhs("a = 12"), Rhs::Int(12));
        assert_eq!(rhs("a = -12 \r\n"), Rhs::Int(-12));
        assert_eq!(rhs("a = 0"), Rhs::Int(0));
        assert_eq!(
            rhs("a = 999999999999999999"),
            Rhs::Int(999_999_999_999_999_999)
        );
        assert_eq!(rhs("a = 1.25"), Rhs::Real(1.25));
        assert_eq!(rhs("a = -0.5"), Rhs::Real(-0.5));
        assert_eq!(rhs("a = \"x y\""), Rhs::Str("x y"));
        assert_eq!(rhs("a = \"\"\n"), Rhs::Str(""));
        assert_eq!(rhs("a = tRuE"), Rhs::Bool(true));
        assert_eq!(rhs("a = FALSE  "), Rhs::Bool(false));
        for other in [
            "1000000000000000000",
            "-0",
            "01",
            "-",
            "1.",
            ".5",
            "1e5",
            "1.5e3",
            "0x1f",
            "\"a\\n\"",
            "\"a\" \"b\"",
            "\"a",
            "true && x",
            "truex",
            "fals",
            "x",
            "",
            "1 2",
        ] {
            let line = format!("a = {other}");
            assert_eq!(rhs(&line), Rhs::Expr(other), "{other:?}");
        }
    }

    #[test]
    fn common_prefix_finds_the_first_difference() {
        let a = b"MyType = \"Machine\"\nTargetType";
        for n in 0..a.len() {
            for k in 0..=n {
                let mut b = a[..n].to_vec();
                if k < n {
                    b[k] ^= 0x20;
                }
                assert_eq!(common_prefix(a, &b), k, "{n} {k}");
                assert_eq!(common_prefix(&b, a), k, "{n} {k}");
            }
        }
    }

    #[test]
    fn find_stops_at_the_first_target() {
        // Every target at every place, after every kind of byte (including ones that
        // borrow in the eight-byte test: 0x00, 0x01, 0x80, 0xff).
        for len in 0..20 {
            for fill in [b'a', 0x00, 0x01, b'=' + 1, b'=' - 1, 0x80, 0xff] {
                let mut text = vec![fill; len];
                assert_eq!(find(&text, 0, [b'=', b'\n']), len);
                for at in 0..len {
                    for t in [b'=', b'\n'] {
                        text[at] = t;
                        for start in 0..=at {
                            assert_eq!(find(&text, start, [b'=', b'\n']), at);
                        }
                        if at + 1 < len {
                            text[at + 1] = b'=';
                            assert_eq!(find(&text, 0, [b'=', b'\n']), at);
                            text[at + 1] = fill;
                        }
                        text[at] = fill;
                    }
                }
                assert_eq!(find(&text, len + 3, [b'=']), len);
            }
        }
    }

    #[test]
    fn short_decimals_convert_as_the_standard_library_does() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut texts: Vec<String> = ["0.0", "0.1", "0.18", "1.5", "0.000000000000000000001"]
            .map(String::from)
            .to_vec();
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = (x % 1_000_000_000) >> (x % 29);
            let frac_len = 1 + (x >> 40) as usize % 16;
            let frac: String = (0..frac_len)
                .map(|k| char::from(b'0' + ((x >> (k * 3 % 60)) % 10) as u8))
                .collect();
            texts.push(format!("{int}.{frac}"));
        }
        for t in &texts {
            let want: f64 = t.parse().unwrap();
            let (int, frac) = t.split_once('.').unwrap();
            let m: i64 = format!("{int}{frac}").parse().unwrap_or(i64::MAX);
            let digits = int.len() + frac.len();
            if let Some(got) = exact_decimal(m, digits, frac.len()) {
                assert_eq!(got.to_bits(), want.to_bits(), "{t}");
            }
            assert_eq!(rhs(&format!("x = {t}")), Rhs::Real(want), "{t}");
            assert_eq!(rhs(&format!("x = -{t}")), Rhs::Real(-want), "-{t}");
        }
    }

    #[test]
    fn malformed_lines_keep_their_text() {
        let got: Vec<_> = lines("  no equals here \n= 5\n")
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        assert_eq!(
            got,
            [Line::Malformed("no equals here"), Line::Malformed("= 5")]
        );
    }

    /// Issue 33: a line of nothing but complete comments is a comment line (as in
    /// HTCondor's `test_multiple.ad`, whose last line is one); an unterminated
    /// `/*`, or a comment before anything else, is not.
    #[test]
    fn lines_of_only_comments() {
        for yes in [
            "/* c */",
            "  /* c */  ",
            "/* a = 1 */",
            "// x = 1",
            "/* a */ /* b */",
            "/**/ // t",
            "/* */\r",
        ] {
            assert!(only_comments(yes.trim_start().as_bytes()), "{yes:?}");
        }
        for no in ["/* c", "/* c */ B = 2", "/* a */ x", "/", "/x", "*/"] {
            assert!(!only_comments(no.as_bytes()), "{no:?}");
        }
        let src = "A = 1\n/* c */\nB = 2 /* d */\n// e\n";
        let kinds: Vec<String> = ours(src).into_iter().map(|(k, _)| k).collect();
        assert_eq!(kinds, ["attr", "comment", "attr", "comment"]);
    }
}
