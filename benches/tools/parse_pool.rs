//! Reads an ad file many times (for profiling the reader): `parse_pool FILE [N]
//! [unique]`; with `unique`, every literal value is first made different from ad to
//! ad (the reader's slowest case, as `benches/parse.rs` also measures it).

#[path = "unique_values.rs"]
mod unique_values;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: parse_pool FILE [N] [unique]");
    let n: usize = args.next().map_or(100, |s| s.parse().expect("N"));
    let mut text = std::fs::read_to_string(&path).expect("read");
    if args.next().as_deref() == Some("unique") {
        text = unique_values::unique_values(&text);
    }
    let mut total = 0;
    for _ in 0..n {
        total += classad::ad::read_ads(&text, &path).expect("parse").len();
    }
    println!("{total} ads");
}
