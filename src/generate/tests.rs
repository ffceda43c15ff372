//! The generator's properties: deterministic per seed and thread count, the three
//! syntaxes alike, the model's structure, consumption policies, and priorities for
//! exactly the submitters the jobs use.

use super::*;
use crate::ad::{read_ads, ClassAd};
use crate::eval::{eval_attr, Semantics};
use crate::negotiate::Priorities;
use crate::syntax::ast::Node;
use crate::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

fn spec(machines: usize, jobs: usize, seed: u64) -> PoolSpec {
    PoolSpec {
        machines,
        jobs,
        seed,
        submitters: None,
        signatures: None,
    }
}

/// The machines, jobs and priorities files of a pool, as text.
fn files(spec: &PoolSpec, syntax: Syntax) -> (String, String, String) {
    let pool = Pool::new(spec);
    let (mut m, mut j, mut p) = (Vec::new(), Vec::new(), Vec::new());
    pool.write_machines(syntax, &mut m).unwrap();
    pool.write_jobs(syntax, &mut j).unwrap();
    pool.write_priorities(&mut p).unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (text(m), text(j), text(p))
}

fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
        .install(f)
}

/// The value of `name` in `ad` (a literal as it is, else evaluated alone).
fn value(ad: &ClassAd, name: &str) -> Value {
    match ad.get(name).map(|e| e.node()) {
        Some(Node::Lit(v)) => v.clone(),
        _ => eval_attr(&Arc::new(ad.clone()), name, None, Semantics::Htcondor).unwrap(),
    }
}

/// The value of `name` in `ad`, printed.
fn text(ad: &ClassAd, name: &str) -> String {
    crate::values::display::unparse_value(&value(ad, name))
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    match value(ad, name) {
        Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// The submitter of a job as the negotiator names it.
fn submitter(job: &ClassAd) -> String {
    let s = |n: &str| string(job, n);
    crate::negotiate::submitters::submitter_name(
        s("AccountingGroup").as_deref(),
        s("User").as_deref(),
        s("Owner").as_deref(),
        None,
    )
    .unwrap()
}

#[test]
fn the_same_seed_gives_the_same_pool() {
    let s = spec(300, 2500, 7);
    for syntax in [Syntax::Old, Syntax::New, Syntax::Json] {
        assert_eq!(files(&s, syntax), files(&s, syntax));
    }
}

#[test]
fn different_seeds_give_different_pools() {
    let (m1, j1, p1) = files(&spec(300, 2500, 1), Syntax::Old);
    let (m2, j2, p2) = files(&spec(300, 2500, 2), Syntax::Old);
    assert_ne!(m1, m2);
    assert_ne!(j1, j2);
    assert_ne!(p1, p2);
}

#[test]
fn the_thread_count_does_not_change_the_pool() {
    // Several chunks of each file.
    let s = PoolSpec {
        submitters: Some(40),
        ..spec(3 * machines::CHUNK + 17, 5 * jobs::CHUNK + 3, 11)
    };
    let one = on_threads(1, || files(&s, Syntax::Old));
    let three = on_threads(3, || files(&s, Syntax::Old));
    assert!(one == three, "1 and 3 threads differ");
    let json = on_threads(4, || files(&s, Syntax::Json));
    assert!(json == on_threads(1, || files(&s, Syntax::Json)));
}

#[test]
fn the_three_syntaxes_hold_the_same_ads() {
    let s = spec(200, 1500, 5);
    let read = |syntax| {
        let (m, j, _) = files(&s, syntax);
        let m = read_ads(&m, "machines").unwrap();
        let j = read_ads(&j, "jobs").unwrap();
        let text =
            |ads: &[ClassAd]| -> Vec<String> { ads.iter().map(crate::ad::unparse_ad).collect() };
        (text(&m), text(&j))
    };
    let old = read(Syntax::Old);
    assert_eq!((old.0.len(), old.1.len()), (200, 1500));
    assert!(old == read(Syntax::New), "old and new syntax differ");
    assert!(old == read(Syntax::Json), "old syntax and JSON differ");
}

#[test]
fn counts_are_as_asked_even_when_small() {
    for syntax in [Syntax::Old, Syntax::New, Syntax::Json] {
        for (m, j) in [(0, 0), (1, 1), (7, 3), (60, 41)] {
            let pool = Pool::new(&spec(m, j, 3));
            let (mut mb, mut jb) = (Vec::new(), Vec::new());
            let mc = pool.write_machines(syntax, &mut mb).unwrap();
            let jc = pool.write_jobs(syntax, &mut jb).unwrap();
            assert_eq!((mc.ads, jc.ads), (m, j));
            let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
            assert_eq!(read_ads(&text(&mb), "m").unwrap().len(), m, "{syntax:?}");
            assert_eq!(read_ads(&text(&jb), "j").unwrap().len(), j, "{syntax:?}");
        }
    }
}

#[test]
fn machines_follow_the_model() {
    let (m, _, _) = files(&spec(3000, 10, 2), Syntax::Old);
    let ads = read_ads(&m, "machines").unwrap();
    let kind = |ad: &ClassAd| string(ad, "SlotType").unwrap();
    let (mut pslots, mut dynamic, mut statics) = (0, 0, 0);
    let mut starts = BTreeSet::new();
    let mut arches = BTreeSet::new();
    for ad in &ads {
        arches.insert(string(ad, "Arch").unwrap());
        starts.insert(crate::ad::unparse_ad(ad).contains("stringListMember(TARGET.AcctGroup"));
        match kind(ad).as_str() {
            "Partitionable" => {
                pslots += 1;
                assert_eq!(string(ad, "State").as_deref(), Some("Unclaimed"));
                let children = text(ad, "ChildCpus");
                let inside = children.trim_start_matches('{').trim_end_matches('}');
                let n = inside.split(',').filter(|c| !c.trim().is_empty()).count();
                assert_eq!(text(ad, "NumDynamicSlots"), n.to_string(), "{children}");
            }
            "Dynamic" => {
                dynamic += 1;
                assert_eq!(string(ad, "State").as_deref(), Some("Claimed"));
                assert_eq!(string(ad, "Activity").as_deref(), Some("Busy"));
                for a in [
                    "RemoteUser",
                    "RemoteOwner",
                    "AccountingGroup",
                    "JobId",
                    "ClientMachine",
                ] {
                    assert!(string(ad, a).is_some(), "{a}");
                }
            }
            "Static" => statics += 1,
            k => panic!("slot type {k}"),
        }
        // The slot's own Requirements evaluate (they read the job, so undefined here
        // is fine, an error is not).
        assert!(!value(ad, "Requirements").is_error());
    }
    assert!(
        pslots > 100 && dynamic > 1000 && statics > 50,
        "{pslots} {dynamic} {statics}"
    );
    assert_eq!(
        arches.into_iter().collect::<Vec<_>>(),
        ["X86_64", "aarch64"]
    );
    assert_eq!(
        starts.len(),
        2,
        "some slots have the group policy, some not"
    );
}

#[test]
fn some_partitionable_slots_have_a_consumption_policy() {
    let (m, _, _) = files(&spec(20_000, 10, 4), Syntax::Old);
    let ads: Vec<Arc<ClassAd>> = read_ads(&m, "machines")
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    let pslots: Vec<&Arc<ClassAd>> = ads
        .iter()
        .filter(|ad| text(ad, "PartitionableSlot") == "true")
        .collect();
    let with: Vec<&&Arc<ClassAd>> = pslots
        .iter()
        .filter(|ad| ad.contains("ConsumptionCpus"))
        .collect();
    let share = with.len() as f64 / pslots.len() as f64;
    assert!(
        (0.05..0.15).contains(&share),
        "{} of {}",
        with.len(),
        pslots.len()
    );
    let mut gpu_hosts = 0;
    for ad in &with {
        assert!(crate::negotiate::consumption::has_policy(ad));
        let gpus = matches!(value(ad, "TotalGPUs"), Value::Int(n) if n > 0);
        gpu_hosts += usize::from(gpus);
        assert_eq!(ad.contains("ConsumptionGPUs"), gpus);
        for r in ["Memory", "Disk"] {
            assert!(ad.contains(&format!("Consumption{r}")));
        }
    }
    assert!(gpu_hosts > 0);
    // Only partitionable slots have one.
    let others = ads
        .iter()
        .filter(|ad| ad.contains("ConsumptionCpus"))
        .count();
    assert_eq!(others, with.len());
    // A job's consumption is its requests, quantized.
    let job = Arc::new(
        read_ads(
            "RequestCpus = 3\nRequestMemory = 1000\nRequestDisk = 5000\n",
            "job",
        )
        .unwrap()
        .remove(0),
    );
    let used = crate::negotiate::consumption::consumption(&job, with[0]);
    let get = |r: &str| used.iter().find(|(n, _)| n == r).map(|(_, v)| *v);
    assert_eq!(get("Cpus"), Some(3.0));
    assert_eq!(get("Memory"), Some(1024.0));
    assert_eq!(get("Disk"), Some(5120.0));
}

/// The priorities of `text` name exactly the submitters of `jobs`.
fn check_priorities(jobs: &str, priorities: &str) -> BTreeSet<String> {
    let jobs = read_ads(jobs, "jobs").unwrap();
    let used: BTreeSet<String> = jobs.iter().map(submitter).collect();
    let p = Priorities::parse(priorities, "priorities").unwrap();
    let listed: BTreeSet<String> = p.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(used, listed);
    for (_, e) in p.iter() {
        assert!((0.5..=50.0).contains(&e.real), "{e:?}");
        assert!(
            [1.0, 10.0, 100.0, 1000.0].contains(&e.factor.unwrap()),
            "{e:?}"
        );
        assert!(e.usage >= 0.0);
    }
    used
}

#[test]
fn priorities_list_exactly_the_submitters_the_jobs_use() {
    let (_, j, p) = files(&spec(100, 3000, 8), Syntax::Old);
    let used = check_priorities(&j, &p);
    assert!(used.len() > 10, "{used:?}");
    assert!(
        used.iter().any(|s| s.starts_with("group_")),
        "group submitters"
    );
    assert!(
        used.iter().any(|s| s.ends_with("@cluster.example.edu")),
        "plain users"
    );
    // Few jobs use few signatures, and only those submitters are listed.
    let (_, j, p) = files(&spec(100, 5, 8), Syntax::Old);
    assert!(check_priorities(&j, &p).len() <= 5);
}

#[test]
fn submitters_k_gives_k_submitters() {
    for (k, jobs) in [
        (1, 2000),
        (3, 2000),
        (50, 5000),
        (250, 5000),
        (300, 300),
        (300, 100),
    ] {
        let s = PoolSpec {
            submitters: Some(k),
            ..spec(100, jobs, 9)
        };
        let (_, j, p) = files(&s, Syntax::New);
        let used = check_priorities(&j, &p);
        assert_eq!(used.len(), k.min(jobs), "--submitters {k} --jobs {jobs}");
        assert_eq!(Pool::new(&s).submitters().len(), k.min(jobs));
    }
    // With fewer signatures than submitters, only theirs.
    let s = PoolSpec {
        submitters: Some(50),
        signatures: Some(10),
        ..spec(100, 5000, 9)
    };
    let (_, j, p) = files(&s, Syntax::New);
    assert_eq!(check_priorities(&j, &p).len(), 10);
}

#[test]
fn jobs_follow_the_model() {
    let s = spec(500, 20_000, 6);
    let pool = Pool::new(&s);
    assert_eq!(pool.signatures(), default_signatures(20_000));
    let (_, j, _) = files(&s, Syntax::Old);
    let jobs = read_ads(&j, "jobs").unwrap();
    let mut clusters = std::collections::BTreeMap::<i64, usize>::new();
    let mut requirements = BTreeSet::new();
    let mut last = (0, -1);
    for job in &jobs {
        let (Value::Int(c), Value::Int(p)) = (value(job, "ClusterId"), value(job, "ProcId")) else {
            panic!("ids");
        };
        assert!(
            c > last.0 || (c == last.0 && p == last.1 + 1),
            "ids in order"
        );
        last = (c, p);
        *clusters.entry(c).or_default() += 1;
        let text = crate::ad::unparse_ad(job);
        let req = text
            .split("Requirements = ")
            .nth(1)
            .unwrap()
            .split(';')
            .next()
            .unwrap();
        requirements.insert(req.to_string());
        if let Some(g) = string(job, "AcctGroup") {
            let owner = string(job, "Owner").unwrap();
            assert_eq!(string(job, "AccountingGroup"), Some(format!("{g}.{owner}")));
        }
        assert_eq!(
            string(job, "User"),
            Some(format!(
                "{}@cluster.example.edu",
                string(job, "Owner").unwrap()
            ))
        );
    }
    // Heavy-tailed cluster sizes: many single procs, a few big clusters.
    let sizes: Vec<usize> = clusters.values().copied().collect();
    let singles = sizes.iter().filter(|&&n| n == 1).count();
    assert!(singles * 4 > sizes.len(), "{singles} of {}", sizes.len());
    assert!(sizes.iter().any(|&n| n >= 100), "a big cluster");
    assert!(sizes.iter().all(|&n| n <= 20_000 / 40));
    // A limited set of signatures: far fewer Requirements than clusters.
    assert!(requirements.len() > 20 && requirements.len() <= pool.signatures());
    for r in [
        "regexp(",
        "stringListMember(",
        "member(",
        "versionGE(",
        "RequestGPUs",
    ] {
        assert!(requirements.iter().any(|q| q.contains(r)), "{r}");
    }
}

#[test]
fn default_signature_counts() {
    assert_eq!(default_signatures(0), 8);
    assert_eq!(default_signatures(2000), 84);
    assert_eq!(default_signatures(1_000_000), 400);
}
