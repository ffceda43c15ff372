//! What the compiler's unit tests share: ads from text, and programs compiled
//! after checking that the machine agrees with the reference evaluator. Each
//! pass's tests, beside it, take what they use from here.

pub(super) use crate::ad::{read_ads, ClassAd};
pub(super) use crate::compile::compile_expr;
pub(super) use crate::eval::{eval_in, Semantics};
pub(super) use crate::syntax::ast::ExprRef;
pub(super) use crate::syntax::parse_expr;
pub(super) use classad_vm::{Op, Program, SlotTable};
pub(super) use std::sync::Arc;

pub(super) fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

/// The program of `expr` in `my`, after checking that the VM gives exactly
/// what the reference evaluator gives against `target`.
pub(super) fn compiled(expr: &str, my: &str, target: &str) -> Program {
    let (my, target) = (ad(my), ad(target));
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    let reference = eval_in(&e, &my, Some(&target), Semantics::Htcondor);
    let vm = match crate::compile::try_eval(&e, Some(&my), Some(&target)) {
        Err(classad_vm::Halt::NeedReference) => panic!("{expr} does not run on the machine"),
        run => run.map_err(|_| crate::eval::Fail),
    };
    assert_eq!(format!("{vm:?}"), format!("{reference:?}"), "{expr}");
    compile_expr(&e, Some(&my), &mut SlotTable::new())
}

pub(super) fn ops(p: &Program) -> Vec<Op> {
    p.code.iter().map(|i| i.op()).collect()
}
