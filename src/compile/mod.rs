//! Compiling expressions and ads to `classad-vm` bytecode, and running them.
//!
//! Compile an ad and an expression against one slot table, then evaluate the
//! expression on the machine in a match (MY = the job, TARGET = the slot):
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::compile::{compile_ad, compile_expr, host::VmHost};
//! use classad::syntax::{ast::ExprRef, parse_expr};
//! use classad_vm::{Machine, Sides, SlotTable, Value};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let job = Arc::new(read_ads("RequestCpus = 2\nOwner = \"ana\"\n", "job")?.remove(0));
//! let slot = Arc::new(read_ads("Cpus = 4\n", "slot")?.remove(0));
//! let mut slots = SlotTable::new();
//! let (job_c, slot_c) = (compile_ad(&job, &mut slots), compile_ad(&slot, &mut slots));
//! let e = ExprRef::root_of(Arc::new(parse_expr("TARGET.Cpus >= MY.RequestCpus * 2")?));
//! // Compiled for the job: `MY.RequestCpus * 2` folds to 4.
//! let program = compile_expr(&e, Some(&job), &mut slots);
//! let sides = Sides::new(&job_c.vm, Some(&slot_c.vm));
//! let v = Machine::new().eval(&program, sides, &mut VmHost);
//! assert!(matches!(v, Ok(Value::Bool(true))));
//! # Ok(())
//! # }
//! ```
//!
//! Whole pools are compiled once and matched many times with
//! [`crate::matching::CompiledPool`]; [`crate::engine::eval_in_with`] picks the engine
//! for one evaluation.

mod codegen;
mod fields;
pub mod host;
mod reuse;

pub use codegen::compile_expr;
pub use fields::{intern_ad, intern_tree};
pub use reuse::ProgramReuse;

use crate::ad::ClassAd;
use crate::syntax::ast::ExprRef;
use classad_vm::{Attr, CompiledAd, Program, SlotTable, Value};
use std::sync::Arc;

/// An ad compiled for the machine, with the ad it came from (for evaluations the
/// machine hands back to the reference evaluator).
#[derive(Clone, Debug)]
pub struct CompiledClassAd {
    /// Slot-indexed attributes.
    pub vm: CompiledAd,
    /// The source ad.
    pub source: Arc<ClassAd>,
}

/// Compiles every attribute of `ad` against `slots`: literals and lists of
/// literals become values, other expressions programs.
pub fn compile_ad(ad: &Arc<ClassAd>, slots: &mut SlotTable) -> CompiledClassAd {
    compile_ad_with(ad, slots, None)
}

/// [`compile_ad`], with the programs of ads compiled before through `reuse`
/// shared where they are exactly the same (see [`ProgramReuse`]).
pub fn compile_ad_reusing<'a>(
    ad: &'a Arc<ClassAd>,
    slots: &mut SlotTable,
    reuse: &mut ProgramReuse<'a>,
) -> CompiledClassAd {
    compile_ad_with(ad, slots, Some(reuse))
}

fn compile_ad_with<'a>(
    ad: &'a Arc<ClassAd>,
    slots: &mut SlotTable,
    mut reuse: Option<&mut ProgramReuse<'a>>,
) -> CompiledClassAd {
    // Sized once, to the ad's own names: the table may hold many more.
    let ids: Arc<[u32]> = match reuse.as_deref_mut() {
        Some(reuse) => reuse.name_slots(ad, slots),
        None => ad.iter().map(|(name, _)| slots.intern(name)).collect(),
    };
    let mut vm = CompiledAd::with_slots(ids.iter().max().map_or(0, |&m| m as usize + 1));
    // What is known of MY, shared by the attributes compiled (none when every
    // program is reused).
    let mut facts: Option<codegen::MyFacts> = None;
    for ((_, e), &slot) in ad.iter().zip(ids.iter()) {
        let attr = match e.node() {
            crate::syntax::ast::Node::Lit(Value::RelTime(r)) => Attr::Value(Value::Real(*r)),
            crate::syntax::ast::Node::Lit(v) => Attr::Value(v.clone()),
            _ => match codegen::literal_list(&e.to_expr_ref()) {
                Some(list) => Attr::Value(list),
                None => {
                    let mut compile = |slots: &mut SlotTable| {
                        let facts = facts.get_or_insert_with(|| codegen::MyFacts::new(ad.clone()));
                        codegen::compile_with(&e.to_expr_ref(), Some(facts), slots)
                    };
                    Attr::Code(match reuse.as_deref_mut() {
                        Some(reuse) => reuse.program(e, ad, slots, compile),
                        None => Arc::new(compile(slots)),
                    })
                }
            },
        };
        vm.set(slot, attr);
        fields::list_fields(ad, Some(ad), e, slot, Some(&mut vm), slots);
    }
    CompiledClassAd {
        vm,
        source: ad.clone(),
    }
}

/// [`compile_expr`] through `reuse`: `e` is evaluated with `my` as MY.
pub fn compile_expr_reusing<'a>(
    e: &'a ExprRef,
    my: &'a Arc<ClassAd>,
    slots: &mut SlotTable,
    reuse: &mut ProgramReuse<'a>,
) -> Arc<Program> {
    reuse.program(e.view(), my, slots, |slots| {
        compile_expr(e, Some(my), slots)
    })
}

/// Evaluates `expr` on the machine with MY = `my` (`None`: no ad) and an optional
/// TARGET: the run as the machine ends it, which [`crate::engine::settle`] gives
/// its meaning (a failure, or an evaluation left to the reference evaluator).
pub fn try_eval(
    expr: &crate::syntax::ast::ExprRef,
    my: Option<&Arc<ClassAd>>,
    target: Option<&Arc<ClassAd>>,
) -> Result<Value, classad_vm::Halt> {
    let mut slots = SlotTable::new();
    let my_c = my.map(|m| compile_ad(m, &mut slots));
    let target_c = target.map(|t| compile_ad(t, &mut slots));
    let prog = compile_expr(expr, my, &mut slots);
    let empty = CompiledAd::new();
    let sides = classad_vm::Sides::new(
        my_c.as_ref().map_or(&empty, |c| &c.vm),
        target_c.as_ref().map(|c| &c.vm),
    );
    classad_vm::Machine::new().eval(&prog, sides, &mut host::VmHost)
}
