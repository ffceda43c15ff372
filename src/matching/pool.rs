//! A pool of jobs and machines compiled once for the machine, matched many times.

use crate::ad::ClassAd;
use crate::compile::host::VmHost;
use crate::compile::{compile_ad_reusing, compile_expr_reusing, CompiledClassAd, ProgramReuse};
use crate::eval::Semantics;
use crate::syntax::ast::ExprRef;
use classad_vm::lanes::LANES;
use classad_vm::logic::for_each_lane;
use classad_vm::{
    ops, Attr, ColumnStore, CompiledAd, Halt, Machine, Sides, SlotTable, TargetBlock, Value,
    Verdicts,
};
use rayon::prelude::*;
use std::sync::Arc;

/// Jobs and machines compiled against one slot table. `Send + Sync`: share it
/// across threads, each with its own [`Machine`].
///
/// ```
/// use classad::ad::read_ads;
/// use classad::matching::CompiledPool;
/// use classad_vm::Machine;
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ads = |text: &str| -> Result<Vec<_>, classad::ad::ReadError> {
///     Ok(read_ads(text, "pool")?.into_iter().map(Arc::new).collect())
/// };
/// let jobs = ads("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n")?;
/// let machines = ads("Cpus = 1\nRequirements = true\n\nCpus = 8\nRequirements = true\n")?;
/// let pool = CompiledPool::new(&jobs, &machines);
/// let mut vm = Machine::new();
/// assert!(!pool.symmetric_match(&mut vm, 0, 0));
/// assert!(pool.symmetric_match(&mut vm, 0, 1));
/// assert_eq!(pool.rank(&mut vm, 0, 1, true), 8.0); // the job's Rank of machine 1
/// assert_eq!(pool.all_pairs(&mut vm), vec![(0, 1)]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct CompiledPool {
    /// The pool's attribute names.
    pub slots: SlotTable,
    /// The job ads.
    pub jobs: Vec<CompiledClassAd>,
    /// The machine (slot) ads.
    pub machines: Vec<CompiledClassAd>,
    pub(crate) requirements: u32,
    pub(crate) rank: u32,
    machine_exprs: Vec<u32>,
    /// Unique for the process (and renewed when the jobs change): a machine's
    /// cache of TARGET-only values belongs to one pool.
    pub(crate) id: u64,
}

impl Drop for CompiledPool {
    /// Frees a large pool's compiled ads on every core: on one thread, freeing
    /// 10,000 compiled slots was a tail of the match phase with the other cores
    /// idle.
    fn drop(&mut self) {
        let machines = std::mem::take(&mut self.machines);
        if machines.len() >= PARALLEL_DROP_MIN {
            machines.into_par_iter().with_min_len(256).for_each(drop);
        }
    }
}

/// How many compiled ads a pool holds before [`CompiledPool`]'s drop frees them
/// in parallel.
const PARALLEL_DROP_MIN: usize = 2048;

/// Compiles `ads` (and `exprs` for each, as expressions of the ad, into
/// `expr_slots`) on rayon's threads: every name their expressions can read is
/// interned first, so that each thread compiles against its own copy of one
/// table; should a copy still have grown, everything is compiled again on one
/// table. On one thread, everything is compiled on the one table at once:
/// interning first only serves the copies (with them, a third of compiling
/// the jobs of a 2,000-job mix pool).
fn compile_ads<'a>(
    machines: &'a [Arc<ClassAd>],
    exprs: &'a [ExprRef],
    expr_slots: &[u32],
    slots: &mut SlotTable,
) -> Vec<CompiledClassAd> {
    // Ads of one kind share their programs (see `ProgramReuse`): most of a
    // pool's slots compile to what a slot before them compiled to.
    let one = |m: &'a Arc<ClassAd>, table: &mut SlotTable, reuse: &mut ProgramReuse<'a>| {
        let mut c = compile_ad_reusing(m, table, reuse);
        for (e, &slot) in exprs.iter().zip(expr_slots) {
            let program = compile_expr_reusing(e, m, table, reuse);
            c.vm.set(slot, Attr::Code(program));
        }
        c
    };
    let sequential = |slots: &mut SlotTable| {
        let mut reuse = ProgramReuse::new();
        machines.iter().map(|m| one(m, slots, &mut reuse)).collect()
    };
    if rayon::current_num_threads() == 1 {
        return sequential(slots);
    }
    // A few parts a thread, each with its reuse: every part compiles each kind
    // of slot once.
    let part = machines
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(64);
    // Every name the ads reach, interned part by part on every core, each part
    // into a copy of the table, the copies absorbed in order: the table one
    // pass over the ads in order gives (see `SlotTable::absorb`). At 400,000
    // slots that pass took 1.9 s on one thread.
    let base = slots.clone();
    let copies: Vec<SlotTable> = machines
        .par_chunks(part)
        .map(|chunk| {
            let mut table = base.clone();
            let mut seen: ahash::AHashSet<usize> = ahash::AHashSet::new();
            for m in chunk {
                crate::compile::intern_ad(m, &mut table, &mut seen);
            }
            table
        })
        .collect();
    for copy in &copies {
        slots.absorb(copy);
    }
    let mut seen: ahash::AHashSet<usize> = ahash::AHashSet::new();
    for e in exprs {
        crate::compile::intern_tree(&e.tree, slots, &mut seen);
    }
    let frozen = slots.entries();
    let parts: Vec<(Vec<CompiledClassAd>, bool)> = machines
        .par_chunks(part)
        .map(|chunk| {
            let mut reuse = ProgramReuse::over_copies(frozen);
            let mut table = slots.clone();
            let out = chunk
                .iter()
                .map(|m| one(m, &mut table, &mut reuse))
                .collect();
            (out, table.entries() == frozen)
        })
        .collect();
    let in_parts = parts.iter().all(|(_, same)| *same);
    #[cfg(test)]
    tests::COMPILED_IN_PARTS.with(|c| c.set(Some(in_parts)));
    if in_parts {
        parts.into_iter().flat_map(|(c, _)| c).collect()
    } else {
        sequential(slots)
    }
}

/// A pool id never used before in the process.
fn next_id() -> u64 {
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// True when a machine's Requirements value rules the match out on its own: false,
/// or error (HTCondor's `error && x` is error without evaluating `x`).
fn rules_out(right: &Value) -> bool {
    right.is_error() || right.as_bool_equiv() == Some(false)
}

/// HTCondor's `RIGHT.requirements && LEFT.requirements` evaluates each Requirements
/// below a `&&` and a selection: two levels of depth before the dereference.
pub(crate) const REQUIREMENTS_SITE: u32 = 2;

impl CompiledPool {
    /// Compiles every ad.
    pub fn new(jobs: &[Arc<ClassAd>], machines: &[Arc<ClassAd>]) -> CompiledPool {
        CompiledPool::with_machine_exprs(jobs, machines, &[])
    }

    /// Compiles every ad, and `exprs` for every machine as expressions of the
    /// machine (MY) evaluated against a job (TARGET), each under a name no ClassAd
    /// expression can spell: [`CompiledPool::machine_exprs`] gives their slots, for
    /// [`CompiledPool::machine_expr`] and the block tiers. The machines compile in
    /// parallel.
    pub fn with_machine_exprs(
        jobs: &[Arc<ClassAd>],
        machines: &[Arc<ClassAd>],
        exprs: &[ExprRef],
    ) -> CompiledPool {
        CompiledPool::with_table(SlotTable::new(), jobs, machines, exprs)
    }

    /// [`CompiledPool::with_machine_exprs`] against the names of `slots`, a
    /// table an earlier pool of the same `exprs` gave back
    /// ([`CompiledPool::take_table`]): what was compiled against it before
    /// (jobs kept by [`CompiledPool::compile_jobs`]) can be given to this
    /// pool ([`CompiledPool::set_compiled_jobs`]).
    pub fn with_table(
        mut slots: SlotTable,
        jobs: &[Arc<ClassAd>],
        machines: &[Arc<ClassAd>],
        exprs: &[ExprRef],
    ) -> CompiledPool {
        let requirements = slots.intern("Requirements");
        let rank = slots.intern("Rank");
        // Low slots, so that no machine's table of attributes is longer for them.
        let expr_slots: Vec<u32> = (0..exprs.len())
            .map(|i| slots.intern(&format!("\u{0}machine expression {i}")))
            .collect();
        let machines = compile_ads(machines, exprs, &expr_slots, &mut slots);
        let jobs = compile_ads(jobs, &[], &[], &mut slots);
        CompiledPool {
            slots,
            jobs,
            machines,
            requirements,
            rank,
            machine_exprs: expr_slots,
            id: next_id(),
        }
    }

    /// The slots of the machine expressions given to
    /// [`CompiledPool::with_machine_exprs`], in order.
    pub fn machine_exprs(&self) -> &[u32] {
        &self.machine_exprs
    }

    /// Replaces the jobs with `jobs`, compiled against the pool's names; the
    /// machines stay as compiled. What a [`Machine`] cached for the old jobs is
    /// not used for the new ones.
    pub fn set_jobs(&mut self, jobs: &[Arc<ClassAd>]) {
        self.jobs = compile_ads(jobs, &[], &[], &mut self.slots);
        self.id = next_id();
    }

    /// `jobs` compiled against the pool's names, for the caller to keep and
    /// give back with [`CompiledPool::set_compiled_jobs`] (to this pool, or
    /// to one made later with this pool's table).
    pub fn compile_jobs(&mut self, jobs: &[Arc<ClassAd>]) -> Vec<CompiledClassAd> {
        compile_ads(jobs, &[], &[], &mut self.slots)
    }

    /// Replaces the jobs with `jobs`, compiled against this pool's names
    /// ([`CompiledPool::compile_jobs`], here or on a pool whose table this
    /// one took over): nothing is compiled.
    pub fn set_compiled_jobs(&mut self, jobs: Vec<CompiledClassAd>) {
        self.jobs = jobs;
        self.id = next_id();
    }

    /// The pool's names, taken (the pool is left with an empty table, to be
    /// dropped): a later pool made [`CompiledPool::with_table`] on them
    /// reads what was compiled against them.
    pub fn take_table(&mut self) -> SlotTable {
        std::mem::take(&mut self.slots)
    }

    /// `expr`, given as `slot` to [`CompiledPool::with_machine_exprs`], evaluated
    /// with machine `m` as MY and job `j` as TARGET, as HTCondor's `EvalExpr` does.
    pub fn machine_expr(
        &self,
        vm: &mut Machine,
        slot: u32,
        expr: &ExprRef,
        j: usize,
        m: usize,
    ) -> Result<Value, crate::eval::Fail> {
        vm.cache_for(self.id);
        let (job, machine) = (&self.jobs[j], &self.machines[m]);
        let sides = Sides::new(&machine.vm, Some(&job.vm));
        let run = vm.eval_attr(0, slot, 0, sides, &mut VmHost);
        crate::engine::settle(run, || {
            crate::eval::eval_in(
                expr,
                &machine.source,
                Some(&job.source),
                Semantics::Htcondor,
            )
        })
    }

    /// Every matching `(job, machine)` pair, sorted by job then machine.
    ///
    /// Works on blocks of up to [`LANES`] jobs and as many machines: each machine's
    /// Requirements is evaluated once for the whole block of jobs, and each job's
    /// for the whole block of machines ([`Machine::verdicts`]), reading each
    /// block's attributes as columns, so that a program's instructions are decoded
    /// once per block rather than once per pair; the few pairs the blocks leave
    /// (expressions as attribute values, builtins) are matched one by one. Same
    /// result as [`CompiledPool::symmetric_match`] on every pair.
    pub fn all_pairs(&self, vm: &mut Machine) -> Vec<(usize, usize)> {
        vm.cache_for(self.id);
        let job_ads: Vec<&CompiledAd> = self.jobs.iter().map(|j| &j.vm).collect();
        let machine_ads: Vec<&CompiledAd> = self.machines.iter().map(|m| &m.vm).collect();
        // Every block stays open (with its columns: the attributes the other
        // side's Requirements test, many of them strings) while it meets every
        // block of the other side, so each column is read once.
        let mut machine_store = ColumnStore::new();
        let mut job_stores: Vec<ColumnStore> = job_ads
            .chunks(LANES)
            .map(|_| machine_store.sibling())
            .collect();
        let mut job_blocks: Vec<TargetBlock<'_>> = job_stores
            .iter_mut()
            .zip(job_ads.chunks(LANES))
            .map(|(store, block)| store.block(block))
            .collect();
        let mut found_here = [0u64; LANES];
        // found[j * blocks + mb]: job j's matches in block mb of machines.
        let blocks = machine_ads.len().div_ceil(LANES);
        let mut found = vec![0u64; job_ads.len() * blocks];
        for (mb, machine_block) in machine_ads.chunks(LANES).enumerate() {
            let m0 = mb * LANES;
            let mut machines = machine_store.block(machine_block);
            for (jb, job_block) in job_ads.chunks(LANES).enumerate() {
                let j0 = jb * LANES;
                let jobs = &mut job_blocks[jb];
                let found_block = &mut found_here[..job_block.len()];
                self.match_blocks(
                    vm,
                    (j0, job_block, jobs),
                    (m0, machine_block, &mut machines),
                    found_block,
                );
                for (ji, &matched) in found_block.iter().enumerate() {
                    found[(j0 + ji) * blocks + mb] = matched;
                }
            }
        }
        let mut out = Vec::with_capacity(found.iter().map(|m| m.count_ones() as usize).sum());
        for (i, &matched) in found.iter().enumerate() {
            let (j, m0) = (i / blocks, i % blocks * LANES);
            for_each_lane(matched, |mi| out.push((j, m0 + mi)));
        }
        out
    }

    /// The matches of a block of jobs (the first is job `j0`) against a block of
    /// machines (the first is machine `m0`), each block with its columns: bit `mi`
    /// of `out[ji]` says whether job `j0 + ji` and machine `m0 + mi` match. Each
    /// machine's Requirements is evaluated over the block of jobs and each job's
    /// over the block of machines ([`Machine::verdicts`]); the few pairs the
    /// blocks leave undecided are matched one by one.
    pub(crate) fn match_blocks(
        &self,
        vm: &mut Machine,
        (j0, job_ads, jobs): (usize, &[&CompiledAd], &mut TargetBlock<'_>),
        (m0, machine_ads, machines): (usize, &[&CompiledAd], &mut TargetBlock<'_>),
        out: &mut [u64],
    ) {
        let host = &mut VmHost;
        let req = self.requirements;
        // The machines' verdicts on the block's jobs, turned to be by job.
        let mut right = [Verdicts::default(); LANES];
        for (mi, ad) in machine_ads.iter().enumerate() {
            let v = vm.verdicts(ad, req, REQUIREMENTS_SITE, jobs, u64::MAX, host);
            let bit = 1u64 << mi;
            for_each_lane(v.yes, |ji| right[ji].yes |= bit);
            for_each_lane(v.no, |ji| right[ji].no |= bit);
            for_each_lane(v.unknown, |ji| right[ji].unknown |= bit);
        }
        for (ji, ad) in job_ads.iter().enumerate() {
            let r = right[ji];
            // As in a single match, a job's Requirements is only needed where the
            // machine's did not already say no.
            let l = vm.verdicts(ad, req, REQUIREMENTS_SITE, machines, !r.no, host);
            let mut matched = r.yes & l.yes;
            // A match needs both sides' yes: only pairs with an unknown side and
            // no other verdict against them are left to decide.
            let unsure = (r.unknown & (l.yes | l.unknown)) | (l.unknown & r.yes);
            for_each_lane(unsure, |mi| {
                if self.symmetric_match(vm, j0 + ji, m0 + mi) {
                    matched |= 1 << mi;
                }
            });
            out[ji] = matched;
        }
    }

    /// True when job `j` and machine `m` match, exactly as
    /// [`crate::matching::symmetric_match`] decides.
    pub fn symmetric_match(&self, vm: &mut Machine, j: usize, m: usize) -> bool {
        vm.cache_for(self.id);
        let (job, machine) = (&self.jobs[j], &self.machines[m]);
        crate::engine::settle_test(self.try_match(vm, job, machine), || {
            super::symmetric_match(&job.source, &machine.source, Semantics::Htcondor)
        })
    }

    fn try_match(
        &self,
        vm: &mut Machine,
        job: &CompiledClassAd,
        machine: &CompiledClassAd,
    ) -> Result<bool, Halt> {
        // The job is LEFT (side 0) and the machine RIGHT (side 1); the machine's
        // Requirements go first, and a false (or error) one decides alone.
        let sides = Sides::new(&job.vm, Some(&machine.vm));
        let host = &mut VmHost;
        let req = self.requirements;
        let right = vm.eval_attr(1, req, REQUIREMENTS_SITE, sides, host)?;
        if rules_out(&right) {
            return Ok(false);
        }
        let left = vm.eval_attr_more(0, req, REQUIREMENTS_SITE, sides, host)?;
        Ok(ops::and(&right, &left).as_bool_equiv() == Some(true))
    }

    /// The Rank of job `j` for machine `m` (`job_side`) or of machine `m` for job
    /// `j`, exactly as [`crate::matching::rank`] computes it.
    pub fn rank(&self, vm: &mut Machine, j: usize, m: usize, job_side: bool) -> f64 {
        vm.cache_for(self.id);
        let (job, machine) = (&self.jobs[j], &self.machines[m]);
        let (my, other) = if job_side {
            (job, machine)
        } else {
            (machine, job)
        };
        let sides = Sides::new(&my.vm, Some(&other.vm));
        // `Rank` is an unscoped name: MY's, or (old semantics) the other ad's.
        let side = if my.vm.has(self.rank) { 0 } else { 1 };
        let run = vm
            .eval_attr(side, self.rank, 0, sides, &mut VmHost)
            .map(|v| super::rank_value(&v));
        // A rank that failed is 0, as HTCondor's `EvalFloat` leaves it.
        crate::engine::settle(run, || {
            Ok(super::rank(&my.source, &other.source, Semantics::Htcondor))
        })
        .unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    thread_local! {
        /// Whether the last `compile_ads` on this thread kept its parts (rather
        /// than compile again on one thread because a part met a name the
        /// table interned first lacked).
        pub(super) static COMPILED_IN_PARTS: std::cell::Cell<Option<bool>> =
            const { std::cell::Cell::new(None) };
    }

    fn ads(src: &str) -> Vec<Arc<ClassAd>> {
        read_ads(src, "t")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    /// On one thread ads compile on the one table with no interning first; on
    /// several, against copies of a table interned first: the same matches and
    /// ranks.
    #[test]
    fn one_thread_and_several_compile_alike() {
        let mut jobs = String::new();
        let mut machines = String::new();
        for i in 0..150 {
            jobs.push_str(&format!(
                "R{i} = {i}\nRank = TARGET.N{} + MY.Request.Cpus\nRequest = [ Cpus = {} ]\nRequirements = TARGET.Cpus >= MY.Request.Cpus && TARGET.N{} =!= {i}\n\n",
                i % 7,
                i % 5,
                i % 7
            ));
            // Lists longer in later slots: parts interned apart meet subscripts
            // the parts before them did not.
            let list: Vec<String> = (0..=i / 10).map(|k| (k * i % 5).to_string()).collect();
            machines.push_str(&format!(
                "Cpus = {}\nN{} = {i}\nL = {{ {} }}\nRequirements = (TARGET.R{} =!= undefined || {i} % 3 == 0) && MY.L[{}] =!= 4\n\n",
                i % 4,
                i % 7,
                list.join(", "),
                i % 11,
                i / 20
            ));
        }
        let (jobs, machines) = (ads(&jobs), ads(&machines));
        let on = |threads: usize| {
            let workers = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            workers.install(|| {
                let pool = CompiledPool::new(&jobs, &machines);
                let mut vm = Machine::new();
                let ranks: Vec<f64> = (0..150)
                    .map(|i| pool.rank(&mut vm, i, (i * 7) % 150, true))
                    .collect();
                (pool.all_pairs(&mut vm), ranks)
            })
        };
        let (one, two) = (on(1), on(2));
        assert!(!one.0.is_empty() && one.1.iter().any(|&r| r != 0.0));
        assert!(one.0.len() < 150 * 150, "the lists rule some pairs out");
        assert!(one == two, "the same pairs and ranks");
    }

    /// Slots interned part by part on several threads give the table one pass
    /// over them in order gives, subscripts of their lists included, and every
    /// part then compiles against it without meeting a name it lacks.
    #[test]
    fn slots_interned_in_parts_give_the_table_interned_in_order() {
        let text: String = (0..300)
            .map(|i| {
                let list: Vec<String> = (0..=i / 12).map(|k| (k + i).to_string()).collect();
                format!(
                    "Name = \"slot{i}\"\nL = {{ {} }}\nR{} = [ A = {{ 1, [ B = {i} ] }} ]\nRequirements = MY.L[{}] > 3\n\n",
                    list.join(", "),
                    i % 9,
                    i / 24
                )
            })
            .collect();
        let machines = ads(&text);
        let mut in_order = SlotTable::new();
        let mut seen = ahash::AHashSet::new();
        for m in &machines {
            crate::compile::intern_ad(m, &mut in_order, &mut seen);
        }
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (table, in_parts) = workers.install(|| {
            let mut table = SlotTable::new();
            compile_ads(&machines, &[], &[], &mut table);
            (table, COMPILED_IN_PARTS.with(|c| c.get()))
        });
        assert_eq!(in_parts, Some(true), "no part compiled again on one thread");
        assert_eq!(table.len(), in_order.len());
        for slot in 0..table.len() as u32 {
            assert_eq!(table.name(slot), in_order.name(slot));
        }
        assert!(in_order.paths_in_order().len() > 25);
        assert_eq!(table.paths_in_order(), in_order.paths_in_order());
    }

    #[test]
    fn machine_only_values_are_cached_per_pool() {
        let jobs = ads("Requirements = versionGE(split(TARGET.V)[1], \"2.0\")\n");
        let machines =
            ads("V = \"x 2.1\"\nRequirements = true\n\nV = \"x 1.9\"\nRequirements = true\n");
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        assert!(pool.symmetric_match(&mut vm, 0, 0));
        assert!(!pool.symmetric_match(&mut vm, 0, 1));
        assert_eq!(vm.cached_values(), 2, "one value per machine");
        assert!(
            pool.symmetric_match(&mut vm, 0, 0),
            "a cache hit gives the same"
        );
        // Another pool's ads may reuse these addresses: its cache starts empty.
        let other = CompiledPool::new(&jobs, &machines[1..]);
        assert!(!other.symmetric_match(&mut vm, 0, 0));
        assert_eq!(vm.cached_values(), 1);
    }

    /// One job whose Requirements is a call cached per TARGET, against three
    /// machines (the second matches).
    fn cached_versions_pool() -> CompiledPool {
        let jobs = ads("Requirements = versionGE(split(TARGET.V)[1], \"2.0\")\n");
        let machines = ads(&(0..3)
            .map(|i| format!("V = \"x {}.{i}\"\nRequirements = true\n\n", 1 + i % 2))
            .collect::<String>());
        CompiledPool::new(&jobs, &machines)
    }

    /// Whether the job matches each machine of `pool`.
    fn every_machine(pool: &CompiledPool, vm: &mut Machine) -> Vec<bool> {
        (0..pool.machines.len())
            .map(|m| pool.symmetric_match(vm, 0, m))
            .collect()
    }

    #[test]
    fn a_bounded_cache_is_emptied_past_its_bound_and_gives_the_same() {
        let pool = cached_versions_pool();
        let mut vm = Machine::new();
        let first = every_machine(&pool, &mut vm);
        assert_eq!(first, [false, true, false]);
        assert_eq!(vm.cached_values(), 3);
        vm.bound_cache(3);
        assert_eq!(vm.cached_values(), 3, "within the bound: kept");
        vm.bound_cache(2);
        assert_eq!(vm.cached_values(), 0, "past the bound: emptied");
        let again = every_machine(&pool, &mut vm);
        assert_eq!(again, first);
    }

    #[test]
    fn a_cache_bounded_past_its_bound_keeps_the_lasting_ads_values() {
        let pool = cached_versions_pool();
        let lasting = &pool.machines[1].vm as *const CompiledAd;
        let mut vm = Machine::new();
        let first = every_machine(&pool, &mut vm);
        assert_eq!(first, [false, true, false]);
        assert_eq!(vm.cached_values(), 3);
        vm.bound_cache_keeping(3, 10, |ad| ad == lasting);
        assert_eq!(vm.cached_values(), 3, "within the bound: all kept");
        vm.bound_cache_keeping(2, 10, |ad| ad == lasting);
        assert_eq!(
            vm.cached_values(),
            1,
            "past the bound: the lasting ad's kept"
        );
        let again = every_machine(&pool, &mut vm);
        assert_eq!(again, first);
        assert_eq!(vm.cached_values(), 3);
        // The kept value does not count against the bound: two more are within it.
        vm.bound_cache_keeping(2, 10, |ad| ad == lasting);
        assert_eq!(vm.cached_values(), 3);
        vm.bound_cache_keeping(1, 0, |ad| ad == lasting);
        assert_eq!(vm.cached_values(), 0, "past the lasting bound: emptied");
        let third = every_machine(&pool, &mut vm);
        assert_eq!(third, first);
    }

    #[test]
    fn blocks_of_lanes_match_pair_by_pair() {
        // Requirements over every kind of instruction the lanes run, against
        // machines whose attributes are literals, expressions, or missing.
        let reqs = [
            "TARGET.Cpus >= 2 && TARGET.Arch == \"x86_64\"",
            "Cpus * 2 > Memory / 1024 || TARGET.Arch =?= undefined",
            "ifThenElse(TARGET.Gpus > 0, TARGET.Gpus >= 1, TARGET.Cpus > 1)",
            "(TARGET.Gpus ?: 0) == 0 ? TARGET.Memory > 100 : false",
            "member(TARGET.Arch, { \"X86_64\", \"aarch64\" }) && !(TARGET.Cpus < 1)",
            "stringListMember(TARGET.Site, \"a,b,c\") || -TARGET.Cpus < -3",
            "versionGE(split(TARGET.Version)[1], \"2.0\")",
            "TARGET.Cpus % 2 == 1 && (TARGET.Cpus & 1) == 1 && TARGET.Cpus << 1 > 2",
            "strcat(TARGET.Arch, \"-\", TARGET.Site) != \"x-y\"",
            "TARGET.Memory",
            "\"a string\"",
        ];
        let jobs: String = reqs
            .iter()
            .map(|r| format!("Requirements = {r}\nMemory = 2048\nCpus = 1\n\n"))
            .collect();
        let machines = "Cpus = 4\nArch = \"X86_64\"\nMemory = 4096\nSite = \"b\"\nVersion = \"v 2.1\"\nRequirements = TARGET.Memory <= MY.Memory\n\n\
            Cpus = 1\nArch = \"aarch64\"\nGpus = 1\nMemory = Cpus * 1000\nVersion = \"v 1.0\"\nRequirements = true\n\n\
            Cpus = 3\nMemory = 512\nSite = \"q\"\nRequirements = TARGET.Cpus < MY.Cpus && MY.Rank > 0\nRank = -1\n\n\
            Cpus = \"many\"\nArch = undefined\nRequirements = TARGET.Cpus =!= error\n";
        let (jobs, machines) = (ads(&jobs), ads(machines));
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        let mut expected = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            for (m, machine) in machines.iter().enumerate() {
                if super::super::symmetric_match(job, machine, Semantics::Htcondor) {
                    expected.push((j, m));
                }
            }
        }
        assert!(expected.len() > 5 && expected.len() < jobs.len() * machines.len() - 5);
        assert_eq!(pool.all_pairs(&mut vm), expected);
        assert_eq!(pool.all_pairs(&mut vm), expected, "warm");
    }

    /// The bit-mask tier alone, lane by lane against the machine pair by pair, on
    /// machines whose attributes take every type (and are missing, or
    /// expressions); literal-only Requirements must be decided in the tier.
    #[test]
    fn mask_tier_agrees_lane_by_lane() {
        let reqs = [
            ("TARGET.Cpus >= 2 && TARGET.Arch == \"x86_64\"", true),
            ("TARGET.Cpus > 1.5 || TARGET.Arch != \"aarch64\"", true),
            ("!(TARGET.Cpus < 1) && TARGET.HasX", true),
            ("TARGET.HasX || TARGET.Cpus == 4", true),
            ("TARGET.Cpus =?= 4 || TARGET.Arch =!= undefined", true),
            ("TARGET.Arch is \"X86_64\" && TARGET.Cpus isnt 2.5", true),
            (
                "ifThenElse(TARGET.Cpus > 2, TARGET.HasX, TARGET.Cpus >= 1)",
                true,
            ),
            (
                "TARGET.Cpus ? TARGET.Arch == \"aarch64\" : TARGET.HasX",
                true,
            ),
            ("member(TARGET.Arch, { \"X86_64\", \"aarch64\", 3 })", true),
            ("stringListMember(TARGET.Arch, \"x86_64,aarch64\")", true),
            ("(TARGET.Arch == MY.Arch) && TARGET.Cpus <= MY.Cpus", true),
            ("TARGET.Cpus", true),
            ("TARGET.HasX == true", true),
            // One register holding two columns (or a constant) in different lanes,
            // then compared: lanes whose column was replaced must leave the tier.
            (
                "(TARGET.Cpus > 2 ? TARGET.Arch : TARGET.Version) == \"x86_64\"",
                false,
            ),
            ("(TARGET.Cpus > 2 ? 5 : TARGET.Cpus) == 5", false),
            ("(TARGET.HasX ?: TARGET.Arch) =?= \"X86_64\"", false),
            ("TARGET.Arch < \"b\" && TARGET.Cpus < TARGET.Memory", false),
            (
                "versionGE(split(TARGET.Version)[1], \"2.0\") || TARGET.Cpus > 3",
                false,
            ),
        ];
        let jobs: String = reqs
            .iter()
            .map(|(r, _)| format!("Requirements = {r}\nArch = \"X86_64\"\nCpus = 2\n\n"))
            .collect();
        let cpus = [
            "4",
            "1",
            "0",
            "-2",
            "2.5",
            "\"many\"",
            "true",
            "undefined",
            "error",
            "",
            "{ 1 }",
            "MY.Memory / 512",
            "0.0",
            "2",
        ];
        let arch = [
            "\"X86_64\"",
            "\"x86_64\"",
            "\"aarch64\"",
            "\"\"",
            "3",
            "",
            "undefined",
            "\"X86_64 \"",
        ];
        let has_x = [
            "true", "false", "1", "0", "\"yes\"", "", "error", "Cpus > 2", "2.5",
        ];
        let version = ["\"v 2.1\"", "\"v 1.0\"", "", "3"];
        let mut machines = String::new();
        for i in 0..60 {
            for (name, options) in [
                ("Cpus", &cpus[..]),
                ("Arch", &arch[..]),
                ("HasX", &has_x[..]),
                ("Version", &version[..]),
            ] {
                let v = options[(i * 5 + name.len()) % options.len()];
                if !v.is_empty() {
                    machines.push_str(&format!("{name} = {v}\n"));
                }
            }
            machines.push_str("Memory = 1024\nRequirements = true\n\n");
        }
        let (jobs, machines) = (ads(&jobs), ads(&machines));
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        vm.cache_for(pool.id);
        let req = pool.requirements;
        let targets: Vec<&CompiledAd> = pool.machines.iter().map(|m| &m.vm).collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        for (j, (text, literal_only)) in reqs.iter().enumerate() {
            let my = &pool.jobs[j].vm;
            let (v, escaped) = vm.mask_verdicts(my, req, 2, &mut block, u64::MAX, &mut VmHost);
            for (m, machine) in pool.machines.iter().enumerate() {
                let lane = 1u64 << m;
                if escaped & lane != 0 {
                    continue;
                }
                let sides = Sides::new(my, Some(&machine.vm));
                let want = vm.eval_attr(0, req, 2, sides, &mut VmHost).unwrap();
                let yes = ops::and(&want, &Value::Bool(true)).as_bool_equiv() == Some(true);
                assert_eq!(v.yes & lane != 0, yes, "{text} on machine {m}: {want:?}");
                assert_eq!(
                    v.no & lane != 0,
                    rules_out(&want),
                    "{text} on machine {m}: {want:?}"
                );
            }
            // Lanes leave the tier for expressions (a machine in 9 has one) and
            // values its registers do not hold.
            if *literal_only {
                assert!(escaped.count_ones() <= 20, "{text}: {escaped:#b}");
            }
        }
    }

    /// Issue 9: a slot's START testing the job's group against a list the slot
    /// leaves undefined. A job without the group gives undefined (no match), as in
    /// HTCondor 25, on every tier of the pool and pair by pair.
    #[test]
    fn a_start_over_an_undefined_list_matches_as_htcondor() {
        let start = "START = !stringListMember(TARGET.AcctGroup, MY.BlockedGroups)\n\
                     Requirements = START\n";
        let machines = ads(&format!(
            "{start}\nBlockedGroups = undefined\n{start}\nBlockedGroups = \"a, b\"\n{start}"
        ));
        let jobs = ads("Requirements = true\n\nAcctGroup = \"a\"\nRequirements = true\n\n\
             AcctGroup = \"c\"\nRequirements = true\n\nAcctGroup = undefined\nRequirements = true\n");
        // HTCondor 25's `symmetricMatch` of each pair.
        let htcondor = vec![(0, 2), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2), (3, 2)];
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        let mut reference = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            for (m, machine) in machines.iter().enumerate() {
                let r = super::super::symmetric_match(job, machine, Semantics::Htcondor);
                assert_eq!(
                    pool.symmetric_match(&mut vm, j, m),
                    r,
                    "job {j} machine {m}"
                );
                if r {
                    reference.push((j, m));
                }
            }
        }
        assert_eq!(reference, htcondor);
        assert_eq!(pool.all_pairs(&mut vm), htcondor);
        assert_eq!(pool.all_pairs(&mut vm), htcondor, "warm");
    }

    #[test]
    fn compiled_pool_matches_like_the_reference() {
        let jobs = ads("Requirements = TARGET.Cpus >= 2 && Memory > 0\nMemory = 5\nRank = TARGET.Cpus\n\nRequirements = undefined\n");
        let machines = ads("Cpus = 4\nRequirements = TARGET.Memory > 1\n\nCpus = 1\nRequirements = true\nRank = 3\n");
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        for (j, job) in jobs.iter().enumerate() {
            for (m, machine) in machines.iter().enumerate() {
                let sem = Semantics::Htcondor;
                assert_eq!(
                    pool.symmetric_match(&mut vm, j, m),
                    super::super::symmetric_match(job, machine, sem),
                    "job {j} machine {m}"
                );
                for job_side in [true, false] {
                    let (a, b) = if job_side {
                        (job, machine)
                    } else {
                        (machine, job)
                    };
                    assert_eq!(
                        pool.rank(&mut vm, j, m, job_side).to_bits(),
                        super::super::rank(a, b, sem).to_bits()
                    );
                }
            }
        }
        assert!(pool.symmetric_match(&mut vm, 0, 0));
        assert_eq!(pool.rank(&mut vm, 0, 0, true), 4.0);
        // Job 1 has no Rank: the machine's answers (old semantics).
        assert_eq!(pool.rank(&mut vm, 1, 1, true), 3.0);
    }
}
