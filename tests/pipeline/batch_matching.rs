//! The batch matcher (`classad::matching::batch`) and autoclusters
//! (`classad::matching::autocluster`): HTCondor's clustering rules on hand-made
//! pools, and the batch matcher against brute force on the reference evaluator,
//! with and without autoclusters, on several thread counts.

#[allow(dead_code, unused_imports)]
use crate::gen;
use crate::support;

use classad::ad::{read_ads, ClassAd};
use classad::matching::{Autoclusters, NegotiatorPolicy, SignificantAttributes};
use std::sync::Arc;

fn ads(text: &str) -> Vec<Arc<ClassAd>> {
    read_ads(text, "t")
        .expect("test ads read")
        .into_iter()
        .map(Arc::new)
        .collect()
}

fn names(sig: &SignificantAttributes) -> Vec<&str> {
    sig.names().iter().map(|n| n.as_str()).collect()
}

fn cluster_ids(a: &Autoclusters, jobs: usize) -> Vec<u32> {
    (0..jobs).map(|j| a.cluster_of(j)).collect()
}

fn class_ids(a: &Autoclusters, jobs: usize) -> Vec<u32> {
    (0..jobs).map(|j| a.class_of(j)).collect()
}

/// Slots that define what the default NEGOTIATOR_PRE_JOB_RANK reads, so that the
/// lists below show only the rule under test.
const SLOT: &str = "Cpus = 4\nMemory = 8192\nRank = 0\n";

#[test]
fn a_target_name_read_by_one_slot_is_significant() {
    let slots = ads(&format!(
        "{SLOT}Requirements = TARGET.RequestCpus <= Cpus\n\n\
         {SLOT}Requirements = TARGET.Foo == 1\n"
    ));
    let jobs = ads("Foo = 1\nRequestCpus = 1\nRequirements = true\n\n\
                    Foo = 2\nRequestCpus = 1\nRequirements = true\n\n\
                    Foo = 1\nRequestCpus = 1\nRequirements = true\n\n\
                    Foo = 1\nRequestCpus = 1\nRequirements = true\nOther = 3\n");
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    assert_eq!(
        names(a.significant()),
        [
            "Foo",
            "RequestCpus",
            "ConcurrencyLimits",
            "FlockTo",
            "Rank",
            "Requirements"
        ]
    );
    assert_eq!(
        cluster_ids(&a, jobs.len()),
        [0, 1, 0, 0],
        "Other is not significant"
    );
    assert_eq!(a.jobs(0), [0, 2, 3]);
    assert_eq!(
        a.significant().signature(&jobs[1]),
        "Foo = 2\nRequestCpus = 1\nConcurrencyLimits = \nFlockTo = \nRank = \nRequirements = true\n"
    );
}

#[test]
fn an_unscoped_name_the_slots_lack_is_significant() {
    let slots = ads(&format!("{SLOT}Requirements = Bar > 3 && Cpus > 1\n"));
    let jobs = ads(
        "Bar = 5\nRequirements = true\n\nBar = 2\nRequirements = true\n\nRequirements = true\n",
    );
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    assert_eq!(names(a.significant())[0], "Bar");
    assert!(
        !names(a.significant()).contains(&"Cpus"),
        "the slot has Cpus"
    );
    assert_eq!(cluster_ids(&a, 3), [0, 1, 2]);
}

#[test]
fn names_reached_through_the_jobs_own_requirements_join_its_signature() {
    let slots = ads(&format!("{SLOT}Requirements = true\n"));
    // MyCpus and Extra are read only by the jobs' own Requirements (through
    // MyCpus): they are in the signature, after the significant names, in
    // strcasecmp order; a name a job lacks is listed empty.
    let jobs = ads("Requirements = TARGET.Cpus >= MyCpus\nMyCpus = 2\n\n\
                    Requirements = TARGET.Cpus >= MyCpus\nMyCpus = 4\n\n\
                    Requirements = TARGET.Cpus >= MyCpus\nMyCpus = Extra * 2\nExtra = 1\n\n\
                    Requirements = TARGET.Cpus >= MyCpus\nMyCpus = Extra * 2\nExtra = 2\n\n\
                    Requirements = TARGET.Cpus >= MyCpus\nMyCpus = 2\nUnread = 7\n");
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    assert_eq!(cluster_ids(&a, 5), [0, 1, 2, 3, 0]);
    assert_eq!(
        a.significant().signature(&jobs[2]),
        "ConcurrencyLimits = \nFlockTo = \nRank = \nRequirements = TARGET.Cpus >= MyCpus\n\
         Extra = 1\nMyCpus = Extra * 2\n"
    );
    // A name the job lacks but reads, unscoped, is listed empty.
    let lacking = ads("Requirements = Missing =?= undefined\n").remove(0);
    let text = a.significant().signature(&lacking);
    assert!(
        text.ends_with("Requirements = Missing =?= undefined\nMissing = \n"),
        "{text}"
    );
}

#[test]
fn removed_names_are_not_significant_but_still_split_match_classes() {
    // KFlops, CpusUsage (REMOVE_SIGNIFICANT_ATTRIBUTES) and Slot1_Foo (its
    // pattern) are dropped by HTCondor's rules: jobs that differ only there are one
    // autocluster. The slot reads them from the job, so they do not match alike:
    // the match classes tell them apart.
    let slots = ads(&format!(
        "{SLOT}Requirements = TARGET.KFlops > 5 || TARGET.CpusUsage > 1 || TARGET.Slot1_Foo =?= 1\n"
    ));
    let jobs = ads(
        "KFlops = 10\nRequirements = true\n\nKFlops = 1\nRequirements = true\n\n\
                    CpusUsage = 2\nRequirements = true\n\nSlot1_Foo = 1\nRequirements = true\n\n\
                    KFlops = 10\nRequirements = true\n",
    );
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    let sig = names(a.significant());
    for removed in ["KFlops", "CpusUsage", "Slot1_Foo"] {
        assert!(!sig.contains(&removed), "{removed} in {sig:?}");
    }
    assert_eq!(cluster_ids(&a, 5), [0, 0, 0, 0, 0]);
    assert_eq!(class_ids(&a, 5), [0, 1, 2, 3, 0]);
    gen::properties::batch_against_pairs_of(&jobs, &slots).unwrap();
}

#[test]
fn match_classes_are_exact_where_signatures_are_not() {
    // Reals that print alike but differ, a list-valued slot attribute HTCondor
    // skips, a computed attribute name, and the clock.
    // The jobs read the slot's list, whose element reads the job's Level: HTCondor
    // skips list-valued slot attributes, so Level is in no signature.
    let slots = ads(&format!(
        "{SLOT}Checks = {{ TARGET.Level > 2 }}\nRequirements = TARGET.Weight > 0.1\n"
    ));
    let checks = "Requirements = TARGET.Checks[0] =!= false";
    let jobs = ads(&format!(
        "Weight = 0.10000000000000001\nLevel = 3\n{checks}\n\n\
                    Weight = 0.10000000000000002\nLevel = 3\n{checks}\n\n\
                    Weight = 0.2\nLevel = 1\n{checks}\n\n\
                    Weight = 0.2\nLevel = 3\n{checks}\n\n\
                    Weight = 0.2\nLevel = 3\nRequirements = eval(\"TARGET.Cpus\") > 1\n\n\
                    Weight = 0.2\nLevel = 3\nRequirements = eval(\"TARGET.Cpus\") > 1\n\n\
                    Weight = 0.2\nLevel = 3\nRequirements = time() > 0\n\n\
                    Weight = 0.2\nLevel = 3\nRequirements = time() > 0\n"
    ));
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    assert!(
        !names(a.significant()).contains(&"Level"),
        "a list-valued attribute"
    );
    assert!(a
        .significant()
        .extra()
        .iter()
        .any(|n| n.as_str() == "Level"));
    let clusters = cluster_ids(&a, 8);
    assert_eq!(clusters[0], clusters[1], "HTCondor's text rounds the reals");
    assert_eq!(clusters[2], clusters[3], "Level is not significant");
    assert_eq!(clusters[4], clusters[5]);
    let classes = class_ids(&a, 8);
    let distinct: std::collections::BTreeSet<u32> = classes.iter().copied().collect();
    assert_eq!(distinct.len(), 8, "every job its own class: {classes:?}");
    gen::properties::batch_against_pairs_of(&jobs, &slots).unwrap();
}

#[test]
fn a_slot_reading_what_only_some_jobs_of_a_signature_have() {
    // Two slots, one reading `Gpus` unscoped (it lacks it), one not; jobs of one
    // submit differ in whether they set it.
    let slots = ads(&format!(
        "{SLOT}Requirements = Gpus =?= undefined\n\n{SLOT}Requirements = TARGET.RequestCpus > 0\n"
    ));
    let mut text = String::new();
    for i in 0..150 {
        let gpus = if i % 3 == 0 { "Gpus = 1\n" } else { "" };
        text.push_str(&format!(
            "RequestCpus = 1\nProcId = {i}\n{gpus}Requirements = true\n\n"
        ));
    }
    let jobs = ads(&text);
    let a = Autoclusters::new(&jobs, &slots, &NegotiatorPolicy::default());
    assert_eq!(a.len(), 2);
    assert_eq!(a.cluster_of(0), 0);
    assert_eq!(a.cluster_of(1), 1);
    gen::properties::batch_against_pairs_of(&jobs, &slots).unwrap();
}

/// Ads of the conformance pools, repeated so that they make several blocks of
/// slots and classes of many jobs.
fn conformance_pool(
    n: usize,
    job_copies: usize,
    slot_copies: usize,
) -> (Vec<Arc<ClassAd>>, Vec<Arc<ClassAd>>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/pools");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).expect("pool file");
    let jobs = read(&format!("pool{n}.jobs.ads"));
    let machines = read(&format!("pool{n}.machines.ads"));
    let jobs = ads(&vec![jobs.trim_end(); job_copies].join("\n\n"));
    let machines = ads(&vec![machines.trim_end(); slot_copies].join("\n\n"));
    (jobs, machines)
}

#[test]
fn conformance_pools_match_as_brute_force() {
    for n in 1..=3 {
        let (jobs, machines) = conformance_pool(n, 3, 4);
        assert!(machines.len() > 128, "three blocks of slots at least");
        gen::properties::batch_against_pairs_of(&jobs, &machines)
            .unwrap_or_else(|e| panic!("pool{n}: {e}"));
    }
}

#[test]
fn generated_pools_match_as_brute_force() {
    // The fuzz target's pools: generated ads that refer to each other, nest and
    // miss, repeated into classes and several blocks.
    for seed in 0..24u64 {
        let case = |k: usize| gen::pair_case(0x5eed ^ seed, (seed as usize) * 4 + k);
        let distinct: Vec<gen::PairCase> = (0..4).map(case).collect();
        let jobs: Vec<String> = (0..16)
            .map(|i| distinct[(i * 7 + seed as usize) % 4].job.clone())
            .collect();
        let machines: Vec<String> = (0..70 + seed as usize * 3)
            .map(|i| distinct[i % 4].machine.clone())
            .collect();
        gen::properties::batch_against_pairs(&jobs, &machines)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

#[test]
fn classad_match_prints_the_same_on_any_number_of_threads() {
    let dir = std::env::temp_dir().join(format!("classad-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pools = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/pools");
    let read = |f: &str| std::fs::read_to_string(format!("{pools}/{f}")).unwrap();
    let jobs = dir.join("jobs.ads");
    let machines = dir.join("machines.ads");
    std::fs::write(&jobs, [read("pool1.jobs.ads").trim_end(); 40].join("\n\n")).unwrap();
    std::fs::write(
        &machines,
        [read("pool1.machines.ads").trim_end(); 9].join("\n\n"),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_classad"))
            .arg("match")
            .arg("--jobs")
            .arg(&jobs)
            .arg("--machines")
            .arg(&machines)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (o.stdout, String::from_utf8(o.stderr).unwrap())
    };
    for mode in [&["--all-pairs"][..], &[][..]] {
        let (one, summary) = run(&[mode, &["--threads", "1"]].concat());
        assert!(!one.is_empty());
        assert!(
            summary.starts_with("classad match: 1200 jobs, 360 slots, 5 autoclusters"),
            "{summary}"
        );
        for threads in ["2", "7"] {
            assert_eq!(
                run(&[mode, &["--threads", threads]].concat()).0,
                one,
                "{threads}"
            );
        }
        let (unclustered, _) = run(&[mode, &["--no-autocluster"]].concat());
        assert_eq!(unclustered, one, "--no-autocluster");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The ranks are computed once per slot and group of classes that give them the
/// same values: groups that hold (the slots' Rank reading a job attribute of few
/// values, the jobs' Rank of few texts) and chains that read back and forth
/// between the ads, where a group would be wrong.
#[test]
fn ranks_in_groups_are_the_pairs_ranks() {
    let mut slots = String::new();
    for i in 0..70 {
        let rank = match i % 5 {
            0 => "Rank = 0.0".to_string(),
            1 => "Rank = ifThenElse(TARGET.Group =?= \"a\", 10, 0)".to_string(),
            2 => "Rank = TARGET.Foo".to_string(),
            3 => "Rank = TARGET.Prio * 2".to_string(),
            _ => "Rank = -TARGET.Prio".to_string(),
        };
        slots.push_str(&format!(
            "Cpus = {}\nMemory = {}\nMips = {}\nBar = TARGET.Baz\nQux = TARGET.W\nZ = TARGET.V\n\
             SlotID = {i}\n{rank}\nRequirements = TARGET.Size <= Cpus\n\n",
            1 + i % 4,
            1024 * (1 + i % 3),
            100 + i
        ));
    }
    let mut jobs = String::new();
    for j in 0..160 {
        let rank = match j % 16 {
            0..=5 => "Rank = TARGET.Mips",
            6..=10 => "Rank = TARGET.Memory + Size",
            11 | 12 => "Rank = TARGET.Qux",
            _ => "Rank = 0",
        };
        let foo = if j % 9 == 0 {
            "Foo = TARGET.Bar"
        } else {
            "Foo = 3"
        };
        jobs.push_str(&format!(
            "Size = {}\nGroup = \"{}\"\nPrio = {}\n{foo}\nBaz = {}\nW = TARGET.Z\nV = {}\n{rank}\n\
             Requirements = TARGET.Cpus >= Size\n\n",
            1 + j % 2,
            ["a", "b"][j / 2 % 2],
            j / 3 % 3,
            j % 5,
            j / 5 % 7
        ));
    }
    gen::properties::batch_against_pairs_of(&ads(&jobs), &ads(&slots)).unwrap();
}

/// Candidates are gathered in the order the first class ranks the slots in, then
/// sorted: a later class that ranks them the other way round, or in ties, or
/// partly alike, still gets the pairs' order (as the reference evaluator ranks
/// each pair).
#[test]
fn classes_that_rank_slots_otherwise_than_the_first_get_their_own_order() {
    // One Cpus and Memory: the default PRE and POST tie, and the jobs' Rank
    // decides.
    let mut slots = String::new();
    for i in 0..150 {
        slots.push_str(&format!(
            "Cpus = 4\nMemory = 8192\nDisk = {}\nMips = {}\nRank = 0\nRequirements = true\n\n",
            1000 + (i * 37) % 150,
            i % 7
        ));
    }
    let mut jobs = String::new();
    for rank in [
        "TARGET.Disk",
        "-TARGET.Disk",
        "TARGET.Mips",
        "TARGET.Mips * 1000 - TARGET.Disk",
        "0",
        "TARGET.Disk",
    ] {
        jobs.push_str(&format!(
            "Rank = {rank}\nRequirements = TARGET.Disk > 1010\n\n"
        ));
    }
    gen::properties::batch_against_pairs_of(&ads(&jobs), &ads(&slots)).unwrap();
}

/// PRE and POST read different job attributes, or none: each is evaluated once
/// per slot and group of classes that give the names it reads (alone) the same
/// values, and the keys are still the pairs' keys.
#[test]
fn pre_and_post_grouped_apart_are_the_pairs_ranks() {
    use classad::syntax::{ast::ExprRef, parse_expr};
    let expr = |t: &str| Some(ExprRef::root_of(Arc::new(parse_expr(t).unwrap())));
    let mut slots = String::new();
    for i in 0..70 {
        slots.push_str(&format!(
            "SlotID = {i}\nCpus = {}\nRank = ifThenElse(TARGET.Group =?= \"a\", {i}, 0)\n\
             Requirements = TARGET.Size <= Cpus\n\n",
            1 + i % 4
        ));
    }
    let mut jobs = String::new();
    for j in 0..120 {
        jobs.push_str(&format!(
            "Size = {}\nGroup = \"{}\"\nPrio = {}\nRequirements = TARGET.Cpus >= Size\n\n",
            1 + j % 2,
            ["a", "b"][j / 2 % 2],
            j / 3 % 5
        ));
    }
    let (jobs, slots) = (ads(&jobs), ads(&slots));
    for (pre, post) in [
        (
            "TARGET.Prio * 10 - MY.Cpus",
            "ifThenElse(TARGET.Group =?= \"a\", MY.SlotID, 0)",
        ),
        ("MY.Rank + TARGET.Prio", "-MY.SlotID"),
        ("MY.Cpus", "TARGET.Prio - MY.SlotID"),
    ] {
        let policy = NegotiatorPolicy {
            pre_job_rank: expr(pre),
            post_job_rank: expr(post),
            ..NegotiatorPolicy::default()
        };
        gen::properties::batch_against_pairs_with(&jobs, &slots, &policy)
            .unwrap_or_else(|e| panic!("PRE {pre}, POST {post}: {e}"));
    }
}

/// A job without a Rank among classes grouped by theirs: the slot's Rank,
/// evaluated in the slot against the job, stands for it (it was read as 0 once).
#[test]
fn a_job_without_rank_among_rank_groups_takes_the_slots() {
    let mut jobs = String::new();
    for size in 1..=8 {
        jobs.push_str(&format!(
            "Size = {size}\nJobPrio = 0\nRank = -TARGET.SlotID\nRequirements = true\n\n"
        ));
    }
    jobs.push_str("Size = 1\nJobPrio = 5\nRequirements = true\n\n");
    let slots =
        "SlotID = 1\nRank = TARGET.JobPrio\nCpus = 8\nRequirements = TARGET.Size <= Cpus\n\n\
                 SlotID = 2\nRank = 0\nCpus = 8\nRequirements = TARGET.Size <= Cpus\n";
    gen::properties::batch_against_pairs_of(&ads(&jobs), &ads(slots)).unwrap();
}

/// `classad match --config`: the negotiator's rank expressions and significant
/// attributes from a file in HTCondor's syntax, on both engines; unknown knobs
/// warned about, a bad expression an error at its file, line and knob.
#[test]
fn classad_match_reads_the_negotiators_configuration() {
    let dir = support::Scratch::new("config");
    let write = |name: &str, text: &str| dir.write(name, text);
    let run = |args: &[&str]| {
        let r = support::classad("match", args);
        (r.code, r.out, r.err)
    };
    // Only the job's Rank orders the candidates: today's rule of earlier sessions.
    let job_rank_only = write(
        "ranks.config",
        "# ranks\nNEGOTIATOR_PRE_JOB_RANK = 0\nZERO = 0\nNEGOTIATOR_POST_JOB_RANK = $(ZERO)\n\
         SIGNIFICANT_ATTRIBUTES = Requirements, Rank\nNO_SUCH_KNOB = 1\n",
    );
    let (code, out, err) = run(&["--config", &job_rank_only]);
    assert_eq!(code, Some(0), "{err}");
    // The cycle's own report shows the ranks the configuration set.
    let negotiate = |config: Option<&str>| -> serde_json::Value {
        let mut args = vec!["--format", "json", "-q"];
        if let Some(c) = config {
            args.extend(["--config", c]);
        }
        serde_json::from_str(&support::classad("negotiate", &args).out).unwrap()
    };
    let pre_values = |v: &serde_json::Value| -> Vec<f64> {
        v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["pre_job_rank"].as_f64().unwrap())
            .collect()
    };
    let (default_pre, configured_pre) = (
        pre_values(&negotiate(None)),
        pre_values(&negotiate(Some(&job_rank_only))),
    );
    assert!(default_pre.iter().any(|p| *p != 0.0), "{default_pre:?}");
    assert!(
        !configured_pre.is_empty() && configured_pre.iter().all(|p| *p == 0.0),
        "{configured_pre:?}"
    );
    assert!(
        err.contains("ranks.config:6: NO_SUCH_KNOB: not a knob the emulator reads; ignored"),
        "{err}"
    );
    let (_, reference, _) = run(&["--config", &job_rank_only, "--engine", "reference", "-q"]);
    assert_eq!(out, reference, "both engines read the configuration");
    // Job by job, the job's Rank alone, earliest slot on a tie.
    let (_, unclustered, _) = run(&["--config", &job_rank_only, "--no-autocluster", "-q"]);
    assert_eq!(out, unclustered);
    for threads in ["0", "100000"] {
        let (code, _, err) = run(&["--threads", threads]);
        assert_eq!(code, Some(2), "--threads {threads}");
        assert!(err.contains("--threads"), "{err}");
    }
    let bad = write("bad.config", "A = 1\nNEGOTIATOR_PRE_JOB_RANK = 1 +\n");
    let (code, out, err) = run(&["--config", &bad]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert!(
        err.contains("bad.config:2: NEGOTIATOR_PRE_JOB_RANK: not an expression"),
        "{err}"
    );
}
