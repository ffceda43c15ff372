//! How much of a pool's matching the VM does itself, and how much still reaches
//! the reference evaluator:
//!
//!     fallbacks JOBS MACHINES
//!     fallbacks --shapes [FAMILY ...] [--jobs N] [--machines N] [--seed S]
//!
//! The first form reads two ad files; the second generates the pools of the shape
//! families (`classad::generate::shapes`; every family when none is named, 2,000
//! jobs and 2,000 slots, seed 1, by default). For each pool it prints:
//!
//! - `pairs`, `matching`: all pairs and those that match (`CompiledPool::all_pairs`);
//! - `job to ref`, `slot to ref`: evaluations of each side's Requirements, pair by
//!   pair over all pairs, that stop for the reference evaluator
//!   (`Halt::NeedReference`: a `Reference` instruction, a builtin the host cannot
//!   run natively, a limit the machine does not model);
//! - `masks`, `lanes`, `by pair`: the verdicts `all_pairs` asks for (each side's
//!   Requirements of each pair of blocks, the job's only where the slot's did not
//!   already say no) and the tier that gave them: the bit-mask tier over columns,
//!   the value lanes, or neither (the pair is matched alone);
//! - `pairs on ref`: of the pairs matched alone, those whose symmetric match
//!   reaches the reference evaluator.
//!
//! The walk over blocks follows `CompiledPool::match_blocks`, so the tiers' counts
//! are those of a real `all_pairs`.

use classad::ad::read_ads;
use classad::compile::host::VmHost;
use classad::generate::shapes::{Family, ShapeSpec};
use classad::matching::CompiledPool;
use classad_vm::lanes::LANES;
use classad_vm::{ColumnStore, CompiledAd, Halt, Machine, Sides, Value};
use std::sync::Arc;

/// The depth of a Requirements below HTCondor's `RIGHT.requirements &&
/// LEFT.requirements` (the matcher's `REQUIREMENTS_SITE`).
const SITE: u32 = 2;

/// What one pool's matching did.
#[derive(Default)]
struct Counts {
    pairs: usize,
    matching: usize,
    job_to_reference: usize,
    slot_to_reference: usize,
    asked: u64,
    by_masks: u64,
    by_lanes: u64,
    by_pair: u64,
    pairs_on_reference: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--shapes") {
        shapes(&args[1..]);
        return;
    }
    let [jobs, machines] = &args[..] else {
        panic!("usage: fallbacks JOBS MACHINES | fallbacks --shapes [FAMILY ...] [--jobs N] [--machines N] [--seed S]");
    };
    let load = |p: &str| -> Vec<_> {
        let text = std::fs::read_to_string(p).expect("read");
        read_ads(&text, p)
            .expect("parse")
            .into_iter()
            .map(Arc::new)
            .collect()
    };
    header();
    row(
        jobs,
        &count(&CompiledPool::new(&load(jobs), &load(machines))),
    );
}

/// The `--shapes` form.
fn shapes(args: &[String]) {
    let (mut jobs, mut machines, mut seed) = (2000, 2000, 1);
    let mut families = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |flag: &str| -> u64 {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{flag} takes a number"))
        };
        match a.as_str() {
            "--jobs" => jobs = number("--jobs") as usize,
            "--machines" => machines = number("--machines") as usize,
            "--seed" => seed = number("--seed"),
            name => families.push(name.parse::<Family>().unwrap_or_else(|e| panic!("{e}"))),
        }
    }
    if families.is_empty() {
        families = Family::ALL.to_vec();
    }
    println!("{jobs} jobs x {machines} slots, seed {seed}");
    header();
    for family in families {
        let pool = ShapeSpec {
            family,
            jobs,
            machines,
            seed,
        }
        .generate();
        let compiled = CompiledPool::new(&pool.job_ads(), &pool.machine_ads());
        row(family.name(), &count(&compiled));
    }
}

fn header() {
    println!(
        "{:<18} {:>10} {:>16} {:>10} {:>11} {:>7} {:>7} {:>7} {:>12}",
        "pool",
        "pairs",
        "matching",
        "job to ref",
        "slot to ref",
        "masks",
        "lanes",
        "by pair",
        "pairs on ref"
    );
}

fn row(name: &str, c: &Counts) {
    let share = |n: u64| {
        if c.asked == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * n as f64 / c.asked as f64)
        }
    };
    println!(
        "{name:<18} {:>10} {:>9} {:>5.1}% {:>10} {:>11} {:>7} {:>7} {:>7} {:>12}",
        c.pairs,
        c.matching,
        100.0 * c.matching as f64 / c.pairs.max(1) as f64,
        c.job_to_reference,
        c.slot_to_reference,
        share(c.by_masks),
        share(c.by_lanes),
        share(c.by_pair),
        c.pairs_on_reference
    );
}

fn count(pool: &CompiledPool) -> Counts {
    let mut vm = Machine::new();
    let mut c = Counts {
        pairs: pool.jobs.len() * pool.machines.len(),
        matching: pool.all_pairs(&mut vm).len(),
        ..Counts::default()
    };
    let req = pool.slots.get("Requirements").expect("slot");
    for j in &pool.jobs {
        for m in &pool.machines {
            let sides = Sides::new(&j.vm, Some(&m.vm));
            let to_ref = |r: Result<Value, Halt>| matches!(r, Err(Halt::NeedReference));
            c.slot_to_reference +=
                usize::from(to_ref(vm.eval_attr(1, req, SITE, sides, &mut VmHost)));
            c.job_to_reference +=
                usize::from(to_ref(vm.eval_attr(0, req, SITE, sides, &mut VmHost)));
        }
    }
    tiers(pool, req, &mut vm, &mut c);
    c
}

/// The tiers' counts over a walk of the blocks as `all_pairs` makes it.
fn tiers(pool: &CompiledPool, req: u32, vm: &mut Machine, c: &mut Counts) {
    let jobs: Vec<&CompiledAd> = pool.jobs.iter().map(|j| &j.vm).collect();
    let machines: Vec<&CompiledAd> = pool.machines.iter().map(|m| &m.vm).collect();
    let host = &mut VmHost;
    let mut machine_store = ColumnStore::new();
    let mut job_store = machine_store.sibling();
    for (mb, machine_block) in machines.chunks(LANES).enumerate() {
        let mut machine_cols = machine_store.block(machine_block);
        for (jb, job_block) in jobs.chunks(LANES).enumerate() {
            let mut job_cols = job_store.block(job_block);
            // The slots' verdicts on the block's jobs, by job.
            let mut slot_no = [0u64; LANES];
            let mut slot_yes = [0u64; LANES];
            let mut slot_unknown = [0u64; LANES];
            for (mi, ad) in machine_block.iter().enumerate() {
                let all = lanes(job_block.len());
                tier_counts(vm, ad, req, &mut job_cols, all, c);
                let v = vm.verdicts(ad, req, SITE, &mut job_cols, all, host);
                for ji in 0..job_block.len() {
                    let bit = 1u64 << ji;
                    let put = |set: u64, to: &mut [u64; LANES]| {
                        if set & bit != 0 {
                            to[ji] |= 1 << mi;
                        }
                    };
                    put(v.no, &mut slot_no);
                    put(v.yes, &mut slot_yes);
                    put(v.unknown, &mut slot_unknown);
                }
            }
            for (ji, ad) in job_block.iter().enumerate() {
                let wanted = !slot_no[ji] & lanes(machine_block.len());
                tier_counts(vm, ad, req, &mut machine_cols, wanted, c);
                let l = vm.verdicts(ad, req, SITE, &mut machine_cols, wanted, host);
                let unsure = (slot_unknown[ji] & (l.yes | l.unknown)) | (l.unknown & slot_yes[ji]);
                for mi in 0..machine_block.len() {
                    if unsure & (1 << mi) != 0 {
                        let (j, m) = (jb * LANES + ji, mb * LANES + mi);
                        c.pairs_on_reference +=
                            u64::from(match_reaches_reference(pool, vm, req, j, m));
                    }
                }
            }
        }
    }
}

/// The lanes of a block of `n` ads.
fn lanes(n: usize) -> u64 {
    if n == LANES {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// Counts the lanes of `wanted` the mask tier decides, those the value lanes
/// decide, and those left to be evaluated pair by pair.
fn tier_counts(
    vm: &mut Machine,
    my: &CompiledAd,
    req: u32,
    block: &mut classad_vm::TargetBlock<'_>,
    wanted: u64,
    c: &mut Counts,
) {
    let (_, unsure) = vm.mask_verdicts(my, req, SITE, block, wanted, &mut VmHost);
    let mut out = Vec::new();
    vm.eval_attr_lanes(
        my,
        req,
        SITE,
        block.targets(),
        unsure,
        &mut VmHost,
        &mut out,
    );
    let by_pair = out
        .iter()
        .enumerate()
        .filter(|(l, v)| unsure & (1 << l) != 0 && v.is_none())
        .count() as u64;
    c.asked += u64::from(wanted.count_ones());
    c.by_masks += u64::from((wanted & !unsure).count_ones());
    c.by_pair += by_pair;
    c.by_lanes += u64::from(unsure.count_ones()) - by_pair;
}

/// Whether the symmetric match of job `j` and machine `m`, as
/// `CompiledPool::symmetric_match` runs it, hands the pair to the reference
/// evaluator: the machine's Requirements first, the job's only if the machine's
/// did not rule the match out.
fn match_reaches_reference(
    pool: &CompiledPool,
    vm: &mut Machine,
    req: u32,
    j: usize,
    m: usize,
) -> bool {
    let sides = Sides::new(&pool.jobs[j].vm, Some(&pool.machines[m].vm));
    match vm.eval_attr(1, req, SITE, sides, &mut VmHost) {
        Err(Halt::NeedReference) => true,
        Err(Halt::Fail) => false,
        Ok(right) if right.is_error() || right.as_bool_equiv() == Some(false) => false,
        Ok(_) => matches!(
            vm.eval_attr_more(0, req, SITE, sides, &mut VmHost),
            Err(Halt::NeedReference)
        ),
    }
}
