//! Making a file of ads in chunks on rayon's threads while the calling thread
//! writes the chunks already made, in order. A chunk's text depends only on its
//! index (each draws from its own random stream), so the file is the same whatever
//! the number of threads, and only a few batches of chunks are ever held.

use super::AdCounts;
use rayon::prelude::*;
use std::io::{self, Write};

/// Chunks made at once per thread: enough to keep every thread busy while the
/// previous batch is written.
const CHUNKS_PER_THREAD: usize = 4;

/// Writes chunks `0..chunks` to `out` in order, each made by `make(index, buffer)`
/// (which appends the chunk's text and returns what it wrote). While one batch of
/// chunks is written on the calling thread, the next is made on rayon's threads.
/// Buffers are reused from batch to batch; a new one is made with room for
/// `chunk_bytes` (fresh memory is slow to touch, so it had better not be grown
/// by doubling).
pub(super) fn write_in_chunks<W, F>(
    chunks: usize,
    chunk_bytes: usize,
    out: &mut W,
    make: F,
) -> io::Result<AdCounts>
where
    W: Write + ?Sized,
    F: Fn(usize, &mut Vec<u8>) -> AdCounts + Sync,
{
    let per_batch = (rayon::current_num_threads() * CHUNKS_PER_THREAD).max(CHUNKS_PER_THREAD);
    let mut counts = AdCounts::default();
    let mut ready: Vec<Vec<u8>> = Vec::new();
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut next = 0;
    while next < chunks || !ready.is_empty() {
        let end = (next + per_batch).min(chunks);
        let buffers: Vec<Vec<u8>> = (next..end)
            .map(|_| {
                spare
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(chunk_bytes))
            })
            .collect();
        let mut made: Vec<(Vec<u8>, AdCounts)> = Vec::new();
        let mut written = Ok(());
        rayon::in_place_scope(|s| {
            if !buffers.is_empty() {
                let (made, make) = (&mut made, &make);
                s.spawn(move |_| {
                    *made = buffers
                        .into_par_iter()
                        .zip(next..end)
                        .map(|(mut buf, c)| {
                            let n = make(c, &mut buf);
                            (buf, n)
                        })
                        .collect();
                });
            }
            written = ready.iter().try_for_each(|b| out.write_all(b));
        });
        written?;
        for mut b in ready.drain(..) {
            b.clear();
            spare.push(b);
        }
        for (buf, n) in made {
            counts = counts.merge(n);
            ready.push(buf);
        }
        next = end;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(chunks: usize, threads: usize) -> (Vec<u8>, AdCounts) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut out = Vec::new();
        let counts = pool.install(|| {
            write_in_chunks(chunks, 16, &mut out, |c, buf| {
                buf.extend_from_slice(format!("{c}\n").as_bytes());
                let mut n = AdCounts::default();
                n.add(c);
                n
            })
            .unwrap()
        });
        (out, counts)
    }

    #[test]
    fn chunks_are_written_in_order() {
        for threads in [1, 3] {
            let (out, counts) = numbers(100, threads);
            let want: String = (0..100).map(|c| format!("{c}\n")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), want);
            assert_eq!(
                (counts.ads, counts.min_attrs, counts.max_attrs),
                (100, 0, 99)
            );
        }
        assert_eq!(numbers(0, 2).0, b"");
    }

    #[test]
    fn a_failed_write_is_an_error() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let e = write_in_chunks(10, 16, &mut Full, |_, buf| {
            buf.push(b'x');
            AdCounts::default()
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }
}
