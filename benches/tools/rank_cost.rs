//! What the negotiator's ranks cost the batch matcher on a pool, one thread, best
//! of four warm runs: every pair alone, and every job's ranked candidates, with
//! HTCondor's default `NEGOTIATOR_PRE_JOB_RANK`/`NEGOTIATOR_POST_JOB_RANK` and
//! without them: `cargo run --release --example rank_cost -- JOBS MACHINES`.

use classad::ad::read_ads;
use classad::matching::batch::BatchMatcher;
use classad::matching::NegotiatorPolicy;
use std::sync::Arc;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [jobs, machines] = &args[..] else {
        return Err("usage: rank_cost JOBS MACHINES".into());
    };
    let load = |p: &str| -> Result<Vec<_>, Box<dyn std::error::Error>> {
        let ads = read_ads(&std::fs::read_to_string(p)?, p)?;
        Ok(ads.into_iter().map(Arc::new).collect())
    };
    let (jobs, machines) = (load(jobs)?, load(machines)?);
    let workers = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let full = NegotiatorPolicy::default();
    let bare = NegotiatorPolicy {
        pre_job_rank: None,
        post_job_rank: None,
        ..NegotiatorPolicy::default()
    };
    for (name, policy) in [("default ranks", &full), ("no PRE/POST", &bare)] {
        let mut m = BatchMatcher::new(&jobs, &machines, policy, true);
        for candidates in [false, true] {
            let mut best = f64::MAX;
            for _ in 0..4 {
                let t = Instant::now();
                workers
                    .install(|| {
                        if candidates {
                            m.for_each_candidates(|_, _| Ok::<(), ()>(()))
                        } else {
                            m.for_each_pair(|_, _| Ok::<(), ()>(()))
                        }
                    })
                    .map_err(|()| "unreachable")?;
                best = best.min(t.elapsed().as_secs_f64());
            }
            let what = if candidates { "candidates" } else { "pairs" };
            println!("{name}, {what}: {best:.3} s");
        }
    }
    Ok(())
}
