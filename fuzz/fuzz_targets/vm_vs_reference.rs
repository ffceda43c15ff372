//! The bytecode VM against the reference evaluator on structured inputs: the fuzz
//! input (an `Arbitrary` seed and case index) drives the project's generator of well-formed expressions and job/machine
//! ad pairs (`tests/gen`, the same one `tests/differential.rs` runs), so every input
//! is a meaningful case. Values must agree exactly (compared as HTCondor prints
//! them, so reals bit for bit), as must failures, matches and ranks. A crash report
//! prints the case as `classad eval` commands.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../tests/gen/mod.rs"]
mod gen;

use classad::ad::ClassAd;
use classad::eval::display::unparse_value;
use classad::eval::{eval_alone_with, eval_in_with, Engine, Fail, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad::syntax::ast::ExprRef;
use classad::syntax::{parse_classad, parse_expr};
use classad::Value;
use classad_vm::Machine;
use gen::Sides;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::fmt;
use std::sync::Arc;

fn outcome(r: Result<Value, Fail>) -> String {
    match r {
        Ok(v) => unparse_value(&v),
        Err(Fail) => "<evaluation failed>".into(),
    }
}

/// One structured input: which expression case and which ad-pair case of the
/// generator. Its `Debug` is the cases themselves, as `classad eval` commands and ad
/// texts, so `cargo fuzz fmt vm_vs_reference ARTIFACT` shows something to paste.
/// Inputs are small by construction (the generator bounds every expression and ad),
/// so none can time out.
#[derive(Arbitrary)]
struct Case {
    master: u64,
    index: u8,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = usize::from(self.index);
        writeln!(f, "{}", gen::expr_case(self.master, i))?;
        write!(f, "{}", gen::pair_case(self.master, i))
    }
}

fuzz_target!(|input: Case| {
    let (master, index) = (input.master, usize::from(input.index));
    let sem = Semantics::Htcondor;

    let case = gen::expr_case(master, index);
    let e = parse_expr(&case.text).expect("generated expressions parse");
    let (r, v) = (
        outcome(eval_alone_with(Engine::Reference, &e, sem)),
        outcome(eval_alone_with(Engine::Vm, &e, sem)),
    );
    assert_eq!(r, v, "\n{case}\n  reference: {r}\n  vm: {v}");

    let pair = gen::pair_case(master, index);
    let ad = |t: &str| Arc::new(parse_classad(t).expect("generated ads parse"));
    let (job, machine): (Arc<ClassAd>, Arc<ClassAd>) = (ad(&pair.job), ad(&pair.machine));
    for x in &pair.exprs {
        let e = ExprRef::root_of(Arc::new(parse_expr(&x.text).expect("parses")));
        let (my, target) = match x.sides {
            Sides::JobMachine => (&job, Some(&machine)),
            Sides::MachineJob => (&machine, Some(&job)),
            Sides::JobAlone => (&job, None),
        };
        let r = outcome(eval_in_with(Engine::Reference, &e, my, target, sem));
        let v = outcome(eval_in_with(Engine::Vm, &e, my, target, sem));
        assert_eq!(
            r,
            v,
            "\n{pair}\n{}\n  reference: {r}\n  vm: {v}",
            x.command()
        );
    }
    let pool = CompiledPool::new(std::slice::from_ref(&job), std::slice::from_ref(&machine));
    let mut vm = Machine::new();
    assert_eq!(
        symmetric_match(&job, &machine, sem),
        pool.symmetric_match(&mut vm, 0, 0),
        "symmetric match\n{pair}"
    );
    for job_side in [true, false] {
        let (a, b) = if job_side {
            (&job, &machine)
        } else {
            (&machine, &job)
        };
        let (x, y) = (rank(a, b, sem), pool.rank(&mut vm, 0, 0, job_side));
        assert!(
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
            "rank (job side {job_side}): reference {x}, vm {y}\n{pair}"
        );
    }
});
