//! The table's tiers held against the tiers: each operation, in a small program
//! of literal operands that every tier able to run it computes, is handed down
//! by exactly the tiers the table says never run it.

use super::{form, Instr, Op, Runs, Shape, U24};
use crate::ad::{Attr, CompiledAd};
use crate::columns::ColumnStore;
use crate::machine::{Halt, Host, Machine, Sides};
use crate::program::{PathSelect, Program, TargetOnly};
use crate::sets::ConstSet;
use crate::value::Value;
use std::sync::Arc;

/// A host with every builtin (each gives 42, and builtin 0 is a clock shared
/// by a block), subscripts (undefined) and lists.
struct EveryBuiltin;

impl Host for EveryBuiltin {
    fn call(&mut self, _: u32, _: &[Value]) -> Result<Value, Halt> {
        Ok(Value::Int(42))
    }
    fn index(&mut self, _: &Value, _: &Value) -> Result<Value, Halt> {
        Ok(Value::Undefined)
    }
    fn list(&mut self, items: &[Value]) -> Result<Value, Halt> {
        Ok(Value::Int(items.len() as i64))
    }
    fn shared_by_block(&self, native: u32) -> bool {
        native == 0
    }
}

/// TARGET's attributes: 0 = 3, 1 = 2, 2 = true. MY's: 0 = 5, 1 = 1.
fn target() -> CompiledAd {
    let mut ad = CompiledAd::new();
    ad.set(0, Attr::Value(Value::Int(3)));
    ad.set(1, Attr::Value(Value::Int(2)));
    ad.set(2, Attr::Value(Value::Bool(true)));
    ad
}

/// MY's slot of the program under test.
const UNDER_TEST: u32 = 9;

/// Code that computes `op` on literal operands into `r1`.
fn exercise(op: Op) -> Vec<Instr> {
    let load = |dst, slot| {
        form::Load {
            dst,
            depth: 0,
            slot,
        }
        .instr(Op::LoadTarget)
    };
    let one = form::Const { dst: 1, konst: 0 }.instr(Op::Const);
    let slot = |n| U24::new(n).expect("a small slot");
    match op.shape() {
        Shape::Const => vec![one],
        Shape::Unary => vec![load(2, 0), form::Unary { dst: 1, src: 2 }.instr(op)],
        Shape::Load if op == Op::LoadMy => vec![form::Load {
            dst: 1,
            depth: 0,
            slot: 0,
        }
        .instr(op)],
        Shape::Load => vec![load(1, 0)],
        Shape::Binary => vec![
            load(2, 0),
            load(3, 1),
            form::Binary { dst: 1, a: 2, b: 3 }.instr(op),
        ],
        Shape::CmpK => {
            let cmp = form::CmpK {
                dst: 1,
                konst: 0,
                src: 2,
                cmp: super::Cmp::Lt,
            };
            vec![load(2, 0), cmp.instr(op)]
        }
        Shape::CmpTK => {
            let cmp = form::CmpTK {
                dst: 1,
                konst: 0,
                slot: slot(0),
                cmp: super::Cmp::Lt,
            };
            vec![cmp.instr(op)]
        }
        Shape::Branch => vec![load(1, 2), form::Branch { cond: 1, target: 2 }.instr(op)],
        Shape::Test => vec![
            load(2, 2),
            form::Test {
                dst: 1,
                cond: 2,
                target: 3,
            }
            .instr(op),
            one,
        ],
        Shape::Jump => vec![form::Jump { target: 1 }.instr(op), one],
        Shape::SelectPath => vec![form::SelectPath {
            dst: 1,
            depth: 0,
            path: 0,
        }
        .instr(op)],
        Shape::Member => vec![
            load(2, 0),
            form::Member {
                dst: 1,
                src: 2,
                set: 0,
            }
            .instr(op),
        ],
        Shape::Call => {
            let call = form::Call {
                dst: 1,
                first: 2,
                argc: 0,
                native: slot(0),
            };
            vec![call.instr(op)]
        }
        Shape::TargetCached => {
            vec![form::TargetCached {
                dst: 1,
                depth: 0,
                sub: 0,
            }
            .instr(op)]
        }
        Shape::InlineEnter | Shape::InlineLeave => vec![
            form::InlineEnter {
                dst: 1,
                length: 2,
                slot: 1,
            }
            .instr(Op::InlineEnter),
            one,
            form::InlineLeave { slot: 1 }.instr(Op::InlineLeave),
        ],
        Shape::List => vec![
            load(2, 0),
            load(3, 1),
            form::List {
                dst: 1,
                first: 2,
                count: 2,
            }
            .instr(op),
        ],
        Shape::Fresh => vec![
            form::Fresh { flag: 2 }.instr(Op::FreshEnter),
            one,
            form::Fresh { flag: 2 }.instr(Op::FreshLeave),
        ],
        Shape::Stop => vec![form::Stop {}.instr(op), one],
        Shape::Ret => vec![one],
    }
}

/// `exercise(op)` as a program whose value is `r1` (for the machine and the
/// lanes), or a truth value made of it (for the verdicts, which give truth
/// values only).
fn program(op: Op, truth: bool) -> Program {
    let mut code = exercise(op);
    if truth {
        code.push(form::Binary { dst: 0, a: 1, b: 1 }.instr(Op::Is));
        code.push(form::Ret { src: 0 }.instr(Op::Ret));
    } else {
        code.push(form::Ret { src: 1 }.instr(Op::Ret));
    }
    let sub = Program {
        code: vec![
            form::Load {
                dst: 0,
                depth: 0,
                slot: 0,
            }
            .instr(Op::LoadTarget),
            form::Ret { src: 0 }.instr(Op::Ret),
        ],
        nregs: 1,
        nodes: 1,
        max_depth: 1,
        ..Program::default()
    };
    Program {
        code,
        consts: vec![Value::Int(1)],
        nregs: 4,
        nodes: 8,
        max_depth: 2,
        sets: vec![ConstSet::Values {
            items: vec![Value::Int(3)],
            identical: false,
        }],
        paths: vec![PathSelect {
            target: true,
            slot: 0,
            root: 0,
            steps: Vec::new(),
            size: Some(0),
        }],
        target_only: vec![TargetOnly::new(7, sub)],
        ..Program::default()
    }
}

/// MY, holding `p` at [`UNDER_TEST`].
fn my_with(p: Program) -> CompiledAd {
    let mut my = CompiledAd::new();
    my.set(0, Attr::Value(Value::Int(5)));
    my.set(1, Attr::Value(Value::Int(1)));
    my.set(UNDER_TEST, Attr::Code(Arc::new(p)));
    my
}

/// Whether each tier computed `op`'s program (rather than handing it down).
fn computed(op: Op) -> (bool, bool, bool) {
    let target = target();
    let targets = [&target];
    let mut vm = Machine::new();
    let my = my_with(program(op, false));
    let sides = Sides::new(&my, Some(&target));
    let machine = !matches!(
        vm.eval_attr(0, UNDER_TEST, 0, sides, &mut EveryBuiltin),
        Err(Halt::NeedReference)
    );
    // (The machine has filled the TARGET-only cache the lanes read.)
    let mut out = Vec::new();
    vm.eval_attr_lanes(&my, UNDER_TEST, 0, &targets, 1, &mut EveryBuiltin, &mut out);
    let lanes = out[0].is_some();
    let my = my_with(program(op, true));
    let mut store = ColumnStore::new();
    let mut block = store.block(&targets);
    let (_, escaped) = vm.mask_verdicts(&my, UNDER_TEST, 0, &mut block, 1, &mut EveryBuiltin);
    (machine, lanes, escaped == 0)
}

#[test]
fn every_tier_hands_down_exactly_what_the_table_says_it_never_runs() {
    let mut wrong = Vec::new();
    for &op in Op::ALL {
        let tiers = op.tiers();
        let (machine, lanes, verdicts) = computed(op);
        for (tier, says, ran) in [
            ("machine", tiers.machine, machine),
            ("lanes", tiers.lanes, lanes),
            ("verdicts", tiers.verdicts, verdicts),
        ] {
            if (says != Runs::Never) != ran {
                wrong.push(format!(
                    "{op:?}: the table says {tier} {says:?}, it ran: {ran}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_operation_has_one_shape_and_prints_by_it() {
    for &op in Op::ALL {
        let zero = Instr::with_zero_operands(op);
        assert_eq!(zero.op(), op);
        assert_eq!(
            zero.operands().to_string().is_empty(),
            op.shape() == Shape::Stop
        );
        // Relocating by nothing gives the instruction back.
        assert_eq!(zero.map_operands(|_, v| Some(v)), Some(zero), "{op:?}");
    }
}
