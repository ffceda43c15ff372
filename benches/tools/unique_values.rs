//! A pool file with every literal value made different from ad to ad: the old-syntax
//! reader's slowest case.

/// The same ads with every literal value changed from ad to ad (a suffix on strings,
/// a digit more on numbers), so that no line repeats the same line of another ad,
/// while names and expressions stay as they are.
pub fn unique_values(text: &str) -> String {
    let mut out = String::new();
    for (i, ad) in text.split("\n\n").enumerate() {
        let digit = (i % 9 + 1) as i64;
        for line in ad.lines() {
            let Some((name, value)) = line.split_once(" = ") else {
                out.push_str(line);
                out.push('\n');
                continue;
            };
            let value = if let Some(body) = value.strip_suffix('"') {
                format!("{body}-{i}\"")
            } else if let Ok(n) = value.parse::<i64>() {
                n.checked_mul(10)
                    .and_then(|n| n.checked_add(digit))
                    .map_or(value.to_string(), |n| n.to_string())
            } else if value.contains('.') && value.parse::<f64>().is_ok() {
                format!("{value}{digit}")
            } else {
                value.to_string()
            };
            out.push_str(&format!("{name} = {value}\n"));
        }
        out.push('\n');
    }
    out
}
