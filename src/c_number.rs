//! C's `strtod`, as HTCondor's library reads a number out of text with it (the
//! `int()` and `real()` builtins, string lists, the XML reader's `<r>`): below
//! the syntax, the ads and the builtins, which all call it.

/// C's `strtod` on the start of `s`: the value and whether anything was consumed.
/// Accepts leading white space, a sign, decimal and hex (`0x1p3`) forms, `inf`,
/// `infinity` and `nan`.
pub fn strtod(s: &str) -> Option<f64> {
    strtod_prefix(s).map(|(v, _)| v)
}

/// C's `strtod` on the start of `s`: the value and how many bytes it read (what
/// `strtod` leaves in `*endptr`), or `None` when it reads nothing.
pub fn strtod_prefix(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let neg = matches!(b.get(i), Some(b'-'));
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower = rest
        .get(..8.min(rest.len()))
        .unwrap_or("")
        .to_ascii_lowercase();
    let (mag, len) = if lower.starts_with("infinity") {
        (f64::INFINITY, 8)
    } else if lower.starts_with("inf") {
        (f64::INFINITY, 3)
    } else if lower.starts_with("nan") {
        (f64::NAN, 3 + nan_payload(&rest[3..]))
    } else if lower.starts_with("0x") {
        // `0x` without a hex digit after it is the `0` alone.
        hex_float(&rest[2..]).map_or((0.0, 1), |(v, n)| (v, 2 + n))
    } else {
        decimal_float(rest)?
    };
    Some((if neg { -mag } else { mag }, i + len))
}

/// The length of the `(chars)` that may follow `nan`: letters, digits and `_`
/// between parentheses; 0 when there is none.
fn nan_payload(s: &str) -> usize {
    let Some(body) = s.strip_prefix('(') else {
        return 0;
    };
    let inner = body
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
        .count();
    if body.as_bytes().get(inner) == Some(&b')') {
        inner + 2
    } else {
        0
    }
}

/// The longest decimal floating-point prefix of `s` and its length; `None` when
/// there are no digits.
fn decimal_float(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    s[..i].parse::<f64>().ok().map(|v| (v, i))
}

/// A hexadecimal float body after `0x` (`1F`, `1.8p3`) and its length; `None`
/// (meaning the `0` alone) when no hex digit follows.
fn hex_float(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut m = 0.0f64;
    let mut scale = 0i32;
    let mut any = false;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        m = m * 16.0 + f64::from((b[i] as char).to_digit(16).unwrap_or(0));
        any = true;
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            m = m * 16.0 + f64::from((b[i] as char).to_digit(16).unwrap_or(0));
            scale -= 4;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if i < b.len() && (b[i] == b'p' || b[i] == b'P') {
        let mut j = i + 1;
        let neg = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let start = j;
        let mut e: i32 = 0;
        while j < b.len() && b[j].is_ascii_digit() {
            e = e.saturating_mul(10).saturating_add(i32::from(b[j] - b'0'));
            j += 1;
        }
        if j > start {
            scale = scale.saturating_add(if neg { -e } else { e });
            i = j;
        }
    }
    Some((m * 2f64.powi(scale), i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_prefix_says_where_strtod_stops() {
        let stop = |t: &str| strtod_prefix(t).map(|(_, n)| n);
        assert_eq!(stop("  2.5xyz"), Some(5));
        assert_eq!(stop("1e3x"), Some(3));
        assert_eq!(stop("1e"), Some(1));
        assert_eq!(stop("-0x"), Some(2));
        assert_eq!(stop("0x1.8p3 "), Some(7));
        assert_eq!(stop("0x1p"), Some(3));
        assert_eq!(stop("infinity"), Some(8));
        assert_eq!(stop("-INFx"), Some(4));
        assert_eq!(stop("nan(12)"), Some(7));
        assert_eq!(stop("nan(1"), Some(3));
        assert_eq!(stop("."), None);
        assert_eq!(stop(""), None);
    }
}
