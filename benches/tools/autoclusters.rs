//! Prints a pool's significant attributes and how its jobs cluster, with the time
//! each step takes: `cargo run --release --example autoclusters -- JOBS MACHINES`.

use classad::ad::read_ads;
use classad::matching::{Autoclusters, NegotiatorPolicy, SignificantAttributes};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [jobs, machines] = &args[..] else {
        return Err("usage: autoclusters JOBS MACHINES".into());
    };
    let t = Instant::now();
    let jobs = read_ads(&std::fs::read_to_string(jobs)?, jobs)?;
    let machines = read_ads(&std::fs::read_to_string(machines)?, machines)?;
    eprintln!(
        "read {} jobs, {} slots: {:.3} s",
        jobs.len(),
        machines.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let sig = SignificantAttributes::compute(&machines, &NegotiatorPolicy::default());
    eprintln!("significant attributes: {:.3} s", t.elapsed().as_secs_f64());
    println!(
        "significant: {}",
        sig.names()
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    println!(
        "extra: {}",
        sig.extra()
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    println!("whole jobs: {}", sig.reads_whole_jobs());
    let t = Instant::now();
    let clusters = Autoclusters::with(&jobs, sig);
    eprintln!("clustering: {:.3} s", t.elapsed().as_secs_f64());
    println!(
        "autoclusters: {}, match classes: {}",
        clusters.len(),
        clusters.classes().len()
    );
    Ok(())
}
