//! The matcher's fast tier: one ad's Requirements against a block of TARGET ads,
//! with every register held as bit masks over the lanes and TARGET's attributes read
//! as columns ([`crate::columns`]), giving each lane's verdict on the match.
//!
//! A register holds, for each lane, the class of its value as the logical operators
//! see it ([`Logic`]). That is the whole value for booleans, undefined and error,
//! which is all that comparisons and logical operators produce. A value read from a
//! column is kept as a reference to the column ("raw"), so that a comparison or a
//! membership test of it reads the column; a number that arithmetic computed, or
//! a numeric constant, in the register's number lanes (module `regs`). Whatever the
//! tier cannot represent exactly (builtin calls, strings and times it computed, a
//! value whose origin was lost) takes the lane out, and [`Machine::verdicts`]
//! gives it to the value lanes ([`Machine::eval_attr_lanes`]) and, failing
//! those, to its caller.

use crate::ad::{Attr, CompiledAd};
use crate::closed::Closed;
use crate::columns::{ColSrc, Column, TargetBlock};
use crate::instr::{form, Op};
use crate::lanes::{lane_depth, LANES, MAX_DEPTH};
use crate::logic::{for_each_lane, Logic, Verdicts};
use crate::machine::{Host, Machine, STEP_BOUND};
use crate::ops::{self, Arith, Binary, Cmp};
use crate::program::Program;
use crate::value::Value;
use regs::{Known, Num, NumLanes, Numbers, Reader, Reg};

mod regs;
mod target_only;

/// State of [`Machine::verdicts`], kept between calls.
#[derive(Debug, Default)]
pub(crate) struct MaskState {
    /// Every register an 8-bit operand names, so accesses need no bounds checks.
    regs: Option<Box<[Reg; 256]>>,
    /// The number lanes of every register.
    nums: Option<Box<[NumLanes; 256]>>,
    /// Lanes waiting to resume at each instruction (jumps only go forward).
    pending: Vec<u64>,
    /// Results of the value lanes.
    values: Vec<Option<Value>>,
}

impl Machine {
    /// Attribute `slot` of `my` (a Requirements), evaluated with each ad of `block`
    /// as TARGET at depth `site`, as [`Machine::eval_attr`] would evaluate it:
    /// each lane of `wanted` gets a verdict, or is `unknown` when the pair must be
    /// evaluated by [`Machine::eval_attr`]. The block's columns are built as the
    /// program reads them and serve every later call on the block.
    pub fn verdicts(
        &mut self,
        my: &CompiledAd,
        slot: u32,
        site: u32,
        block: &mut TargetBlock<'_>,
        wanted: u64,
        host: &mut dyn Host,
    ) -> Verdicts {
        let (mut verdicts, unsure) = self.mask_verdicts(my, slot, site, block, wanted, host);
        if unsure != 0 {
            let mut out = std::mem::take(&mut self.masks.values);
            self.eval_attr_lanes(my, slot, site, block.targets, unsure, host, &mut out);
            for (l, v) in out.iter().enumerate() {
                let lane = 1u64 << l;
                if unsure & lane == 0 {
                    continue;
                }
                match v {
                    Some(v) => {
                        let one = Verdicts::of(Logic::of(v, lane));
                        verdicts.yes |= one.yes;
                        verdicts.no |= one.no;
                    }
                    None => verdicts.unknown |= lane,
                }
            }
            self.masks.values = out;
        }
        verdicts
    }

    /// The bit-mask tier of [`Machine::verdicts`] alone: the verdicts of the lanes
    /// it decides, and the lanes it leaves (which `verdicts` gives to the value
    /// lanes). Tools and tests use it to see how much of a pool the tier covers.
    pub fn mask_verdicts(
        &mut self,
        my: &CompiledAd,
        slot: u32,
        site: u32,
        block: &mut TargetBlock<'_>,
        wanted: u64,
        host: &mut dyn Host,
    ) -> (Verdicts, u64) {
        let n = block.targets.len();
        let wanted = wanted & if n == LANES { u64::MAX } else { (1 << n) - 1 };
        match my.get(slot) {
            Attr::Absent => (Verdicts::of(Logic::of(&Value::Undefined, wanted)), 0),
            Attr::Value(v) => (Verdicts::of(Logic::of(v, wanted)), 0),
            Attr::Code(p) => match lane_depth(p) {
                Some(d) if site + 1 + d <= MAX_DEPTH => {
                    self.run_masks(p, my, block, wanted, (site, d), host)
                }
                _ => (Verdicts::default(), wanted),
            },
        }
    }

    /// Runs `p` on the lanes of `wanted`: the verdicts of the lanes that finish,
    /// and the lanes taken out.
    fn run_masks(
        &mut self,
        p: &Program,
        my: &CompiledAd,
        block: &mut TargetBlock<'_>,
        wanted: u64,
        at: (u32, u32),
        host: &mut dyn Host,
    ) -> (Verdicts, u64) {
        let mut st = std::mem::take(&mut self.masks);
        let regs = st
            .regs
            .get_or_insert_with(|| Box::new([Reg::default(); 256]));
        regs[..usize::from(p.nregs).min(256)].fill(Reg::default());
        // (Valid only where a register's `num` says: never cleared.)
        let nums = st.nums.get_or_insert_with(|| {
            vec![[Num::Int(0); LANES]; 256]
                .into_boxed_slice()
                .try_into()
                .expect("256 registers")
        });
        st.pending.clear();
        st.pending.resize(p.code.len() + 1, 0);
        let (mut active, mut out, mut escaped) = (wanted, Verdicts::default(), 0u64);
        for (pc, ins) in p.code.iter().enumerate() {
            active |= std::mem::take(&mut st.pending[pc]);
            if active == 0 {
                continue;
            }
            let ins = *ins;
            let r = usize::from;
            // Sends the lanes of `$lanes` to jump target `$target` (forward only;
            // a lane jumping anywhere else is taken out).
            macro_rules! jump {
                ($target:expr, $lanes:expr) => {{
                    let lanes: u64 = $lanes;
                    active &= !lanes;
                    let target = $target as usize;
                    if target > pc && target < st.pending.len() {
                        st.pending[target] |= lanes;
                    } else {
                        escaped |= lanes;
                    }
                }};
            }
            match ins.op() {
                Op::Const => {
                    let form::Const { dst, konst } = form::Const::of(ins);
                    let (dst, k) = (r(dst), &p.consts[konst as usize]);
                    match k {
                        Value::Str(s) => match block.constant(s) {
                            Some(c) => regs[dst].set_column(block.col(c).logic, c as u32, active),
                            None => regs[dst].set_value(k, active),
                        },
                        v => regs[dst].set_number(&mut nums[dst], v, active),
                    }
                }
                Op::Move => {
                    let form::Unary { dst, src: from } = form::Unary::of(ins);
                    let (dst, from) = (r(dst), r(from));
                    let src = regs[from];
                    regs[dst].assign(&src, active);
                    if from != dst {
                        for_each_lane(src.num & active, |l| nums[dst][l] = nums[from][l]);
                    }
                }
                Op::LoadMy => {
                    let form::Load { dst, slot, .. } = form::Load::of(ins);
                    let dst = r(dst);
                    match my.get(slot) {
                        Attr::Absent => regs[dst].set_value(&Value::Undefined, active),
                        Attr::Value(v) => regs[dst].set_number(&mut nums[dst], v, active),
                        Attr::Code(_) => {
                            escaped |= active;
                            active = 0;
                        }
                    }
                }
                Op::LoadTarget | Op::TargetCached => {
                    let (dst, c) = if ins.op() == Op::LoadTarget {
                        let form::Load { dst, slot, .. } = form::Load::of(ins);
                        let c = block.slot(slot);
                        if block.col(c).unsure() != 0 {
                            let out = self.closed_lanes(block, c, slot, (p, my, at), host);
                            escaped |= active & out;
                            active &= !out;
                        }
                        (r(dst), c)
                    } else {
                        let form::TargetCached { dst, sub, .. } = form::TargetCached::of(ins);
                        let sub = &p.target_only[sub as usize];
                        (r(dst), self.cached_column(block, sub, my, host))
                    };
                    let col = block.col(c);
                    escaped |= active & col.escape;
                    active &= !col.escape;
                    regs[dst].set_column(col.logic, c as u32, active);
                }
                Op::CmpTK => {
                    let o = form::CmpTK::of(ins);
                    let (dst, konst, slot, cmp) = (o.dst, o.konst, o.slot, o.cmp);
                    let (dst, slot) = (r(dst), slot.get());
                    let c = block.slot(slot);
                    if block.col(c).unsure() != 0 {
                        let out = self.closed_lanes(block, c, slot, (p, my, at), host);
                        escaped |= active & out;
                        active &= !out;
                    }
                    let value = |l: usize| lane_value(block, self.known(), c, l);
                    let (v, out) = block.col(c).compare(
                        cmp,
                        &p.consts[usize::from(konst)],
                        active,
                        block.ids(),
                        value,
                    );
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::CmpK | Op::Member => {
                    // (Decoded by the op: the two shapes, one arm.)
                    let is_cmp = ins.op() == Op::CmpK;
                    let (dst, from) = if is_cmp {
                        let c = form::CmpK::of(ins);
                        (c.dst, c.src)
                    } else {
                        let m = form::Member::of(ins);
                        (m.dst, m.src)
                    };
                    let (dst, from) = (r(dst), r(from));
                    let (src, src_nums) = (regs[from], &nums[from]);
                    let (v, out) = if is_cmp {
                        let c = form::CmpK::of(ins);
                        let (cmp, k) = (c.cmp, &p.consts[usize::from(c.konst)]);
                        Self::value_op(
                            &src,
                            src_nums,
                            active,
                            |col, lanes| {
                                let value = |l: usize| lane_value(block, self.known(), col, l);
                                block.col(col).compare(cmp, k, lanes, block.ids(), value)
                            },
                            |v| ops::compare(cmp, v, k),
                            |n| match (n, k) {
                                (Num::Int(x), Value::Int(y)) => Some(ops::compare_ints(cmp, x, *y)),
                                _ if matches!(cmp, Cmp::Is | Cmp::Isnt) => None,
                                (n, Value::Int(y)) => {
                                    Some(ops::compare_reals(cmp, n.real(), *y as f64))
                                }
                                (n, Value::Real(y)) => Some(ops::compare_reals(cmp, n.real(), *y)),
                                _ => None,
                            },
                        )
                    } else {
                        let set = &p.sets[form::Member::of(ins).set as usize];
                        Self::value_op(
                            &src,
                            src_nums,
                            active,
                            |col, lanes| {
                                let value = |l: usize| lane_value(block, self.known(), col, l);
                                block.col(col).member(set, lanes, block.ids(), value)
                            },
                            |v| set.contains(v),
                            |_| None,
                        )
                    };
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne | Op::Is | Op::Isnt => {
                    let form::Binary { dst, a: ia, b: ib } = form::Binary::of(ins);
                    let (dst, ia, ib) = (r(dst), r(ia), r(ib));
                    let (a, b) = (regs[ia], regs[ib]);
                    let known = self.known();
                    let (a, b) = (
                        Reader::new(&a, &nums[ia], block, known),
                        Reader::new(&b, &nums[ib], block, known),
                    );
                    let (v, out) = compare_regs(cmp_of(ins.op()), &a, &b, active);
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mod | Op::Neg | Op::Plus => {
                    // (A unary operator's operand is read as `b`.)
                    let (dst, ia, ib) = if matches!(ins.op(), Op::Neg | Op::Plus) {
                        let o = form::Unary::of(ins);
                        (o.dst, o.src, o.src)
                    } else {
                        let o = form::Binary::of(ins);
                        (o.dst, o.a, o.b)
                    };
                    let (dst, ia, ib) = (r(dst), r(ia), r(ib));
                    let (ra, rb) = (regs[ia], regs[ib]);
                    let known = self.known();
                    let mut computed = [Num::Int(0); LANES];
                    let (v, num, other, out) = {
                        let b = Reader::new(&rb, &nums[ib], block, known);
                        if matches!(ins.op(), Op::Neg | Op::Plus) {
                            let f = if ins.op() == Op::Neg {
                                ops::neg
                            } else {
                                ops::plus
                            };
                            compute(active, &mut computed, |l| b.lane(l).value().map(f))
                        } else {
                            let a = Reader::new(&ra, &nums[ia], block, known);
                            let op = arith_of(ins.op());
                            let both = a.numbers() & b.numbers();
                            if active & !both == 0 {
                                let (v, num) = arith_numbers(op, &a, &b, active, &mut computed);
                                (v, num, 0, 0)
                            } else {
                                compute(active, &mut computed, |l| {
                                    // Two numbers as `ops::arith` computes them
                                    // once it has found both numbers; the rest by it.
                                    if both >> l & 1 == 0 {
                                        return Some(ops::arith(
                                            op,
                                            a.lane(l).value()?,
                                            b.lane(l).value()?,
                                        ));
                                    }
                                    Some(match (a.number(l), b.number(l)) {
                                        (Num::Int(x), Num::Int(y)) => ops::int_arith(op, x, y),
                                        (x, y) => ops::real_arith(op, x.real(), y.real()),
                                    })
                                })
                            }
                        }
                    };
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                    regs[dst].num |= num & active;
                    regs[dst].opaque |= other & active;
                    for_each_lane(num & active, |l| nums[dst][l] = computed[l]);
                }
                Op::Not => {
                    let form::Unary { dst, src } = form::Unary::of(ins);
                    let v = Logic::negate(regs[r(src)].logic);
                    regs[r(dst)].set_logic(v, active);
                }
                Op::And | Op::Or => {
                    let form::Binary { dst, a, b } = form::Binary::of(ins);
                    let dst = r(dst);
                    let (a, b) = (regs[r(a)].logic, regs[r(b)].logic);
                    let v = if ins.op() == Op::And {
                        Logic::and(a, b)
                    } else {
                        Logic::or(a, b)
                    };
                    regs[dst].set_logic(v, active);
                }
                // `&&` and `||` decide on a false (true) left side, stored as the
                // boolean, and on error, kept.
                Op::JumpIfFalse | Op::JumpIfTrue => {
                    let decides = ins.op() == Op::JumpIfTrue;
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    let cond = r(cond);
                    let v = regs[cond].logic;
                    let stored = active & if decides { v.t } else { v.f };
                    // Those lanes' class stays; their value is now exactly it.
                    regs[cond].raw &= !stored;
                    regs[cond].num &= !stored;
                    regs[cond].opaque &= !stored;
                    jump!(target, stored | (active & v.e));
                }
                Op::JumpIfDefined => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    jump!(target, active & !regs[r(cond)].logic.u)
                }
                Op::JumpIfNot => {
                    let form::Branch { cond, target } = form::Branch::of(ins);
                    jump!(target, active & regs[r(cond)].logic.f)
                }
                Op::Jump => jump!(form::Jump::of(ins).target, active),
                Op::TestTernary | Op::Test => {
                    let form::Test { dst, cond, target } = form::Test::of(ins);
                    let dst = r(dst);
                    // `?:` on a condition that is not a boolean (nor undefined or
                    // error) evaluates both branches in HTCondor: the value lanes'
                    // business. `ifThenElse` makes it an error.
                    let c = regs[r(cond)].logic.only(active);
                    let error = if ins.op() == Op::Test {
                        c.e | c.bad
                    } else {
                        escaped |= c.bad;
                        active &= !c.bad;
                        c.e
                    };
                    regs[dst].set_value(&Value::Undefined, c.u);
                    regs[dst].set_value(&Value::Error, error);
                    jump!(target, c.u | error);
                }
                Op::Ret => {
                    let v = regs[r(form::Ret::of(ins).src)].logic.only(active);
                    let one = Verdicts::of(v);
                    out.yes |= one.yes;
                    out.no |= one.no;
                    escaped |= active & !v.lanes();
                    active = 0;
                }
                // The clock: read once for the block (see `Host::shared_by_block`).
                Op::Call
                    if form::Call::of(ins).argc == 0
                        && host.shared_by_block(form::Call::of(ins).native.get()) =>
                {
                    let form::Call { dst, native, .. } = form::Call::of(ins);
                    let dst = r(dst);
                    match host.call(native.get(), &[]) {
                        Ok(v) => regs[dst].set_number(&mut nums[dst], &v, active),
                        Err(_) => {
                            escaped |= active;
                            active = 0;
                        }
                    }
                }
                // Lanes read literals only, so nothing is being evaluated that an
                // inlined attribute could come back to.
                Op::InlineEnter | Op::InlineLeave | Op::FreshEnter | Op::FreshLeave => {}
                _ => {
                    escaped |= active;
                    active = 0;
                }
            }
        }
        escaped |= active | st.pending.last().copied().unwrap_or(0);
        self.masks = st;
        (out, escaped)
    }

    /// A comparison or membership test of register `src` (whose number lanes
    /// are `nums`) in `lanes`: `column` does the lanes holding a column's
    /// values, `one` gives the result for one exactly known value, `number`
    /// the boolean result for a number when it knows it faster (`one` does the
    /// rest). Lanes holding a value known only by its class are taken out.
    fn value_op(
        src: &Reg,
        nums: &NumLanes,
        lanes: u64,
        column: impl Fn(usize, u64) -> (Logic, u64),
        one: impl Fn(&Value) -> Value,
        number: impl Fn(Num) -> Option<bool>,
    ) -> (Logic, u64) {
        let raw = lanes & src.raw;
        let num = lanes & src.num;
        let opaque = lanes & (src.opaque | (src.logic.bad & !src.raw));
        let exact = lanes & !raw & !num & !opaque;
        let (mut v, mut out) = if raw != 0 {
            column(src.col as usize, raw)
        } else {
            (Logic::default(), 0)
        };
        out |= opaque;
        for_each_lane(num, |l| match number(nums[l]) {
            Some(true) => v.t |= 1 << l,
            Some(false) => v.f |= 1 << l,
            None => *v.mask_of(&one(&nums[l].value())) |= 1 << l,
        });
        let l = src.logic.only(exact);
        for (mask, x) in [
            (l.t, Value::Bool(true)),
            (l.f, Value::Bool(false)),
            (l.u, Value::Undefined),
            (l.e, Value::Error),
        ] {
            if mask != 0 {
                *v.mask_of(&one(&x)) |= mask;
            }
        }
        (v, out)
    }

    /// Where the values of `block`'s columns are beyond the ads' literals.
    fn known(&self) -> Known<'_> {
        Known {
            cache: &self.target_cache,
            closed: &self.closed,
        }
    }

    /// The lanes of column `c` (TARGET's attribute `slot`, read by program `p`
    /// of `my` evaluated at `at`: site, and the depth of its lanes there) that
    /// hold closed values (module `closed`) `my` cannot use: those that read a
    /// name `my` has, and all of them when one took more than `p` leaves
    /// ([`Room`]). Fills the column's lanes that hold code first, once.
    #[cold]
    #[inline(never)]
    fn closed_lanes(
        &mut self,
        block: &mut TargetBlock<'_>,
        c: usize,
        slot: u32,
        (p, my, (site, depth)): (&Program, &CompiledAd, (u32, u32)),
        host: &mut dyn Host,
    ) -> u64 {
        if !block.col(c).closed_tried {
            let mut lanes = block.col(c).escape;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                if let Some(v) = self.closed_value(block.targets[l], slot, host) {
                    block.fill_closed(c, l, &v.value, (&v.absent, v.depth, v.cost));
                }
            }
            block.closed_filled(c);
        }
        let col = block.col(c);
        if col.closed == 0 {
            return 0;
        }
        let room = Room::of(p, site, depth);
        if col.closed_depth > room.depth || col.closed_cost > room.cost {
            return col.closed;
        }
        col.closed_by_names
            .iter()
            .filter(|(names, _)| !Closed::holds_against(names, my))
            .fold(0, |out, (_, lanes)| out | lanes)
    }
}

/// `a cmp b` of two registers in `lanes` (`TARGET.Cpus == TARGET.TotalCpus`,
/// a register against a column or a computed number): two integer columns
/// compared in bulk, the other lanes one by one on their values with the
/// machine's own comparison, so exact by construction. Lanes a side does not
/// know are taken out, as are lists and ads (whose identity is the front end's
/// question).
fn compare_regs(cmp: Cmp, a: &Reader<'_>, b: &Reader<'_>, lanes: u64) -> (Logic, u64) {
    let mut v = Logic::default();
    let mut rest = lanes;
    if let (Some(ca), Some(cb)) = (a.col, b.col) {
        let ints = lanes & a.reg.raw & b.reg.raw & ca.int & cb.int;
        for_each_lane(ints, |l| {
            if ops::compare_ints(cmp, ca.ints[l], cb.ints[l]) {
                v.t |= 1 << l;
            } else {
                v.f |= 1 << l;
            }
        });
        rest &= !ints;
        // Other numbers (an integer against a real, two reals) as reals, as
        // HTCondor promotes them; NaN makes all but `!=` false. (Identity tells
        // an integer from a real: left to the lanes below.)
        let numbers = |c: &Column| c.int | c.real;
        let reals = rest & a.reg.raw & b.reg.raw & numbers(ca) & numbers(cb);
        if reals != 0 && !matches!(cmp, Cmp::Is | Cmp::Isnt) {
            for_each_lane(reals, |l| {
                let holds = ops::compare_reals(cmp, ca.reals[l], cb.reals[l]);
                *if holds { &mut v.t } else { &mut v.f } |= 1 << l;
            });
            rest &= !reals;
        }
        // Strings tested for equality or identity: by their identities in the
        // block's store.
        let strs = rest & a.reg.raw & b.reg.raw & ca.str & cb.str;
        if strs != 0 && !matches!(cmp, Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) {
            let same = ca.same_strings(cb, strs, matches!(cmp, Cmp::Is | Cmp::Isnt));
            let holds = if matches!(cmp, Cmp::Eq | Cmp::Is) {
                same
            } else {
                strs & !same
            };
            v.t |= holds;
            v.f |= strs & !holds;
            rest &= !strs;
        }
    }
    let mut out = 0;
    for_each_lane(rest, |l| {
        let (x, y) = (a.lane(l), b.lane(l));
        match (x.value(), y.value()) {
            (Some(x), Some(y))
                if !matches!(x, Value::List(_) | Value::Ad(_))
                    && !matches!(y, Value::List(_) | Value::Ad(_)) =>
            {
                *v.mask_of(&crate::ops::compare(cmp, x, y)) |= 1 << l;
            }
            _ => out |= 1 << l,
        }
    });
    (v.only(lanes & !out), out)
}

/// Runs `f` (a lane's result, `None` when not known here) on each lane of
/// `lanes`, keeping numbers in `nums`: the results' classes, the lanes holding
/// a number, the lanes holding a value the tier cannot hold (a time), and the
/// lanes `f` did not know.
fn compute(
    lanes: u64,
    nums: &mut NumLanes,
    mut f: impl FnMut(usize) -> Option<Value>,
) -> (Logic, u64, u64, u64) {
    let (mut v, mut num, mut other, mut out) = (Logic::default(), 0, 0, 0);
    for_each_lane(lanes, |l| {
        let bit = 1u64 << l;
        let Some(x) = f(l) else {
            out |= bit;
            return;
        };
        *v.mask_of(&x) |= bit;
        match x {
            Value::Int(i) => {
                nums[l] = Num::Int(i);
                num |= bit;
            }
            Value::Real(r) => {
                nums[l] = Num::Real(r);
                num |= bit;
            }
            Value::Bool(_) | Value::Undefined | Value::Error => {}
            _ => other |= bit,
        }
    });
    (v, num, other, out)
}

/// `a op b` in `lanes`, every one of which holds two numbers: the numbers'
/// arithmetic (`ops::int_arith_checked` and `real_arith_checked`, which the
/// machine's `ops::arith` computes with) with no value made per lane. The
/// results' classes and the lanes holding a number (the rest are errors).
fn arith_numbers(
    op: Arith,
    a: &Reader<'_>,
    b: &Reader<'_>,
    lanes: u64,
    nums: &mut NumLanes,
) -> (Logic, u64) {
    // Each operand's numbers read straight from where they all are (a column,
    // the number lanes), else lane by lane by the reader: one loop for each.
    use regs::Source::{Column as C, Nums as N};
    match (a.source(lanes), b.source(lanes)) {
        (Some(C(x)), Some(C(y))) => arith_lanes(op, x, y, lanes, nums),
        (Some(C(x)), Some(N(y))) => arith_lanes(op, x, y, lanes, nums),
        (Some(N(x)), Some(C(y))) => arith_lanes(op, x, y, lanes, nums),
        (Some(N(x)), Some(N(y))) => arith_lanes(op, x, y, lanes, nums),
        _ => arith_lanes(op, a, b, lanes, nums),
    }
}

/// [`arith_numbers`] on numbers read through `a` and `b`.
#[inline(always)]
fn arith_lanes<A: Numbers + ?Sized, B: Numbers + ?Sized>(
    op: Arith,
    a: &A,
    b: &B,
    lanes: u64,
    nums: &mut NumLanes,
) -> (Logic, u64) {
    let (mut v, mut num) = (Logic::default(), 0u64);
    for_each_lane(lanes, |l| {
        let bit = 1u64 << l;
        let n = match (a.at(l), b.at(l)) {
            (Num::Int(x), Num::Int(y)) => ops::int_arith_checked(op, x, y).map(Num::Int),
            (x, y) => ops::real_arith_checked(op, x.real(), y.real()).map(Num::Real),
        };
        match n {
            Some(n) => {
                nums[l] = n;
                num |= bit;
                if n.is_true() {
                    v.t |= bit;
                } else {
                    v.f |= bit;
                }
            }
            None => v.e |= bit,
        }
    });
    (v, num)
}

/// The operation of an arithmetic instruction.
fn arith_of(op: Op) -> Arith {
    match op.binary() {
        Some(Binary::Arith(a)) => a,
        _ => unreachable!("{op:?} is not arithmetic"),
    }
}

/// The comparison of a comparison instruction.
fn cmp_of(op: Op) -> Cmp {
    match op.binary() {
        Some(Binary::Cmp(c)) => c,
        _ => unreachable!("{op:?} is not a comparison"),
    }
}

/// What a program run on the bit-mask tier leaves of the machine's limits for
/// the closed values it reads (module `closed`), which the tier does not see
/// evaluated: depth below the deepest load, and steps per instruction.
#[derive(Clone, Copy, Debug)]
struct Room {
    depth: u32,
    cost: u64,
}

impl Room {
    /// The room program `p`, evaluated at `site` and reaching `lane_depth`
    /// there, leaves. A closed value is loaded, in the machine, below a site
    /// of the program (at most its whole depth deep, as `CmpTK` counts it);
    /// each load charges its steps again, and a program loads at most once
    /// per instruction, within the tier's tenth of the step budget.
    fn of(p: &Program, site: u32, lane_depth: u32) -> Room {
        let deepest = site + 2 + lane_depth.max(p.max_depth);
        let steps = (STEP_BOUND / 10).saturating_sub(u64::from(p.nodes));
        Room {
            depth: MAX_DEPTH.saturating_sub(deepest),
            cost: steps / (p.code.len() as u64).max(1),
        }
    }
}

/// Lane `l`'s value in column `c` (one the column knows).
fn lane_value<'v>(block: &'v TargetBlock<'_>, known: Known<'v>, c: usize, l: usize) -> &'v Value {
    let ad = block.targets[l];
    let at = ad as *const CompiledAd as usize;
    let v = match block.col(c).src {
        ColSrc::Slot(slot) => match ad.get(slot) {
            Attr::Value(v) => Some(v),
            Attr::Code(_) => known
                .closed
                .get(&(at, slot))
                .and_then(Option::as_ref)
                .map(|c| &c.value),
            Attr::Absent => None,
        },
        ColSrc::Cached(key) => known.cache.get(&(at, key)),
        ColSrc::Const(_) => Some(&block.col(c).constant),
    };
    v.unwrap_or(&Value::Undefined)
}

#[cfg(test)]
mod tests;
