//! Times every job-machine pair of a pool on one thread, reading and compiling
//! apart: `pool_pairs JOBS MACHINES [vm|reference]`.

use classad::ad::read_ads;
use classad::eval::Semantics;
use classad::matching::{pool::CompiledPool, symmetric_match};
use classad_vm::Machine;
use std::sync::Arc;
use std::time::Instant;

fn read(path: &str) -> Vec<Arc<classad::ad::ClassAd>> {
    let text = std::fs::read_to_string(path).expect("read");
    let ads = read_ads(&text, path).expect("parse");
    ads.into_iter().map(Arc::new).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (jobs, machines) = (read(&args[1]), read(&args[2]));
    let engine = args.get(3).map_or("vm", String::as_str);
    let pairs = jobs.len() * machines.len();
    let t = Instant::now();
    let matches = if engine == "reference" {
        let mut n = 0;
        for m in &machines {
            for j in &jobs {
                n += usize::from(symmetric_match(j, m, Semantics::Htcondor));
            }
        }
        n
    } else {
        let pool = CompiledPool::new(&jobs, &machines);
        println!("compile: {:.3} s", t.elapsed().as_secs_f64());
        let t = Instant::now();
        let n = pool.all_pairs(&mut Machine::new()).len();
        let s = t.elapsed().as_secs_f64();
        println!("match:   {s:.3} s, {:.0} pairs/s", pairs as f64 / s);
        n
    };
    println!(
        "{engine}: {pairs} pairs, {matches} matching, total {:.3} s",
        t.elapsed().as_secs_f64()
    );
}
