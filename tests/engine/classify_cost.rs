//! What classifying a job into its autocluster costs follows the job's own
//! attributes, not the number of significant attributes (issue 33, 5.10): slots
//! naming 8,000 job attributes made each job cost about 250 ns per name (10,000
//! jobs of classes of their own took 81 s; now well under a second). Counted as
//! the bytes this thread allocates per job, which grew with every significant
//! name (each class's signature listed them all, each job's layout held a slot
//! per name): a count, so that it holds on any machine.

use classad::ad::{read_ads, ClassAd};
use classad::matching::{NegotiatorPolicy, SignificantAttributes};

use crate::counting_alloc;

/// Slots whose Requirements name `names` job attributes, `W0`, `W1`, ...
fn slots_naming(names: usize) -> Vec<ClassAd> {
    let text: String = (0..names.div_ceil(500))
        .map(|s| {
            let terms: Vec<String> = (s * 500..names.min(s * 500 + 500))
                .map(|i| format!("TARGET.W{i} =!= 7"))
                .collect();
            format!("Requirements = {}\nCpus = 1\n\n", terms.join(" && "))
        })
        .collect();
    read_ads(&text, "slots").unwrap()
}

/// `n` jobs, each a class of its own and of a layout of its own: each has one
/// of the names `W0` to `W399` and a value no other job has there.
fn jobs(n: usize) -> Vec<ClassAd> {
    let text: String = (0..n)
        .map(|i| {
            format!(
                "Requirements = TARGET.Cpus > 0 && MY.RequestCpus > 0\nRequestCpus = 1\n\
                 W{} = {i}\nOwner = \"u{}\"\nX{i} = 1\n\n",
                i % 400,
                i % 3
            )
        })
        .collect();
    read_ads(&text, "jobs").unwrap()
}

/// The bytes classifying each job allocates, beyond what the part costs at all:
/// the difference between classifying `2n` jobs and `n`, per job.
fn bytes_per_job(slots: &[ClassAd], n: usize) -> u64 {
    let (few, many) = (jobs(n), jobs(2 * n));
    let cost = |jobs: &[ClassAd]| {
        // Fresh attributes each time: nothing worked out before is reused.
        let sig = SignificantAttributes::compute(slots, &NegotiatorPolicy::default());
        let before = counting_alloc::bytes();
        let part = sig.classify(jobs);
        let bytes = counting_alloc::bytes() - before;
        drop(part);
        bytes
    };
    (cost(&many) - cost(&few)) / n as u64
}

#[test]
fn classifying_a_job_costs_what_the_job_has_not_what_is_significant() {
    let narrow = bytes_per_job(&slots_naming(500), 200);
    let wide = bytes_per_job(&slots_naming(8_000), 200);
    eprintln!("bytes per job: {narrow} (500 significant names), {wide} (8,000)");
    assert!(
        wide <= narrow + narrow / 4,
        "{wide} bytes per job against 8,000 significant names, {narrow} against 500"
    );
}
