//! The bit-mask tier against the pair-by-pair machine on hand-written programs:
//! arithmetic of two columns (through a register copy, which no compiled program
//! of the front end makes), compared with a register and with a constant, over a
//! grid of values that holds every class and the numbers at the edges.

use super::*;
use crate::ad::CompiledAd;
use crate::columns::ColumnStore;
use crate::instr::{form, Instr, Shape};
use crate::machine::{NoBuiltins, Sides};
use crate::value::Str;
use std::sync::Arc;

fn grid() -> Vec<Value> {
    let mut g = vec![
        Value::Undefined,
        Value::Error,
        Value::Bool(true),
        Value::Bool(false),
        Value::Str(Str::new("a")),
        Value::Str(Str::new("A")),
        Value::Real(f64::NAN),
        Value::Real(-0.0),
        Value::Real(2.5),
        Value::Real(1e308),
        Value::RelTime(3.0),
    ];
    for i in [0, 1, 2, -7, i64::MAX, i64::MIN] {
        g.push(Value::Int(i));
    }
    g
}

/// `op` on registers `a` and `b` into `dst` (a unary operator on `b`).
fn apply(op: Op, dst: u8, a: u8, b: u8) -> Instr {
    match op.shape() {
        Shape::Unary => form::Unary { dst, src: b }.instr(op),
        _ => form::Binary { dst, a, b }.instr(op),
    }
}

/// `TARGET` attribute `slot` into register `dst`.
fn load(dst: u8, slot: u32) -> Instr {
    form::Load {
        dst,
        depth: 0,
        slot,
    }
    .instr(Op::LoadTarget)
}

fn ret(src: u8) -> Instr {
    form::Ret { src }.instr(Op::Ret)
}

/// `(TARGET.A op TARGET.B)`, copied to another register, then `cmp` against
/// `k`: by `CmpK` when `by_const`, else by a comparison of two registers.
fn program(op: Op, cmp: Cmp, k: usize, by_const: bool) -> Program {
    let code = vec![
        load(0, 0),
        load(1, 1),
        apply(op, 2, 0, 1),
        form::Unary { dst: 3, src: 2 }.instr(Op::Move),
        if by_const {
            form::CmpK {
                dst: 5,
                konst: k as u16,
                src: 3,
                cmp,
            }
            .instr(Op::CmpK)
        } else {
            form::Const {
                dst: 4,
                konst: k as u32,
            }
            .instr(Op::Const)
        },
        if by_const {
            ret(5)
        } else {
            let cmp_op = [
                Op::Lt,
                Op::Le,
                Op::Gt,
                Op::Ge,
                Op::Eq,
                Op::Ne,
                Op::Is,
                Op::Isnt,
            ];
            apply(cmp_op[usize::from(cmp.code())], 5, 3, 4)
        },
        ret(5),
    ];
    Program {
        code,
        consts: grid(),
        nregs: 6,
        nodes: 8,
        max_depth: 3,
        ..Program::default()
    }
}

/// An ad per pair of `values`, as attributes 0 and 1.
fn pairs_of(values: &[Value]) -> Vec<CompiledAd> {
    let mut ads = Vec::new();
    for a in values {
        for b in values {
            let mut ad = CompiledAd::new();
            ad.set(0, Attr::Value(a.clone()));
            ad.set(1, Attr::Value(b.clone()));
            ads.push(ad);
        }
    }
    ads
}

/// `p` (as MY's attribute 2) against `ads` a block at a time: every lane the
/// bit-mask tier decides gets the pair-by-pair machine's verdict.
fn assert_agrees(vm: &mut Machine, p: Program, ads: &[CompiledAd], what: &str) {
    let mut my = CompiledAd::new();
    my.set(2, Attr::Code(Arc::new(p)));
    for chunk in ads.chunks(LANES) {
        let targets: Vec<&CompiledAd> = chunk.iter().collect();
        let mut store = ColumnStore::new();
        let mut block = store.block(&targets);
        let (got, out) = vm.mask_verdicts(&my, 2, 0, &mut block, u64::MAX, &mut NoBuiltins);
        for (l, target) in chunk.iter().enumerate() {
            let bit = 1u64 << l;
            if out & bit != 0 {
                continue;
            }
            let sides = Sides::new(&my, Some(target));
            let v = vm.eval_attr(0, 2, 0, sides, &mut NoBuiltins).unwrap();
            let want = Verdicts::of(Logic::of(&v, bit));
            assert_eq!(
                (got.yes & bit, got.no & bit),
                (want.yes, want.no),
                "{what} lane {l}: {v:?}"
            );
        }
    }
}

#[test]
fn arithmetic_and_comparisons_agree_with_the_machine() {
    let grid = grid();
    let ads = pairs_of(&grid);
    let mut vm = Machine::new();
    let ops = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Mod,
        Op::Neg,
        Op::Plus,
    ];
    for op in ops {
        for cmp in Cmp::ALL {
            for k in 0..grid.len() {
                for by_const in [true, false] {
                    let what = format!("{op:?} {cmp:?} k{k} const {by_const}");
                    assert_agrees(&mut vm, program(op, cmp, k, by_const), &ads, &what);
                }
            }
        }
    }
}

/// Blocks whose every lane holds two numbers take the tier's arithmetic on
/// numbers alone (`arith_numbers`): the edges of integer division and
/// remainder, overflow, and reals' infinity and NaN agree with the machine.
#[test]
fn blocks_of_numbers_alone_agree_with_the_machine() {
    let mut numbers: Vec<Value> = [0, 1, 2, -1, -7, i64::MAX, i64::MIN]
        .into_iter()
        .map(Value::Int)
        .collect();
    numbers.extend([f64::NAN, -0.0, 0.0, 2.5, 1e308].map(Value::Real));
    let ads = pairs_of(&numbers);
    let grid = grid();
    let mut vm = Machine::new();
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod] {
        for cmp in Cmp::ALL {
            for k in 0..grid.len() {
                let what = format!("{op:?} {cmp:?} k{k} on numbers");
                assert_agrees(&mut vm, program(op, cmp, k, true), &ads, &what);
                let what = format!("{op:?} {cmp:?} k{k} chained");
                assert_agrees(&mut vm, chained(op, cmp, k), &ads, &what);
            }
        }
    }
}

/// `op` on two columns, then on a computed number and a column, a column
/// and a computed number, and two computed numbers, compared with constant
/// `k`: each way the tier reads two operands' numbers.
fn chained(op: Op, cmp: Cmp, k: usize) -> Program {
    let code = vec![
        load(0, 0),
        load(1, 1),
        apply(op, 2, 0, 1),
        apply(op, 3, 2, 1),
        apply(op, 4, 1, 3),
        apply(op, 5, 3, 4),
        form::CmpK {
            dst: 6,
            konst: k as u16,
            src: 5,
            cmp,
        }
        .instr(Op::CmpK),
        ret(6),
    ];
    Program {
        code,
        consts: grid(),
        nregs: 7,
        nodes: 12,
        max_depth: 5,
        ..Program::default()
    }
}

/// Integers and reals are computed on the tier: only lanes holding values
/// the tier keeps by class alone (a string, a time) leave it.
#[test]
fn numbers_stay_on_the_tier() {
    let numbers = [
        Value::Int(3),
        Value::Int(-2),
        Value::Real(0.5),
        Value::Int(0),
    ];
    let ads = pairs_of(&numbers);
    let targets: Vec<&CompiledAd> = ads.iter().collect();
    let mut vm = Machine::new();
    for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Neg] {
        for by_const in [true, false] {
            let mut my = CompiledAd::new();
            my.set(2, Attr::Code(Arc::new(program(op, Cmp::Ge, 13, by_const))));
            let mut store = ColumnStore::new();
            let mut block = store.block(&targets);
            let (_, out) = vm.mask_verdicts(&my, 2, 0, &mut block, u64::MAX, &mut NoBuiltins);
            assert_eq!(out, 0, "{op:?} const {by_const}");
        }
    }
}

/// Two columns compared with each other (integers and reals in bulk, strings
/// by their identities, NaN among them) as the machine compares them.
#[test]
fn two_columns_compare_as_the_machine() {
    let ads = pairs_of(&grid());
    let mut vm = Machine::new();
    let cmp_op = [
        Op::Lt,
        Op::Le,
        Op::Gt,
        Op::Ge,
        Op::Eq,
        Op::Ne,
        Op::Is,
        Op::Isnt,
    ];
    for op in cmp_op {
        let code = vec![load(0, 0), load(1, 1), apply(op, 2, 0, 1), ret(2)];
        let p = Program {
            code,
            nregs: 3,
            nodes: 3,
            max_depth: 1,
            ..Program::default()
        };
        assert_agrees(&mut vm, p, &ads, &format!("{op:?}"));
    }
}

/// A program that leaves one branch to the reference evaluator is still run by
/// both tiers: only the lanes that reach `Reference` are taken out.
#[test]
fn a_branch_to_the_reference_takes_out_only_its_lanes() {
    let ads: Vec<CompiledAd> = (0..64)
        .map(|i| {
            let mut ad = CompiledAd::new();
            ad.set(0, Attr::Value(Value::Int(i % 4)));
            ad
        })
        .collect();
    let targets: Vec<&CompiledAd> = ads.iter().collect();
    // `TARGET.A > 1 || <something only the reference evaluator does>`
    let code = vec![
        load(0, 0),
        form::CmpK {
            dst: 1,
            konst: 0,
            src: 0,
            cmp: Cmp::Gt,
        }
        .instr(Op::CmpK),
        form::Branch { cond: 1, target: 4 }.instr(Op::JumpIfTrue),
        form::Stop {}.instr(Op::Reference),
        ret(1),
    ];
    let p = Program {
        code,
        consts: vec![Value::Int(1)],
        nregs: 2,
        nodes: 5,
        max_depth: 2,
        ..Program::default()
    };
    let mut my = CompiledAd::new();
    my.set(2, Attr::Code(Arc::new(p)));
    let reaching: u64 = (0..64).filter(|i| i % 4 <= 1).map(|i| 1u64 << i).sum();
    let mut vm = Machine::new();
    let mut store = ColumnStore::new();
    let mut block = store.block(&targets);
    let (got, out) = vm.mask_verdicts(&my, 2, 0, &mut block, u64::MAX, &mut NoBuiltins);
    assert_eq!(out, reaching, "masks");
    assert_eq!(got.yes, !reaching);
    let mut values = Vec::new();
    vm.eval_attr_lanes(&my, 2, 0, &targets, u64::MAX, &mut NoBuiltins, &mut values);
    for (l, v) in values.iter().enumerate() {
        let want = (reaching >> l & 1 == 0).then_some("Bool(true)".to_string());
        assert_eq!(
            v.as_ref().map(|v| format!("{v:?}")),
            want,
            "lanes, lane {l}"
        );
    }
}
