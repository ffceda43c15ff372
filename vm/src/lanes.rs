//! One program evaluated against many TARGET ads at once: the matcher's inner loop.
//!
//! A matcher holds one ad's Requirements against every ad of the other side. The
//! machine runs the program once for a block of up to [`LANES`] targets, each
//! instruction for every lane still running it, so the cost of decoding and
//! dispatching an instruction is paid once per block instead of once per pair.
//!
//! Lanes only read literal attributes here. Whatever would need more (an attribute
//! that is an expression, with its lazy evaluation and cycle detection; a value
//! not yet in the cache of TARGET-only values; a failing builtin; the reference
//! evaluator) takes the lane out, and its caller evaluates that pair with
//! [`Machine::eval_attr`]: the lanes that finish give exactly what that would give,
//! since with literals only the evaluation has no state beyond its registers.

use crate::ad::{Attr, CompiledAd};
use crate::instr::{form, Op, Operands};
use crate::machine::{Host, Machine};
use crate::ops::{self, Cmp};
use crate::program::Program;
use crate::value::Value;

/// The most targets one call evaluates.
pub const LANES: usize = 64;

pub(crate) use crate::limits::MAX_DEPTH;

/// The registers and jump bookkeeping of lane evaluations, kept between calls.
#[derive(Debug, Default)]
pub(crate) struct LaneState {
    /// Register `r` of lane `l` is `regs[r][l]`: every register an 8-bit operand
    /// names, so register accesses need no bounds checks.
    regs: Option<Box<[[Value; LANES]; 256]>>,
    /// Lanes waiting to resume at each instruction (jumps only go forward).
    pending: Vec<u64>,
    /// Argument values of one lane's builtin call.
    args: Vec<Value>,
}

impl Machine {
    /// Attribute `slot` of `my`, evaluated with each of `targets` as TARGET, as
    /// [`Machine::eval_attr`] would evaluate it at depth `site` (HTCondor's
    /// `EvaluateAttr` in a match). `out[i]` receives the value for `targets[i]`, or
    /// `None` when that pair needs [`Machine::eval_attr`] (see the module doc).
    /// At most [`LANES`] targets; only those whose bit is set in `wanted` are
    /// evaluated (the others get `None`).
    #[allow(clippy::too_many_arguments)] // each is one of the evaluation's givens
    pub fn eval_attr_lanes(
        &mut self,
        my: &CompiledAd,
        slot: u32,
        site: u32,
        targets: &[&CompiledAd],
        wanted: u64,
        host: &mut dyn Host,
        out: &mut Vec<Option<Value>>,
    ) {
        assert!(targets.len() <= LANES, "at most {LANES} targets");
        out.clear();
        match my.get(slot) {
            Attr::Absent => out.resize(targets.len(), Some(Value::Undefined)),
            Attr::Value(v) => out.resize(targets.len(), Some(v.clone())),
            Attr::Code(p) if lane_depth(p).is_some_and(|d| site + 1 + d <= MAX_DEPTH) => {
                out.resize(targets.len(), None);
                self.run_lanes(p, my, targets, wanted, host, out);
            }
            Attr::Code(_) => out.resize(targets.len(), None),
        }
    }

    fn run_lanes(
        &mut self,
        p: &Program,
        my: &CompiledAd,
        targets: &[&CompiledAd],
        wanted: u64,
        host: &mut dyn Host,
        out: &mut [Option<Value>],
    ) {
        let mut st = std::mem::take(&mut self.lanes);
        let mut file = st.regs.take().unwrap_or_else(|| {
            let file: Box<[[Value; LANES]]> = (0..256)
                .map(|_| std::array::from_fn(|_| Value::Undefined))
                .collect();
            file.try_into().expect("256 registers")
        });
        st.pending.clear();
        st.pending.resize(p.code.len() + 1, 0);
        let all = if targets.len() == LANES {
            u64::MAX
        } else {
            (1u64 << targets.len()) - 1
        };
        let mut active = all & wanted;
        let regs = &mut *file;
        for (pc, ins) in p.code.iter().enumerate() {
            active |= std::mem::take(&mut st.pending[pc]);
            if active == 0 {
                continue;
            }
            let ins = *ins;
            // Runs `$body` (an `Option<Value>`: `None` takes the lane out) for every
            // active lane and stores the results in register `$dst`. The
            // instruction is decoded once, outside the loop over lanes.
            macro_rules! per_lane {
                ($dst:expr, |$lane:ident| $body:expr) => {{
                    let dst = usize::from($dst);
                    let mut lanes = active;
                    while lanes != 0 {
                        // (`& 63`: a lane index, which needs no bounds check.)
                        let $lane = lanes.trailing_zeros() as usize & (LANES - 1);
                        lanes &= lanes - 1;
                        match $body {
                            Some(v) => regs[dst][$lane] = v,
                            None => active &= !(1u64 << $lane),
                        }
                    }
                }};
            }
            // Moves the active lanes for which `$cond` holds to jump target
            // `$target`, after `$then`. Jumps go forward; a lane that jumps
            // anywhere else (no program of ours does) never resumes, and so is
            // left to the caller.
            macro_rules! jump_if {
                ($target:expr, |$lane:ident| $cond:expr) => {
                    jump_if!($target, |$lane| $cond, {})
                };
                ($target:expr, |$lane:ident| $cond:expr, $then:block) => {{
                    let target = $target as usize;
                    let forward = target > pc && target < st.pending.len();
                    let mut lanes = active;
                    while lanes != 0 {
                        // (`& 63`: a lane index, which needs no bounds check.)
                        let $lane = lanes.trailing_zeros() as usize & (LANES - 1);
                        lanes &= lanes - 1;
                        if $cond {
                            $then
                            active &= !(1u64 << $lane);
                            if forward {
                                st.pending[target] |= 1u64 << $lane;
                            }
                        }
                    }
                }};
            }
            let r = usize::from;
            match ins.op() {
                Op::Const => {
                    let form::Const { dst, konst } = form::Const::of(ins);
                    let k = &p.consts[konst as usize];
                    per_lane!(dst, |lane| Some(k.clone()))
                }
                Op::Move => {
                    let form::Unary { dst, src } = form::Unary::of(ins);
                    let src = r(src);
                    per_lane!(dst, |lane| Some(regs[src][lane].clone()))
                }
                Op::LoadMy => {
                    let form::Load { dst, slot, .. } = form::Load::of(ins);
                    let v = match my.get(slot) {
                        Attr::Absent => Some(Value::Undefined),
                        Attr::Value(v) => Some(v.clone()),
                        Attr::Code(_) => None,
                    };
                    per_lane!(dst, |lane| v.clone())
                }
                Op::LoadTarget => {
                    let form::Load { dst, slot, .. } = form::Load::of(ins);
                    per_lane!(dst, |lane| match targets[lane].get(slot) {
                        Attr::Absent => Some(Value::Undefined),
                        Attr::Value(v) => Some(v.clone()),
                        Attr::Code(_) => None,
                    })
                }
                Op::CmpTK => {
                    let o = form::CmpTK::of(ins);
                    let (dst, konst, slot, cmp) = (o.dst, o.konst, o.slot, o.cmp);
                    let (k, slot) = (&p.consts[usize::from(konst)], slot.get());
                    // Integer constants (most of matchmaking's) compare against an
                    // integer attribute without the general rules; the test is
                    // chosen once per block.
                    let int_test: Option<fn(i64, i64) -> bool> = match (k, cmp) {
                        (Value::Int(_), Cmp::Lt) => Some(|a, b| a < b),
                        (Value::Int(_), Cmp::Le) => Some(|a, b| a <= b),
                        (Value::Int(_), Cmp::Gt) => Some(|a, b| a > b),
                        (Value::Int(_), Cmp::Ge) => Some(|a, b| a >= b),
                        (Value::Int(_), Cmp::Eq | Cmp::Is) => Some(|a, b| a == b),
                        (Value::Int(_), Cmp::Ne | Cmp::Isnt) => Some(|a, b| a != b),
                        _ => None,
                    };
                    match (int_test, k) {
                        (Some(test), &Value::Int(b)) => {
                            per_lane!(dst, |lane| match targets[lane].get(slot) {
                                Attr::Value(Value::Int(a)) => Some(Value::Bool(test(*a, b))),
                                Attr::Value(v) => Some(ops::compare(cmp, v, k)),
                                Attr::Absent => Some(ops::compare(cmp, &Value::Undefined, k)),
                                Attr::Code(_) => None,
                            })
                        }
                        _ => per_lane!(dst, |lane| match targets[lane].get(slot) {
                            Attr::Absent => Some(ops::compare(cmp, &Value::Undefined, k)),
                            Attr::Value(v) => Some(ops::compare(cmp, v, k)),
                            Attr::Code(_) => None,
                        }),
                    }
                }
                Op::CmpK => {
                    let o = form::CmpK::of(ins);
                    let (dst, konst, src, cmp) = (o.dst, o.konst, o.src, o.cmp);
                    let (k, src) = (&p.consts[usize::from(konst)], r(src));
                    per_lane!(dst, |lane| Some(ops::compare(cmp, &regs[src][lane], k)))
                }
                Op::Neg | Op::Plus | Op::Not | Op::BitNot => {
                    let f = match ins.op() {
                        Op::Neg => ops::neg,
                        Op::Plus => ops::plus,
                        Op::Not => ops::not,
                        _ => ops::bit_not,
                    };
                    let form::Unary { dst, src } = form::Unary::of(ins);
                    let src = r(src);
                    per_lane!(dst, |lane| Some(f(&regs[src][lane])))
                }
                Op::Member => {
                    let form::Member { dst, src, set } = form::Member::of(ins);
                    let (set, src) = (&p.sets[set as usize], r(src));
                    per_lane!(dst, |lane| Some(set.contains(&regs[src][lane])))
                }
                Op::And => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let (a, b) = (r(a), r(b));
                    per_lane!(dst, |lane| Some(ops::and(&regs[a][lane], &regs[b][lane])))
                }
                Op::Or => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let (a, b) = (r(a), r(b));
                    per_lane!(dst, |lane| Some(ops::or(&regs[a][lane], &regs[b][lane])))
                }
                // `&&` and `||` decide on a false (true) left side, stored as the
                // boolean, and on error, kept.
                Op::JumpIfFalse | Op::JumpIfTrue => {
                    let decides = ins.op() == Op::JumpIfTrue;
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    let cond = r(cond);
                    jump_if!(
                        target,
                        |lane| {
                            let v = &regs[cond][lane];
                            v.is_error() || v.as_bool_equiv() == Some(decides)
                        },
                        {
                            if !regs[cond][lane].is_error() {
                                regs[cond][lane] = Value::Bool(decides);
                            }
                        }
                    )
                }
                Op::JumpIfDefined => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    let cond = r(cond);
                    jump_if!(target, |lane| !regs[cond][lane].is_undefined())
                }
                Op::JumpIfNot => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    let cond = r(cond);
                    jump_if!(target, |lane| regs[cond][lane].as_bool_equiv()
                        == Some(false))
                }
                Op::Jump => jump_if!(form::Jump::of(ins).target, |lane| true),
                Op::TestTernary => {
                    // `?:` on a condition that is not a boolean evaluates both
                    // branches in HTCondor: that lane goes to the caller.
                    let form::Test { dst, cond, target } = form::Test::of(ins);
                    let (dst, cond, target) = (r(dst), r(cond), target as usize);
                    let forward = target > pc && target < st.pending.len();
                    let mut lanes = active;
                    while lanes != 0 {
                        let lane = lanes.trailing_zeros() as usize & (LANES - 1);
                        lanes &= lanes - 1;
                        let outcome = match &regs[cond][lane] {
                            Value::Undefined => Some(Value::Undefined),
                            Value::Error => Some(Value::Error),
                            c if c.as_bool_equiv().is_none() => {
                                active &= !(1u64 << lane);
                                continue;
                            }
                            _ => None,
                        };
                        if let Some(v) = outcome {
                            regs[dst][lane] = v;
                            active &= !(1u64 << lane);
                            if forward {
                                st.pending[target] |= 1u64 << lane;
                            }
                        }
                    }
                }
                Op::Test => {
                    let form::Test { dst, cond, target } = form::Test::of(ins);
                    let (dst, cond) = (r(dst), r(cond));
                    let outcome = |c: &Value| match c {
                        Value::Undefined => Some(Value::Undefined),
                        _ if c.as_bool_equiv().is_none() => Some(Value::Error),
                        _ => None,
                    };
                    jump_if!(target, |lane| outcome(&regs[cond][lane]).is_some(), {
                        regs[dst][lane] = outcome(&regs[cond][lane]).unwrap_or(Value::Error)
                    })
                }
                Op::TargetCached => {
                    let form::TargetCached { dst, sub, .. } = form::TargetCached::of(ins);
                    let key = p.target_only[sub as usize].key;
                    let cache = &self.target_cache;
                    per_lane!(dst, |lane| {
                        let ad = targets[lane] as *const CompiledAd as usize;
                        cache.get(&(ad, key)).cloned()
                    })
                }
                Op::Call => {
                    let o = form::Call::of(ins);
                    let (dst, first, argc, native) = (o.dst, o.first, o.argc, o.native);
                    let (first, argc, native) = (r(first), r(argc), native.get());
                    let (args, calls) = (&mut st.args, &mut self.calls);
                    per_lane!(dst, |lane| {
                        args.clear();
                        args.extend((first..first + argc).map(|a| regs[a & 255][lane].clone()));
                        calls.call(host, native, args).ok()
                    })
                }
                Op::Index => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let (a, b) = (r(a), r(b));
                    per_lane!(dst, |lane| host.index(&regs[a][lane], &regs[b][lane]).ok())
                }
                Op::Ret => {
                    let src = r(form::Ret::of(ins).src);
                    let mut lanes = active;
                    while lanes != 0 {
                        let lane = lanes.trailing_zeros() as usize & (LANES - 1);
                        lanes &= lanes - 1;
                        out[lane] = Some(std::mem::take(&mut regs[src][lane]));
                    }
                    active = 0;
                }
                Op::List => {
                    let form::List { dst, first, count } = form::List::of(ins);
                    let (first, n) = (r(first), count as usize);
                    let (args, calls) = (&mut st.args, &mut self.calls);
                    per_lane!(dst, |lane| {
                        args.clear();
                        args.extend((first..first + n).map(|a| regs[a & 255][lane].clone()));
                        calls.list(host, args).ok()
                    })
                }
                // Lanes read literals only, so nothing is being evaluated that an
                // inlined attribute could come back to, and a fresh evaluation
                // reads no code.
                Op::InlineEnter | Op::InlineLeave | Op::FreshEnter | Op::FreshLeave => {}
                // A failing lane is left to the pair-by-pair machine, which fails.
                // (`SelectPath` is resolved pair by pair: see `work_out_lane_depth`.)
                Op::Reference | Op::Fail | Op::SelectPath => active = 0,
                op => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let (a, b) = (r(a), r(b));
                    per_lane!(dst, |lane| binary(op, &regs[a][lane], &regs[b][lane]))
                }
            }
        }
        st.regs = Some(file);
        self.lanes = st;
    }
}

/// The depth a lane's evaluation of `p` reaches below the attribute reference,
/// reading literals only (as the machine computes it): `None` when `p` is too
/// long for the lanes' share of the step budget.
pub(crate) fn lane_depth(p: &Program) -> Option<u32> {
    p.lane_depth.get_or(|| work_out_lane_depth(p))
}

/// [`lane_depth`], from the code.
fn work_out_lane_depth(p: &Program) -> Option<u32> {
    // Both Requirements of a match share the machine's step budget (10% of it here
    // each leaves ample room for the literal loads).
    if u64::from(p.nodes) > crate::machine::STEP_BOUND / 10 {
        return None;
    }
    // Folded values' exact steps: the lanes run two programs a pair without
    // counting, so each may take half the machine's bound on them.
    if u64::from(p.folded_steps) > crate::limits::MAX_FOLDED_STEPS / 2 {
        return None;
    }
    // `Reference`, `Fail` and `SelectPath` take the lanes that reach them out
    // (the last is resolved pair by pair: an arm for it in the lanes' loop
    // slowed it on every program), so they add nothing to the depth of the
    // lanes that finish: a program with one in a branch (a pilot's START
    // calling `evalInEachContext`) is still evaluated here for the others.
    Some(p.code.iter().fold(p.max_depth, |d, i| match i.operands() {
        Operands::Load(load) => d.max(u32::from(load.depth) + 1),
        _ => d,
    }))
}

/// A binary operator of the machine on two values; `None` for identity of two lists
/// (the front end's question) and for anything that is not a binary operator.
fn binary(op: Op, a: &Value, b: &Value) -> Option<Value> {
    if matches!(op, Op::Is | Op::Isnt) && matches!(a, Value::List(_)) && matches!(b, Value::List(_))
    {
        return None;
    }
    Some(op.binary()?.apply(a, b))
}
