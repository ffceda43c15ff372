//! A few expressions evaluated over many pairs of ads (the negotiator's
//! preemption tests, `PREEMPTION_REQUIREMENTS` and `PREEMPTION_RANK` among
//! them, for each claimed slot and each class of jobs), each evaluation on the
//! engine that costs least.
//!
//! Compiling an ad costs several evaluations of one expression on the
//! reference evaluator, so an ad met once is evaluated there. An ad that comes
//! back (to any of the expressions) is compiled, once, and each expression is
//! compiled for it as MY when first needed; when both sides of a pair are
//! compiled, the pair runs on the machine, and what the machine hands back goes
//! to the reference evaluator through [`super::settle`], so the value is the
//! same either way.

use super::settle;
use crate::ad::ClassAd;
use crate::compile::{compile_ad, compile_expr, host::VmHost, CompiledClassAd};
use crate::eval::{eval_in, Fail, Semantics};
use crate::syntax::ast::ExprRef;
use ahash::AHashMap;
use classad_vm::{Halt, Machine, Program, Sides, SlotTable, Value};
use std::sync::Arc;

/// How many compiled ads one [`Repeated`] keeps at most, and how many ads it
/// remembers meeting; past either, it starts afresh, so its memory stays
/// bounded however many ads it meets (a compiled slot ad is tens of KB).
const MOST_COMPILED: usize = 1 << 12;
const MOST_MET: usize = 1 << 18;

/// An ad as a side of the pairs: once it came back, compiled (and, as MY, the
/// expressions compiled for it, by index, as each is first needed).
struct Side {
    /// Keeps the ad, and so its address, its own while it is a key.
    ad: Arc<ClassAd>,
    compiled: Option<(CompiledClassAd, Vec<Option<Arc<Program>>>)>,
}

/// Expressions evaluated with many MY and TARGET ads (see the module docs).
pub struct Repeated {
    exprs: Vec<ExprRef>,
    slots: SlotTable,
    vm: Machine,
    /// By the ad's address: MY ads and TARGET ads apart, since MY's entry holds
    /// the expressions compiled for it.
    mine: AHashMap<usize, Side>,
    targets: AHashMap<usize, Side>,
    compiled: usize,
    /// [`MOST_COMPILED`] and [`MOST_MET`] (smaller in tests).
    bounds: (usize, usize),
    machine_runs: u64,
    reference_runs: u64,
}

impl Clone for Repeated {
    /// The same expressions with nothing compiled or counted yet (what is
    /// compiled is a cache).
    fn clone(&self) -> Self {
        self.fresh()
    }
}

impl Default for Repeated {
    fn default() -> Self {
        Repeated::new()
    }
}

impl Repeated {
    /// No expressions yet.
    pub fn new() -> Repeated {
        Repeated {
            exprs: Vec::new(),
            slots: SlotTable::new(),
            vm: Machine::new(),
            mine: AHashMap::new(),
            targets: AHashMap::new(),
            compiled: 0,
            bounds: (MOST_COMPILED, MOST_MET),
            machine_runs: 0,
            reference_runs: 0,
        }
    }

    /// The same expressions, with nothing compiled or counted.
    fn fresh(&self) -> Repeated {
        Repeated {
            exprs: self.exprs.clone(),
            bounds: self.bounds,
            ..Repeated::new()
        }
    }

    /// Adds `expr`; its index for [`Repeated::eval`].
    pub fn add(&mut self, expr: ExprRef) -> usize {
        self.exprs.push(expr);
        self.exprs.len() - 1
    }

    /// Expression `which`'s value with `my` as MY and `target` as TARGET, as
    /// [`eval_in`] gives it.
    pub fn eval(
        &mut self,
        which: usize,
        my: &Arc<ClassAd>,
        target: &Arc<ClassAd>,
    ) -> Result<Value, Fail> {
        let hot = self.meet(true, my) & self.meet(false, target);
        if hot {
            if let Some(run) = self.run(which, my, target) {
                self.machine_runs += 1;
                let expr = &self.exprs[which];
                return settle(run, || eval_in(expr, my, Some(target), Semantics::Htcondor));
            }
        }
        self.reference_runs += 1;
        eval_in(&self.exprs[which], my, Some(target), Semantics::Htcondor)
    }

    /// How many evaluations ran on the machine (the reference evaluator taking
    /// over what it handed back) and how many on the reference evaluator alone.
    pub fn runs(&self) -> (u64, u64) {
        (self.machine_runs, self.reference_runs)
    }

    /// Notes a meeting with `ad` as MY (`mine`) or TARGET; true when it is
    /// compiled (it came back).
    fn meet(&mut self, mine: bool, ad: &Arc<ClassAd>) -> bool {
        let met = self.mine.len() + self.targets.len();
        if self.compiled >= self.bounds.0 || met >= self.bounds.1 {
            let runs = (self.machine_runs, self.reference_runs);
            *self = self.fresh();
            (self.machine_runs, self.reference_runs) = runs;
        }
        let key = Arc::as_ptr(ad) as usize;
        let sides = if mine {
            &mut self.mine
        } else {
            &mut self.targets
        };
        match sides.get_mut(&key) {
            None => {
                let side = Side {
                    ad: ad.clone(),
                    compiled: None,
                };
                sides.insert(key, side);
                false
            }
            Some(side) => {
                if side.compiled.is_none() {
                    let compiled = compile_ad(&side.ad, &mut self.slots);
                    side.compiled = Some((compiled, Vec::new()));
                    self.compiled += 1;
                }
                true
            }
        }
    }

    /// The machine's run of expression `which` on the pair, both sides
    /// compiled (the expression is compiled for MY here, the first time).
    fn run(
        &mut self,
        which: usize,
        my: &Arc<ClassAd>,
        target: &Arc<ClassAd>,
    ) -> Option<Result<Value, Halt>> {
        let mine = self.mine.get_mut(&(Arc::as_ptr(my) as usize))?;
        let (my_ad, programs) = mine.compiled.as_mut()?;
        if programs.len() <= which {
            programs.resize(which + 1, None);
        }
        let (exprs, slots) = (&self.exprs, &mut self.slots);
        let program = programs[which]
            .get_or_insert_with(|| Arc::new(compile_expr(&exprs[which], Some(&mine.ad), slots)))
            .clone();
        let (target_ad, _) = self
            .targets
            .get(&(Arc::as_ptr(target) as usize))?
            .compiled
            .as_ref()?;
        let sides = Sides::new(&my_ad.vm, Some(&target_ad.vm));
        Some(self.vm.eval(&program, sides, &mut VmHost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::test_ads;

    fn policy_expr(text: &str) -> Result<ExprRef, crate::syntax::ParseError> {
        Ok(ExprRef::root_of(Arc::new(crate::syntax::parse_expr(text)?)))
    }

    /// A pair met again runs on the machine, with the reference evaluator's
    /// value; a pair met once does not.
    #[test]
    fn pairs_that_come_back_run_on_the_machine_with_the_same_values() {
        let expr = policy_expr(
            "MY.Rank > MY.CurrentRank && TARGET.Owner =!= \"bob\" ? MY.X + TARGET.Y : \"no\"",
        )
        .unwrap();
        let slots = test_ads("[Rank = 2; CurrentRank = 1; X = 10]\n[Rank = 0; CurrentRank = 1; X = 1]\n[X = {1, 2}; Rank = X[0]; CurrentRank = 0]");
        let jobs = test_ads("[Owner = \"ann\"; Y = 1]\n[Owner = \"bob\"; Y = 2]\n[Y = 3.5]");
        let mut repeated = Repeated::new();
        let which = repeated.add(expr.clone());
        for round in 0..3 {
            for s in &slots {
                for j in &jobs {
                    let want = eval_in(&expr, s, Some(j), Semantics::Htcondor);
                    let got = repeated.eval(which, s, j);
                    assert_eq!(format!("{got:?}"), format!("{want:?}"), "round {round}");
                }
            }
        }
        let (machine, reference) = repeated.runs();
        // The first round's first meetings go to the reference evaluator; every
        // pair after both sides came back, to the machine.
        assert_eq!(machine + reference, 27);
        assert!(machine >= 18, "{machine} on the machine, {reference} not");
        let mut once = Repeated::new();
        let which = once.add(expr);
        once.eval(which, &slots[0], &jobs[0]).ok();
        assert_eq!(once.runs(), (0, 1));
    }

    /// Past its bounds it starts afresh: the ads it holds stay few however
    /// many it meets, and the values stay the reference evaluator's.
    #[test]
    fn what_it_keeps_stays_bounded() {
        let expr = policy_expr("MY.A + TARGET.B").unwrap();
        let mut r = Repeated::new();
        r.bounds = (3, 8);
        let which = r.add(expr.clone());
        let slots = test_ads(&(0..5).map(|i| format!("[A = {i}]\n")).collect::<String>());
        let job = test_ads("[B = 100]");
        for round in 0..4 {
            for s in &slots {
                let v = r.eval(which, s, &job[0]);
                assert_eq!(
                    format!("{v:?}"),
                    format!(
                        "{:?}",
                        eval_in(&expr, s, Some(&job[0]), Semantics::Htcondor)
                    )
                );
                assert!(
                    r.compiled <= 3 && r.mine.len() + r.targets.len() <= 8,
                    "round {round}"
                );
            }
        }
        let (machine, reference) = r.runs();
        assert_eq!(machine + reference, 20);
        assert!(machine > 0, "the job came back: {machine}");
    }
}
