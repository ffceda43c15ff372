//! The properties the structured fuzz targets check, shared with the tests that
//! replay their findings (`tests/agreement/fuzz_regressions.rs`), so the two cannot drift.

use super::Sides;
use classad::ad::parse_classad;
use classad::ad::ClassAd;
use classad::engine::{eval_alone_with, eval_in_with, Engine};
use classad::eval::{Fail, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad::values::display::unparse_value;
use classad::Value;
use classad_vm::Machine;
use std::sync::Arc;

/// A structured fuzz input as `arbitrary` builds it from raw bytes: integers read
/// little-endian, missing bytes taken as zero. `cargo fuzz` artifacts of the
/// structured targets decode with it.
pub struct FuzzBytes<'a>(pub &'a [u8]);

impl FuzzBytes<'_> {
    /// The next `n` bytes as a little-endian integer.
    pub fn int(&mut self, n: usize) -> u64 {
        let take = n.min(self.0.len());
        let mut v = 0u64;
        for (i, b) in self.0[..take].iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        self.0 = &self.0[take..];
        v
    }
}

fn outcome(r: Result<Value, Fail>) -> String {
    match r {
        Ok(v) => unparse_value(&v),
        Err(Fail) => "<evaluation failed>".into(),
    }
}

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(parse_classad(text).expect("generated ads parse"))
}

/// `vm_vs_reference`: expression case `index` alone, and pair case `index` (its
/// expressions in the match, the symmetric match, both ranks), give the same on the
/// VM as on the reference evaluator. `Err` describes the first difference, with the
/// case as commands to paste.
pub fn vm_against_reference(master: u64, index: usize) -> Result<(), String> {
    let sem = Semantics::Htcondor;
    let case = super::expr_case(master, index);
    let e = parse_expr(&case.text).expect("generated expressions parse");
    let (r, v) = (
        outcome(eval_alone_with(Engine::Reference, &e, sem)),
        outcome(eval_alone_with(Engine::Vm, &e, sem)),
    );
    if r != v {
        return Err(format!("\n{case}\n  reference: {r}\n  vm: {v}"));
    }
    let pair = super::pair_case(master, index);
    let (job, machine) = (ad(&pair.job), ad(&pair.machine));
    for x in &pair.exprs {
        let e = ExprRef::root_of(Arc::new(parse_expr(&x.text).expect("parses")));
        let (my, target) = match x.sides {
            Sides::JobMachine => (&job, Some(&machine)),
            Sides::MachineJob => (&machine, Some(&job)),
            Sides::JobAlone => (&job, None),
        };
        let r = outcome(eval_in_with(Engine::Reference, &e, my, target, sem));
        let v = outcome(eval_in_with(Engine::Vm, &e, my, target, sem));
        if r != v {
            return Err(format!(
                "\n{pair}\n{}\n  reference: {r}\n  vm: {v}",
                x.command()
            ));
        }
    }
    let pool = CompiledPool::new(std::slice::from_ref(&job), std::slice::from_ref(&machine));
    let mut vm = Machine::new();
    let (r, v) = (
        symmetric_match(&job, &machine, sem),
        pool.symmetric_match(&mut vm, 0, 0),
    );
    if r != v {
        return Err(format!("symmetric match: reference {r}, vm {v}\n{pair}"));
    }
    if pool.all_pairs(&mut vm).is_empty() == r {
        return Err(format!("all_pairs disagrees with the match ({r})\n{pair}"));
    }
    for job_side in [true, false] {
        let (a, b) = if job_side {
            (&job, &machine)
        } else {
            (&machine, &job)
        };
        let (x, y) = (rank(a, b, sem), pool.rank(&mut vm, 0, 0, job_side));
        if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
            return Err(format!(
                "rank (job side {job_side}): reference {x}, vm {y}\n{pair}"
            ));
        }
    }
    Ok(())
}

/// The ad texts of a `pool_vs_pairs` pool: 1 to 4 jobs and 1 to 4 machines from
/// consecutive pair cases starting at `first`.
pub fn pool_texts(master: u64, first: u8, jobs: u8, machines: u8) -> (Vec<String>, Vec<String>) {
    let case = |k: usize| super::pair_case(master, usize::from(first) + k);
    let jobs = (0..1 + usize::from(jobs % 4))
        .map(|k| case(k).job)
        .collect();
    let machines = (0..1 + usize::from(machines % 4))
        .map(|k| case(k).machine)
        .collect();
    (jobs, machines)
}

/// `pool_vs_pairs`: the compiled pool's `all_pairs` (cold and warm) equals brute
/// force pair by pair on the reference evaluator, and every rank agrees.
pub fn pool_against_pairs(jobs: &[String], machines: &[String]) -> Result<(), String> {
    let ads = |texts: &[String]| -> Vec<Arc<ClassAd>> { texts.iter().map(|t| ad(t)).collect() };
    let (jobs, machines) = (ads(jobs), ads(machines));
    let sem = Semantics::Htcondor;
    let pool = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    let mut brute = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            if symmetric_match(job, machine, sem) {
                brute.push((j, m));
            }
        }
    }
    for round in 0..2 {
        let got = pool.all_pairs(&mut vm);
        if got != brute {
            return Err(format!(
                "round {round}: all_pairs {got:?}, brute force {brute:?}"
            ));
        }
    }
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            for job_side in [true, false] {
                let (a, b) = if job_side {
                    (job, machine)
                } else {
                    (machine, job)
                };
                let (x, y) = (rank(a, b, sem), pool.rank(&mut vm, j, m, job_side));
                if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
                    return Err(format!(
                        "rank of job {j}, machine {m} (job side {job_side}): reference {x}, pool {y}"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The ad files of a pool as shell here-documents, and the commands that match
/// them on both engines: how the pool fuzz targets show an input.
pub fn pool_commands(jobs: &[String], machines: &[String]) -> String {
    format!(
        "cat > jobs.ads <<'EOF'\n{}\nEOF\ncat > machines.ads <<'EOF'\n{}\nEOF\n\
         classad match --all-pairs --jobs jobs.ads --machines machines.ads\n\
         classad match --all-pairs --engine reference --jobs jobs.ads --machines machines.ads",
        jobs.join("\n"),
        machines.join("\n")
    )
}

/// `batch_vs_pairs`: the batch matcher, with autoclusters and job by job, against
/// brute force on the reference evaluator: every matching pair, every job's
/// candidates in the negotiator's order (keys compared bit for bit), and the
/// assignment, on 1 and 3 threads. `Err` describes the first difference.
pub fn batch_against_pairs(jobs: &[String], machines: &[String]) -> Result<(), String> {
    let ads = |texts: &[String]| -> Vec<Arc<ClassAd>> { texts.iter().map(|t| ad(t)).collect() };
    batch_against_pairs_of(&ads(jobs), &ads(machines))
}

/// [`batch_against_pairs`] on ads already read.
pub fn batch_against_pairs_of(
    jobs: &[Arc<ClassAd>],
    machines: &[Arc<ClassAd>],
) -> Result<(), String> {
    batch_against_pairs_with(
        jobs,
        machines,
        &classad::matching::NegotiatorPolicy::default(),
    )
}

/// [`batch_against_pairs_of`] under the negotiator's rank expressions of
/// `policy`.
pub fn batch_against_pairs_with(
    jobs: &[Arc<ClassAd>],
    machines: &[Arc<ClassAd>],
    policy: &classad::matching::NegotiatorPolicy,
) -> Result<(), String> {
    use classad::matching::batch::{BatchMatcher, Candidate};
    use classad::matching::negotiator_key;
    let mut pairs = Vec::new();
    let mut candidates: Vec<Vec<Candidate>> = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let mut mine = Vec::new();
        for (m, machine) in machines.iter().enumerate() {
            if symmetric_match(job, machine, Semantics::Htcondor) {
                pairs.push((j, m));
                mine.push(Candidate {
                    slot: m as u32,
                    key: negotiator_key(job, machine, policy),
                });
            }
        }
        mine.sort_by(|a, b| b.key.partial_cmp_key(&a.key));
        candidates.push(mine);
    }
    let mut taken = vec![false; machines.len()];
    let mut assigned = Vec::new();
    for (j, c) in candidates.iter().enumerate() {
        if let Some(best) = c.iter().find(|c| !taken[c.slot as usize]) {
            taken[best.slot as usize] = true;
            assigned.push((j, best.slot as usize));
        }
    }
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for threads in [1, 3] {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        for autocluster in [true, false] {
            let how = format!("{threads} threads, autocluster {autocluster}");
            let r = workers.install(|| -> Result<(), String> {
                let mut b = BatchMatcher::new(jobs, machines, policy, autocluster);
                let mut got = Vec::new();
                b.for_each_pair(|j, m| {
                    got.push((j, m));
                    Ok::<(), ()>(())
                })
                .expect("no error");
                if got != pairs {
                    return Err(format!("pairs {got:?}, brute force {pairs:?}"));
                }
                let mut i = 0;
                let mut err = None;
                b.for_each_candidates(|j, c| {
                    if j != i {
                        err = Some(format!("candidates of job {j} where {i} was due"));
                    }
                    i += 1;
                    let want = &candidates[j];
                    let agree = c.len() == want.len()
                        && c.iter().zip(want).all(|(x, y)| {
                            x.slot == y.slot
                                && same(x.key.pre, y.key.pre)
                                && same(x.key.rank, y.key.rank)
                                && same(x.key.post, y.key.post)
                        });
                    if !agree && err.is_none() {
                        err = Some(format!("job {j}: candidates {c:?}, brute force {want:?}"));
                    }
                    Ok::<(), ()>(())
                })
                .expect("no error");
                if let Some(e) = err {
                    return Err(e);
                }
                let got = b.assign();
                if got != assigned {
                    return Err(format!("assignment {got:?}, brute force {assigned:?}"));
                }
                Ok(())
            });
            r.map_err(|e| format!("{how}: {e}"))?;
        }
    }
    parts_classified_alike(jobs, machines, policy)
}

/// The queue classified in parts of `len` jobs, one after another with one
/// `SignificantAttributes` (later parts take the classes earlier ones worked
/// out, after a check) and each with attributes of its own (every class worked
/// out afresh): the same autoclusters and match classes for every job. Jobs
/// read apart have trees of their own, so classes are taken across trees.
fn parts_classified_alike(
    jobs: &[Arc<ClassAd>],
    machines: &[Arc<ClassAd>],
    policy: &classad::matching::NegotiatorPolicy,
) -> Result<(), String> {
    use classad::matching::{AutoclusterBuilder, SignificantAttributes};
    let fresh = || SignificantAttributes::compute(machines, policy);
    for len in [1, 2, 5] {
        let shared = fresh();
        let mut together = AutoclusterBuilder::new(shared.clone());
        let mut apart = AutoclusterBuilder::new(fresh());
        for part in jobs.chunks(len) {
            together.add(shared.classify(part), part);
            apart.add(fresh().classify(part), part);
        }
        let (together, apart) = (together.finish(), apart.finish());
        for j in 0..jobs.len() {
            let got = (together.cluster_of(j), together.class_of(j));
            let want = (apart.cluster_of(j), apart.class_of(j));
            if got != want {
                return Err(format!(
                    "parts of {len}: job {j} in (autocluster, class) {got:?} with classes \
                     shared between parts, {want:?} worked out in each"
                ));
            }
        }
    }
    Ok(())
}

/// What [`shape_pool_against_reference`] checked on one pool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShapeCheck {
    /// Pairs matched.
    pub pairs: usize,
    /// Pairs that match.
    pub matching: usize,
    /// Requirements evaluations (either side, pair by pair) the VM handed to the
    /// reference evaluator, whose values were therefore not compared.
    pub to_reference: usize,
}

/// How many differences [`shape_pool_against_reference`] describes in full.
const SHOWN_DIFFERENCES: usize = 5;

/// `shapes_vs_reference` and `tests/engine/shape_families.rs`: the pool of `spec` (a
/// shape family's, `classad::generate::shapes`) matched on both engines, pair
/// for pair: `CompiledPool::all_pairs` (cold and warm) against brute force on the
/// reference evaluator, each pair's symmetric match, each side's Requirements
/// value as HTCondor prints it (where the VM evaluates it itself), and both
/// Ranks bit for bit. `Err` counts the differences and shows the first few, each
/// with the two ads and both results.
pub fn shape_pool_against_reference(
    spec: &classad::generate::shapes::ShapeSpec,
) -> Result<ShapeCheck, String> {
    use classad::compile::host::VmHost;
    use classad::eval::eval_attr;
    use classad_vm::{Halt, Sides};
    let sem = Semantics::Htcondor;
    let pool = spec.generate();
    let (jobs, machines) = (pool.job_ads(), pool.machine_ads());
    let texts = |file: &str| -> Vec<String> {
        file.split("\n\n")
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
            .collect()
    };
    let (job_texts, machine_texts) = (texts(&pool.jobs), texts(&pool.machines));
    let compiled = CompiledPool::new(&jobs, &machines);
    let req = compiled.slots.get("Requirements").expect("interned");
    let mut vm = Machine::new();
    let mut check = ShapeCheck {
        pairs: jobs.len() * machines.len(),
        ..ShapeCheck::default()
    };
    let mut differences = 0usize;
    let mut shown = String::new();
    let mut differ = |what: String, j: usize, m: usize| {
        differences += 1;
        if differences <= SHOWN_DIFFERENCES {
            shown.push_str(&format!(
                "\n--- {what}\njob {j}:\n{}\nslot {m}:\n{}\n",
                job_texts[j], machine_texts[m]
            ));
        }
    };
    let mut brute = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            let r = symmetric_match(job, machine, sem);
            if r {
                brute.push((j, m));
            }
            let v = compiled.symmetric_match(&mut vm, j, m);
            if r != v {
                differ(format!("symmetric match: reference {r}, vm {v}"), j, m);
            }
            let sides = Sides::new(&compiled.jobs[j].vm, Some(&compiled.machines[m].vm));
            for (side, name, my, target) in [(0, "job", job, machine), (1, "slot", machine, job)] {
                match vm.eval_attr(side, req, 0, sides, &mut VmHost) {
                    Err(Halt::NeedReference) => check.to_reference += 1,
                    got => {
                        let got = outcome(got.map_err(|_| Fail));
                        let want = outcome(eval_attr(my, "Requirements", Some(target), sem));
                        if got != want {
                            differ(
                                format!("the {name}'s Requirements: reference {want}, vm {got}"),
                                j,
                                m,
                            );
                        }
                    }
                }
            }
            for job_side in [true, false] {
                let (a, b) = if job_side {
                    (job, machine)
                } else {
                    (machine, job)
                };
                let (x, y) = (rank(a, b, sem), compiled.rank(&mut vm, j, m, job_side));
                if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
                    let name = if job_side { "job" } else { "slot" };
                    differ(format!("the {name}'s Rank: reference {x}, vm {y}"), j, m);
                }
            }
        }
    }
    check.matching = brute.len();
    for round in ["cold", "warm"] {
        let mut fresh = Machine::new();
        let vm = if round == "cold" { &mut fresh } else { &mut vm };
        let got = compiled.all_pairs(vm);
        if got != brute {
            let extra: Vec<_> = got.iter().filter(|p| !brute.contains(p)).take(5).collect();
            let missing: Vec<_> = brute.iter().filter(|p| !got.contains(p)).take(5).collect();
            differences += 1;
            shown.push_str(&format!(
                "\n--- all_pairs ({round}): {} pairs, brute force {}; (job, slot) pairs \
                 found only by all_pairs {extra:?}, only by brute force {missing:?}\n",
                got.len(),
                brute.len()
            ));
        }
    }
    if differences == 0 {
        Ok(check)
    } else {
        Err(format!(
            "{} pool ({} jobs x {} slots, seed {}): {differences} differences between the \
             engines; the first {}:{shown}",
            spec.family,
            spec.jobs,
            spec.machines,
            spec.seed,
            differences.min(SHOWN_DIFFERENCES)
        ))
    }
}
