//! C's `printf` conversions, for `classad query -format`: HTCondor hands the
//! format of `-format FMT ATTR` to the C library with the ad's value, so the text
//! printed is C's. This module reads a format as HTCondor's `parsePrintfFormat`
//! (`src/condor_utils/printf_format.cpp`) reads it, and formats one value as glibc
//! does on x86-64 Linux.
//!
//! What HTCondor passes shapes what C prints: an integer is passed as a `long
//! long`, so a conversion without `l`, `ll`, `q`, `j`, `z` or `t` reads its low 32
//! bits (`h` 16, `hh` 8); a real is passed as a `double`; a string as a `char *`.

/// What kind of value a conversion takes (HTCondor's `printf_fmt_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `d i o u x X`.
    Int,
    /// `e E f F g G`.
    Float,
    /// `c`.
    Char,
    /// `s`.
    Str,
    /// `p`.
    Pointer,
    /// `v V`: HTCondor's own, the value (a string bare with `v`, quoted with `V`).
    Value,
    /// `r R`: HTCondor's own, the expression unevaluated.
    Raw,
    /// `T`: HTCondor's own, seconds as `ddd+hh:mm:ss`.
    Time,
    /// `Y`: HTCondor's own, a time as `mm/dd hh:mm`.
    Date,
}

/// The width of the integer C reads, from the length modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntSize {
    /// `hh`.
    Char,
    /// `h`.
    Short,
    /// None: an `int`.
    Int,
    /// `l`, `ll`, `q`, `j`, `z`, `t`.
    Long,
}

/// One conversion of a format, as `parsePrintfFormat` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// `-`.
    pub left: bool,
    /// `0`.
    pub zero: bool,
    /// `+`.
    pub plus: bool,
    /// ` `.
    pub space: bool,
    /// `#`.
    pub alt: bool,
    /// The minimum width (0: none).
    pub width: usize,
    /// The precision, when given (`.` alone is 0).
    pub precision: Option<usize>,
    /// The integer C reads.
    pub int_size: IntSize,
    /// The conversion letter.
    pub letter: char,
    /// What it takes.
    pub kind: Kind,
    /// Where the conversion starts (its `%`) and ends in the format, in bytes.
    pub span: (usize, usize),
}

/// What reading a format found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// No conversion HTCondor recognizes (none, an unknown letter, a format that
    /// ends inside one): HTCondor prints such a format as it is, for every ad.
    NoConversion,
    /// The first conversion; `rest_has_another` when a second one follows.
    One {
        conversion: Conversion,
        rest_has_another: bool,
    },
    /// A conversion HTCondor refuses to use (`*` width or precision, `%n`):
    /// its text.
    Unsafe(String),
    /// `%a` or `%A` (hexadecimal reals): C's, and HTCondor passes them on, but
    /// this module does not write them; its text.
    Unsupported(String),
}

/// Reads `format` as `parsePrintfFormat` does: the first conversion, skipping
/// `%%`.
pub fn parse(format: &str) -> Parsed {
    match parse_from(format, 0) {
        Scan::Found(conversion) => {
            let rest_has_another = !matches!(parse_from(format, conversion.span.1), Scan::None);
            Parsed::One {
                conversion,
                rest_has_another,
            }
        }
        Scan::Unsafe(text) => Parsed::Unsafe(text),
        Scan::Unsupported(text) => Parsed::Unsupported(text),
        Scan::None => Parsed::NoConversion,
    }
}

enum Scan {
    Found(Conversion),
    Unsafe(String),
    Unsupported(String),
    None,
}

fn parse_from(format: &str, from: usize) -> Scan {
    let b = format.as_bytes();
    let Some(offset) = b[from..].iter().position(|&c| c == b'%') else {
        return Scan::None;
    };
    let start = from + offset;
    let mut i = start + 1;
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    if at(i) == b'%' {
        return parse_from(format, i + 1);
    }
    let mut c = Conversion {
        left: false,
        zero: false,
        plus: false,
        space: false,
        alt: false,
        width: 0,
        precision: None,
        int_size: IntSize::Int,
        letter: '\0',
        kind: Kind::Int,
        span: (start, start),
    };
    let mut star = false;
    loop {
        match at(i) {
            b'#' => c.alt = true,
            b'0' => c.zero = true,
            b'-' => c.left = true,
            b' ' => c.space = true,
            b'+' => c.plus = true,
            // Grouping: the C locale has none.
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    let digits = |i: &mut usize| {
        let mut n = 0usize;
        while at(*i).is_ascii_digit() {
            n = n
                .saturating_mul(10)
                .saturating_add(usize::from(at(*i) - b'0'));
            *i += 1;
        }
        n
    };
    if at(i) == b'*' {
        star = true;
        i += 1;
    } else {
        c.width = digits(&mut i);
    }
    if at(i) == b'.' {
        i += 1;
        if at(i) == b'*' {
            star = true;
            i += 1;
        } else {
            c.precision = Some(digits(&mut i));
        }
    }
    let mut longs = 0;
    let mut shorts = 0;
    while let ch @ (b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't') = at(i) {
        match ch {
            b'h' => shorts += 1,
            b'L' => {}
            _ => longs += 1,
        }
        i += 1;
    }
    c.int_size = if longs > 0 {
        IntSize::Long
    } else if shorts >= 2 {
        IntSize::Char
    } else if shorts == 1 {
        IntSize::Short
    } else {
        IntSize::Int
    };
    let letter = at(i);
    c.kind = match letter {
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => Kind::Int,
        b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => Kind::Float,
        b'c' | b'C' => Kind::Char,
        b's' | b'S' => Kind::Str,
        b'p' => Kind::Pointer,
        b'v' | b'V' => Kind::Value,
        b'r' | b'R' => Kind::Raw,
        b'T' => Kind::Time,
        b'Y' => Kind::Date,
        b'n' => return Scan::Unsafe(format[start..=i].to_string()),
        b'a' | b'A' => return Scan::Unsupported(format[start..=i].to_string()),
        // An unknown letter ends the scan as it ends HTCondor's.
        _ => return Scan::None,
    };
    c.letter = char::from(letter);
    c.span = (start, i + 1);
    if star {
        return Scan::Unsafe(format[start..=i].to_string());
    }
    Scan::Found(c)
}

/// The literal text of a format around its conversion, as `printf` prints it:
/// `%%` is `%`.
pub fn literal(text: &str) -> String {
    text.replace("%%", "%")
}

/// `printf(format, value)` for a format of one integer conversion written in
/// this crate (the tables' `%6d`, `%4d.`); a format without one prints as it is.
pub fn printf_int(format: &str, value: i64) -> String {
    match parse(format) {
        Parsed::One { conversion: c, .. } => format!(
            "{}{}{}",
            literal(&format[..c.span.0]),
            format_int(&c, value),
            literal(&format[c.span.1..])
        ),
        _ => literal(format),
    }
}

/// `printf(format, value)` for a format of one real conversion written in this
/// crate (the tables' `%.3f`, `%.1f`).
pub fn printf_float(format: &str, value: f64) -> String {
    match parse(format) {
        Parsed::One { conversion: c, .. } => format!(
            "{}{}{}",
            literal(&format[..c.span.0]),
            format_float(&c, value),
            literal(&format[c.span.1..])
        ),
        _ => literal(format),
    }
}

/// `value` as conversion `c` of kind [`Kind::Int`], [`Kind::Char`] or
/// [`Kind::Pointer`] prints it, passed as a `long long`.
pub fn format_int(c: &Conversion, value: i64) -> String {
    match c.kind {
        Kind::Char => pad(c, &char::from(value as u8).to_string()),
        Kind::Pointer if value == 0 => pad(c, "(nil)"),
        Kind::Pointer => pad(c, &format!("0x{value:x}")),
        _ => format_integer(c, value),
    }
}

fn format_integer(c: &Conversion, value: i64) -> String {
    let signed = matches!(c.letter, 'd' | 'i');
    // What C reads of the `long long` it was given.
    let (negative, magnitude) = if signed {
        let v = match c.int_size {
            IntSize::Char => i64::from(value as i8),
            IntSize::Short => i64::from(value as i16),
            IntSize::Int => i64::from(value as i32),
            IntSize::Long => value,
        };
        (v < 0, v.unsigned_abs())
    } else {
        let v = match c.int_size {
            IntSize::Char => u64::from(value as u8),
            IntSize::Short => u64::from(value as u16),
            IntSize::Int => u64::from(value as u32),
            IntSize::Long => value as u64,
        };
        (false, v)
    };
    let mut digits = match c.letter {
        'o' => format!("{magnitude:o}"),
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    if let Some(p) = c.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let mut prefix = String::new();
    if negative {
        prefix.push('-');
    } else if signed && c.plus {
        prefix.push('+');
    } else if signed && c.space {
        prefix.push(' ');
    }
    if c.alt {
        match c.letter {
            'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            'x' if magnitude != 0 => prefix.push_str("0x"),
            'X' if magnitude != 0 => prefix.push_str("0X"),
            _ => {}
        }
    }
    // `0` pads with zeros after the sign, unless a precision is given.
    let zeros = c.zero && !c.left && c.precision.is_none();
    pad_number(c, &prefix, &digits, zeros)
}

/// `value` as conversion `c` of kind [`Kind::Float`] prints it.
pub fn format_float(c: &Conversion, value: f64) -> String {
    let upper = c.letter.is_ascii_uppercase();
    let mut prefix = String::new();
    if value.is_sign_negative() && !value.is_nan() {
        prefix.push('-');
    } else if c.plus {
        prefix.push('+');
    } else if c.space {
        prefix.push(' ');
    }
    let x = value.abs();
    if !x.is_finite() {
        let text = if x.is_nan() { "nan" } else { "inf" };
        let text = if upper {
            text.to_ascii_uppercase()
        } else {
            text.to_string()
        };
        return pad_number(c, &prefix, &text, false);
    }
    let p = c.precision.unwrap_or(6);
    let body = match c.letter.to_ascii_lowercase() {
        'f' => fixed(x, p, c.alt),
        'e' => exponent(x, p, c.alt, upper),
        _ => general(x, p, c.alt, upper),
    };
    pad_number(c, &prefix, &body, c.zero && !c.left)
}

/// `%.{p}f` of a non-negative finite `x`.
fn fixed(x: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{x:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// `%.{p}e` of a non-negative finite `x`: at least two exponent digits.
fn exponent(x: f64, p: usize, alt: bool, upper: bool) -> String {
    let s = format!("{x:.p$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let point = if alt && p == 0 { "." } else { "" };
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}{point}{e}{sign}{:02}", exp.abs())
}

/// `%.{p}g` of a non-negative finite `x` (C99 7.19.6.1): `%e` when the exponent
/// is below -4 or at least the precision, else `%f`; trailing zeros removed
/// unless `#`.
fn general(x: f64, p: usize, alt: bool, upper: bool) -> String {
    let p = p.max(1);
    let e_form = format!("{x:.prec$e}", prec = p - 1);
    let exp: i32 = e_form
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let s = if exp < -4 || exp >= p as i32 {
        exponent(x, p - 1, alt, upper)
    } else {
        fixed(x, (p as i32 - 1 - exp) as usize, alt)
    };
    if alt {
        return s;
    }
    let (mant, exp_part) = match s.find(['e', 'E']) {
        Some(i) => s.split_at(i),
        None => (s.as_str(), ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp_part}")
}

/// `value` as conversion `c` of kind [`Kind::Str`] prints it (also the `v`, `V`
/// and `r` conversions, which HTCondor prints as `%s` of their text): a
/// precision keeps at most that many bytes.
pub fn format_str(c: &Conversion, value: &str) -> String {
    let mut s = value;
    if let Some(p) = c.precision {
        if s.len() > p {
            let mut end = p;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s = &s[..end];
        }
    }
    pad(c, s)
}

/// `text` padded with spaces to the width, on the right with `-`.
fn pad(c: &Conversion, text: &str) -> String {
    let fill = c.width.saturating_sub(text.len());
    if c.left {
        format!("{text}{}", " ".repeat(fill))
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

/// A number's sign or prefix and digits padded to the width: zeros go between
/// them, spaces outside.
fn pad_number(c: &Conversion, prefix: &str, digits: &str, zeros: bool) -> String {
    let fill = c.width.saturating_sub(prefix.len() + digits.len());
    if c.left {
        format!("{prefix}{digits}{}", " ".repeat(fill))
    } else if zeros {
        format!("{prefix}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{prefix}{digits}", " ".repeat(fill))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(format: &str) -> Conversion {
        match parse(format) {
            Parsed::One { conversion, .. } => conversion,
            other => panic!("{format}: {other:?}"),
        }
    }

    // Expected strings are glibc's printf of the same format and value.
    #[test]
    fn integers_print_as_c_prints_a_long_long_read_as_the_conversion_says() {
        let i = |f: &str, v: i64| format_int(&conv(f), v);
        assert_eq!(i("%d", 42), "42");
        assert_eq!(i("%5d", -42), "  -42");
        assert_eq!(i("%-5d|", 42), "42   ");
        assert_eq!(i("%05d", -42), "-0042");
        assert_eq!(i("%+d", 42), "+42");
        assert_eq!(i("% d", 42), " 42");
        assert_eq!(i("%.3d", 7), "007");
        assert_eq!(i("%.0d", 0), "");
        assert_eq!(i("%x", 255), "ff");
        assert_eq!(i("%#X", 255), "0XFF");
        assert_eq!(i("%#o", 8), "010");
        assert_eq!(i("%o", 0), "0");
        assert_eq!(i("%u", -1), "4294967295");
        assert_eq!(i("%lu", -1), "18446744073709551615");
        // Without `l`, C reads the low 32 bits of the long long HTCondor passes.
        assert_eq!(i("%d", (1 << 32) + 5), "5");
        assert_eq!(i("%lld", (1 << 32) + 5), "4294967301");
        assert_eq!(i("%hd", 65537), "1");
        assert_eq!(i("%c", 65), "A");
        assert_eq!(i("%3c", 65), "  A");
        assert_eq!(i("%p", 0), "(nil)");
        assert_eq!(i("%p", 255), "0xff");
    }

    #[test]
    fn reals_print_as_c_prints_a_double() {
        let f = |fmt: &str, v: f64| format_float(&conv(fmt), v);
        assert_eq!(f("%f", 2.5), "2.500000");
        assert_eq!(f("%.2f", 2.345), "2.35");
        assert_eq!(f("%8.3f", -0.5), "  -0.500");
        assert_eq!(f("%08.3f", -0.5), "-000.500");
        assert_eq!(f("%-8.1f|", 1.0), "1.0     ");
        assert_eq!(f("%.0f", 2.0), "2");
        assert_eq!(f("%#.0f", 2.0), "2.");
        assert_eq!(f("%e", 1234.5), "1.234500e+03");
        assert_eq!(f("%.2E", 0.000123), "1.23E-04");
        assert_eq!(f("%g", 0.0001), "0.0001");
        assert_eq!(f("%g", 0.00001), "1e-05");
        assert_eq!(f("%g", 123456.0), "123456");
        assert_eq!(f("%g", 1234567.0), "1.23457e+06");
        assert_eq!(f("%g", 2.5), "2.5");
        assert_eq!(f("%g", 0.0), "0");
        assert_eq!(f("%#g", 2.5), "2.50000");
        assert_eq!(f("%G", 1e-10), "1E-10");
        assert_eq!(f("%f", f64::INFINITY), "inf");
        assert_eq!(f("%5F", f64::NEG_INFINITY), " -INF");
        assert_eq!(f("%+.1f", 1.0), "+1.0");
    }

    #[test]
    fn strings_are_cut_by_the_precision_and_padded_by_the_width() {
        let s = |fmt: &str, v: &str| format_str(&conv(fmt), v);
        assert_eq!(s("%s", "abc"), "abc");
        assert_eq!(s("%5s", "abc"), "  abc");
        assert_eq!(s("%-5s", "abc"), "abc  ");
        assert_eq!(s("%.2s", "abc"), "ab");
        assert_eq!(s("%-6.2s", "abc"), "ab    ");
    }

    #[test]
    fn formats_are_read_as_parse_printf_format_reads_them() {
        let c = conv("Name: %-10.3lld!");
        assert!(c.left);
        assert_eq!((c.width, c.precision), (10, Some(3)));
        assert_eq!(c.int_size, IntSize::Long);
        assert_eq!(c.kind, Kind::Int);
        assert_eq!(c.span, (6, 15));
        assert_eq!(conv("100%% %v").kind, Kind::Value);
        assert_eq!(conv("%T").kind, Kind::Time);
        assert_eq!(conv("%Y").kind, Kind::Date);
        assert_eq!(conv("%R").kind, Kind::Raw);
        assert_eq!(parse("no conversion"), Parsed::NoConversion);
        assert_eq!(parse("100%%"), Parsed::NoConversion);
        assert_eq!(parse("%k"), Parsed::NoConversion);
        assert_eq!(parse("%-5"), Parsed::NoConversion);
        assert_eq!(parse("%*d"), Parsed::Unsafe("%*d".into()));
        assert_eq!(parse("%.*f"), Parsed::Unsafe("%.*f".into()));
        assert_eq!(parse("%n"), Parsed::Unsafe("%n".into()));
        assert_eq!(parse("%.2a"), Parsed::Unsupported("%.2a".into()));
        assert!(matches!(
            parse("%s and %d"),
            Parsed::One {
                rest_has_another: true,
                ..
            }
        ));
        assert!(matches!(
            parse("%s 100%%"),
            Parsed::One {
                rest_has_another: false,
                ..
            }
        ));
        assert_eq!(literal("a%%b"), "a%b");
        assert_eq!(printf_int("%4d.", 41), "  41.");
        assert_eq!(printf_float("%.3f%%", 0.25), "0.250%");
    }
}
