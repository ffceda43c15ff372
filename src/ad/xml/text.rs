//! The texts inside XML ads as HTCondor writes and reads them: its three entities,
//! and the numbers of `<i>` and `<r>`.

use std::borrow::Cow;

/// The entities HTCondor writes and reads; any other (`&quot;`, `&#65;`) it keeps
/// as it stands, characters and all.
const ENTITIES: [(&str, char); 3] = [("&amp;", '&'), ("&lt;", '<'), ("&gt;", '>')];

/// `s` with `&`, `<` and `>` as entities (and nothing else escaped, as HTCondor
/// writes them), appended to `out`.
pub(super) fn escape_markup(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// The text of an element with its entities replaced as HTCondor's XML lexer
/// replaces them: an `&` runs to the first `;`, space or `&`; `&amp;`, `&lt;` and
/// `&gt;` become their characters, anything else is kept as written. `Err` holds
/// the byte offset of an `&` that the element's end reaches first: HTCondor would
/// read on through the markup after it, so it is refused here.
pub(super) fn decode_text(raw: &str) -> Result<Cow<'_, str>, usize> {
    if !raw.contains('&') {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut at = 0;
    while let Some(i) = raw[at..].find('&') {
        let amp = at + i;
        out.push_str(&raw[at..amp]);
        let after = &raw[amp + 1..];
        let Some(stop) = after.find([';', ' ', '&']) else {
            return Err(amp);
        };
        match after.as_bytes()[stop] {
            b';' => {
                let entity = &raw[amp..amp + stop + 2];
                match ENTITIES.iter().find(|(name, _)| *name == entity) {
                    Some((_, c)) => out.push(*c),
                    None => out.push_str(entity),
                }
                at = amp + stop + 2;
            }
            // The space goes with the text; a second `&` starts again.
            b' ' => {
                out.push_str(&raw[amp..amp + stop + 2]);
                at = amp + stop + 2;
            }
            _ => {
                out.push_str(&raw[amp..amp + stop + 1]);
                at = amp + stop + 1;
            }
        }
    }
    out.push_str(&raw[at..]);
    Ok(Cow::Owned(out))
}

/// An XML attribute's value with its entities replaced as HTCondor's lexer
/// replaces them in a tag: each `&` up to the next `;` that is one of the three
/// entities becomes its character, anything else is kept. `Err` holds the offset
/// of an `&` with no `;` after it, where HTCondor reads past the end of the value.
pub(super) fn decode_attribute(raw: &str) -> Result<Cow<'_, str>, usize> {
    if !raw.contains('&') {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut at = 0;
    while let Some(i) = raw[at..].find('&') {
        let amp = at + i;
        out.push_str(&raw[at..amp]);
        let Some(semi) = raw[amp..].find(';') else {
            return Err(amp);
        };
        let entity = &raw[amp..=amp + semi];
        match ENTITIES.iter().find(|(name, _)| *name == entity) {
            Some((_, c)) => {
                out.push(*c);
                at = amp + semi + 1;
            }
            // Not an entity: the `&` is kept and the text after it is read on, so
            // an entity inside (`&a&amp;`) is still replaced.
            None => {
                out.push('&');
                at = amp + 1;
            }
        }
    }
    out.push_str(&raw[at..]);
    Ok(Cow::Owned(out))
}

/// Where byte `offset` of the text [`decode_text`] made from `raw` was in `raw`.
pub(super) fn raw_offset(raw: &str, offset: usize) -> usize {
    let (mut r, mut d) = (0, 0);
    while d < offset && r < raw.len() {
        let replaced = ENTITIES.iter().find(|(name, _)| raw[r..].starts_with(name));
        match replaced {
            Some((name, c)) => {
                r += name.len();
                d += c.len_utf8();
            }
            None => {
                let len = raw[r..].chars().next().map_or(1, char::len_utf8);
                r += len;
                d += len;
            }
        }
    }
    r
}

/// White space as C's `isspace` has it, which HTCondor's lexer skips before the
/// text of every element but `<s>`.
pub(super) fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// What the text of an `<i>` or `<r>` gave.
#[derive(Debug, PartialEq)]
pub(super) enum Number<T> {
    /// The number, and nothing but white space around it.
    Read(T),
    /// No number at the start: HTCondor makes the value `error`. For `<i>`, also
    /// a number out of the 64-bit range.
    Unreadable,
    /// A number followed by more text, which HTCondor drops; the number's length.
    TextAfter(usize),
}

/// The text of an `<i>` (leading white space already skipped): HTCondor reads it
/// with `std::from_chars`, an optional `-` and decimal digits.
pub(super) fn integer(text: &str) -> Number<i64> {
    let digits_from = usize::from(text.starts_with('-'));
    let digits = text[digits_from..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return Number::Unreadable;
    }
    let end = digits_from + digits;
    let Ok(i) = text[..end].parse::<i64>() else {
        return Number::Unreadable;
    };
    if text[end..].chars().all(is_c_space) {
        Number::Read(i)
    } else {
        Number::TextAfter(end)
    }
}

/// The text of an `<r>`: HTCondor reads it with `strtod`.
pub(super) fn real(text: &str) -> Number<f64> {
    match crate::c_number::strtod_prefix(text) {
        None => Number::Unreadable,
        Some((r, end)) if text[end..].chars().all(is_c_space) => Number::Read(r),
        Some((_, end)) => Number::TextAfter(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_are_escaped_and_nothing_else() {
        let mut out = String::new();
        escape_markup("a < b && c > \"d\" 'e'", &mut out);
        assert_eq!(out, "a &lt; b &amp;&amp; c &gt; \"d\" 'e'");
    }

    #[test]
    fn text_entities_are_read_as_htcondor_reads_them() {
        let d = |t| decode_text(t).map(Cow::into_owned);
        assert_eq!(d("a &amp; &lt;b&gt;"), Ok("a & <b>".into()));
        assert_eq!(d("&amp;lt;"), Ok("&lt;".into()));
        assert_eq!(
            d("&quot;&#65;&apos;&foo;"),
            Ok("&quot;&#65;&apos;&foo;".into())
        );
        assert_eq!(d("a & b"), Ok("a & b".into()));
        assert_eq!(d("a &x&amp;"), Ok("a &x&".into()));
        assert_eq!(d("&AMP;"), Ok("&AMP;".into()));
        assert_eq!(d("x &amp"), Err(2));
        assert_eq!(d("x &\n;"), Ok("x &\n;".into()));
    }

    #[test]
    fn attribute_entities_are_read_as_htcondor_reads_them() {
        let d = |t| decode_attribute(t).map(Cow::into_owned);
        assert_eq!(d("a&amp;b&lt;&gt;"), Ok("a&b<>".into()));
        assert_eq!(d("a&x&amp;;"), Ok("a&x&;".into()));
        assert_eq!(d("a & b;"), Ok("a & b;".into()));
        assert_eq!(d("a&b"), Err(1));
    }

    #[test]
    fn offsets_in_decoded_text_map_back() {
        let raw = "a &lt; b &amp;&amp; é";
        let decoded = decode_text(raw).unwrap();
        assert_eq!(decoded, "a < b && é");
        for (d, r) in [(0, 0), (2, 2), (3, 6), (6, 9), (7, 14), (9, 20)] {
            assert_eq!(raw_offset(raw, d), r, "{d}");
        }
    }

    #[test]
    fn integers_read_as_from_chars() {
        assert_eq!(integer("12"), Number::Read(12));
        assert_eq!(integer("-0"), Number::Read(0));
        assert_eq!(integer("007 \n"), Number::Read(7));
        assert_eq!(integer("-9223372036854775808"), Number::Read(i64::MIN));
        assert_eq!(integer("9223372036854775808"), Number::Unreadable);
        assert_eq!(integer("+5"), Number::Unreadable);
        assert_eq!(integer("-"), Number::Unreadable);
        assert_eq!(integer("abc"), Number::Unreadable);
        assert_eq!(integer("12abc"), Number::TextAfter(2));
        assert_eq!(integer("1.5"), Number::TextAfter(1));
    }

    #[test]
    fn reals_read_as_strtod() {
        assert_eq!(real("1.500000000000000E+00"), Number::Read(1.5));
        assert_eq!(real(" 2.5 "), Number::Read(2.5));
        assert_eq!(real("0x10"), Number::Read(16.0));
        assert_eq!(real("-INF"), Number::Read(f64::NEG_INFINITY));
        assert!(matches!(real("NaN"), Number::Read(r) if r.is_nan()));
        assert_eq!(real("1e400"), Number::Read(f64::INFINITY));
        assert_eq!(real("abc"), Number::Unreadable);
        assert_eq!(real("1e3x"), Number::TextAfter(3));
    }
}
