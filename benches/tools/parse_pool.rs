//! Reads an ad file many times (for profiling the reader): `parse_pool FILE N`.

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: parse_pool FILE [N]");
    let n: usize = args.next().map_or(100, |s| s.parse().expect("N"));
    let text = std::fs::read_to_string(&path).expect("read");
    let mut total = 0;
    for _ in 0..n {
        total += classad::ad::read_ads(&text, &path).expect("parse").len();
    }
    println!("{total} ads");
}
