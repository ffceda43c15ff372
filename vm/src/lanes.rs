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
use crate::instr::Op;
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
            let (x, y, z) = (u32::from(ins.x), u32::from(ins.y), ins.z);
            // Jumps go forward; a lane that jumps anywhere else (no program of ours
            // does) never resumes, and so is left to the caller.
            let target = z as usize;
            let forward = target > pc && target < st.pending.len();
            let dst = x as u8 as usize;
            // Runs `$body` (an `Option<Value>`: `None` takes the lane out) for every
            // active lane and stores the results in `r[x]`. The instruction is
            // decoded once, outside the loop over lanes.
            macro_rules! per_lane {
                (|$lane:ident| $body:expr) => {{
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
            // Moves the active lanes for which `$cond` holds to the jump target,
            // after `$then`.
            macro_rules! jump_if {
            (|$lane:ident| $cond:expr) => {
                jump_if!(|$lane| $cond, {})
            };
            (|$lane:ident| $cond:expr, $then:block) => {{
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
            let r = |reg: u32| reg as u8 as usize;
            match ins.op {
                Op::Const => {
                    let k = &p.consts[z as usize];
                    per_lane!(|lane| Some(k.clone()))
                }
                Op::Move => {
                    let src = r(z);
                    per_lane!(|lane| Some(regs[src][lane].clone()))
                }
                Op::LoadMy => {
                    let v = match my.get(z) {
                        Attr::Absent => Some(Value::Undefined),
                        Attr::Value(v) => Some(v.clone()),
                        Attr::Code(_) => None,
                    };
                    per_lane!(|lane| v.clone())
                }
                Op::LoadTarget => per_lane!(|lane| match targets[lane].get(z) {
                    Attr::Absent => Some(Value::Undefined),
                    Attr::Value(v) => Some(v.clone()),
                    Attr::Code(_) => None,
                }),
                Op::CmpTK => {
                    let k = &p.consts[y as usize];
                    let (slot, cmp) = ins.cmp_tk_parts();
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
                            per_lane!(|lane| match targets[lane].get(slot) {
                                Attr::Value(Value::Int(a)) => Some(Value::Bool(test(*a, b))),
                                Attr::Value(v) => Some(ops::compare(cmp, v, k)),
                                Attr::Absent => Some(ops::compare(cmp, &Value::Undefined, k)),
                                Attr::Code(_) => None,
                            })
                        }
                        _ => per_lane!(|lane| match targets[lane].get(slot) {
                            Attr::Absent => Some(ops::compare(cmp, &Value::Undefined, k)),
                            Attr::Value(v) => Some(ops::compare(cmp, v, k)),
                            Attr::Code(_) => None,
                        }),
                    }
                }
                Op::CmpK => {
                    let (src, cmp) = ins.cmp_k_parts();
                    let (k, src) = (&p.consts[y as usize], r(src));
                    per_lane!(|lane| Some(ops::compare(cmp, &regs[src][lane], k)))
                }
                Op::Neg | Op::Plus | Op::Not | Op::BitNot => {
                    let f = match ins.op {
                        Op::Neg => ops::neg,
                        Op::Plus => ops::plus,
                        Op::Not => ops::not,
                        _ => ops::bit_not,
                    };
                    let src = r(z);
                    per_lane!(|lane| Some(f(&regs[src][lane])))
                }
                Op::Member => {
                    let (set, src) = (&p.sets[z as usize], r(y));
                    per_lane!(|lane| Some(set.contains(&regs[src][lane])))
                }
                Op::And => {
                    let (a, b) = (r(y), r(z));
                    per_lane!(|lane| Some(ops::and(&regs[a][lane], &regs[b][lane])))
                }
                Op::Or => {
                    let (a, b) = (r(y), r(z));
                    per_lane!(|lane| Some(ops::or(&regs[a][lane], &regs[b][lane])))
                }
                // `&&` and `||` decide on a false (true) left side, stored as the
                // boolean, and on error, kept.
                Op::JumpIfFalse | Op::JumpIfTrue => {
                    let decides = ins.op == Op::JumpIfTrue;
                    jump_if!(
                        |lane| {
                            let v = &regs[dst][lane];
                            v.is_error() || v.as_bool_equiv() == Some(decides)
                        },
                        {
                            if !regs[dst][lane].is_error() {
                                regs[dst][lane] = Value::Bool(decides);
                            }
                        }
                    )
                }
                Op::JumpIfDefined => jump_if!(|lane| !regs[dst][lane].is_undefined()),
                Op::JumpIfNot => {
                    jump_if!(|lane| regs[dst][lane].as_bool_equiv() == Some(false))
                }
                Op::Jump => jump_if!(|lane| true),
                Op::TestTernary => {
                    // `?:` on a condition that is not a boolean evaluates both
                    // branches in HTCondor: that lane goes to the caller.
                    let cond = r(y);
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
                    let cond = r(y);
                    let outcome = |c: &Value| match c {
                        Value::Undefined => Some(Value::Undefined),
                        _ if c.as_bool_equiv().is_none() => Some(Value::Error),
                        _ => None,
                    };
                    jump_if!(|lane| outcome(&regs[cond][lane]).is_some(), {
                        regs[dst][lane] = outcome(&regs[cond][lane]).unwrap_or(Value::Error)
                    })
                }
                Op::TargetCached => {
                    let key = p.target_only[z as usize].key;
                    let cache = &self.target_cache;
                    per_lane!(|lane| {
                        let ad = targets[lane] as *const CompiledAd as usize;
                        cache.get(&(ad, key)).cloned()
                    })
                }
                Op::Call => {
                    let (native, argc) = ins.call_parts();
                    let first = y;
                    let (args, calls) = (&mut st.args, &mut self.calls);
                    per_lane!(|lane| {
                        args.clear();
                        args.extend((first..first + argc).map(|a| regs[r(a)][lane].clone()));
                        calls.call(host, native, args).ok()
                    })
                }
                Op::Index => {
                    let (a, b) = (r(y), r(z));
                    per_lane!(|lane| host.index(&regs[a][lane], &regs[b][lane]).ok())
                }
                Op::Ret => {
                    let src = r(z);
                    let mut lanes = active;
                    while lanes != 0 {
                        let lane = lanes.trailing_zeros() as usize & (LANES - 1);
                        lanes &= lanes - 1;
                        out[lane] = Some(std::mem::take(&mut regs[src][lane]));
                    }
                    active = 0;
                }
                Op::List => {
                    let (first, n) = (y, z);
                    let (args, calls) = (&mut st.args, &mut self.calls);
                    per_lane!(|lane| {
                        args.clear();
                        args.extend((first..first + n).map(|a| regs[r(a)][lane].clone()));
                        calls.list(host, args).ok()
                    })
                }
                // Lanes read literals only, so nothing is being evaluated that an
                // inlined attribute could come back to, and a fresh evaluation
                // reads no code.
                Op::InlineEnter | Op::InlineLeave | Op::FreshEnter | Op::FreshLeave => {}
                // A failing lane is left to the pair-by-pair machine, which fails.
                Op::Reference | Op::Fail => active = 0,
                op => {
                    let (a, b) = (r(y), r(z));
                    per_lane!(|lane| binary(op, &regs[a][lane], &regs[b][lane]))
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
    Some(p.code.iter().fold(p.max_depth, |d, i| match i.op {
        Op::LoadMy | Op::LoadTarget => d.max(u32::from(i.y) + 1),
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
