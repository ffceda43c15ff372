//! The matcher's fast tier: one ad's Requirements against a block of TARGET ads,
//! with every register held as bit masks over the lanes and TARGET's attributes read
//! as columns ([`crate::columns`]), giving each lane's verdict on the match.
//!
//! A register holds, for each lane, the class of its value as the logical operators
//! see it ([`Logic`]). That is the whole value for booleans, undefined and error,
//! which is all that comparisons and logical operators produce. A value read from a
//! column is kept as a reference to the column ("raw"), so that a comparison or a
//! membership test of it reads the column. Whatever the tier cannot represent
//! exactly (arithmetic, builtin calls, a value whose origin was lost) takes the
//! lane out, and [`Machine::verdicts`] gives it to the value lanes
//! ([`Machine::eval_attr_lanes`]) and, failing those, to its caller.

use crate::ad::{Attr, CompiledAd};
use crate::columns::{ColSrc, TargetBlock};
use crate::instr::Op;
use crate::lanes::{lane_depth, LANES, MAX_DEPTH};
use crate::logic::{for_each_lane, Logic, Verdicts};
use crate::machine::{Host, Machine};
use crate::ops::Cmp;
use crate::program::{Program, TargetOnly};
use crate::value::Value;

/// One register of every lane.
#[derive(Clone, Copy, Debug, Default)]
struct Reg {
    logic: Logic,
    /// Lanes whose value is column `col`'s.
    raw: u64,
    col: u32,
    /// Lanes whose value is known only by its class (a number or a string that is
    /// not in a column): a comparison of it is left to the value lanes.
    opaque: u64,
}

impl Reg {
    /// Writes values that are exactly what their class says (booleans, undefined,
    /// error) in `lanes`; lanes classed `bad` become opaque.
    fn set_logic(&mut self, new: Logic, lanes: u64) {
        self.logic = self.logic.merge(new, lanes);
        self.raw &= !lanes;
        self.opaque = (self.opaque & !lanes) | (new.bad & lanes);
    }

    /// Writes `v` in `lanes`.
    fn set_value(&mut self, v: &Value, lanes: u64) {
        self.set_logic(Logic::of(v, lanes), lanes);
        if !matches!(v, Value::Bool(_) | Value::Undefined | Value::Error) {
            self.opaque |= lanes;
        }
    }

    /// Writes column `col` (classified as `logic`) in `lanes`.
    fn set_column(&mut self, logic: Logic, col: u32, lanes: u64) {
        self.assign(
            &Reg {
                logic,
                raw: lanes,
                col,
                opaque: 0,
            },
            lanes,
        );
    }

    /// Copies `src` in `lanes`. A register refers to one column: lanes left
    /// referring to another become opaque.
    fn assign(&mut self, src: &Reg, lanes: u64) {
        self.logic = self.logic.merge(src.logic, lanes);
        let (src_raw, keep_raw) = (src.raw & lanes, self.raw & !lanes);
        if src_raw != 0 {
            if keep_raw != 0 && self.col != src.col {
                self.opaque |= keep_raw;
                self.raw = src_raw;
            } else {
                self.raw = keep_raw | src_raw;
            }
            self.col = src.col;
        } else {
            self.raw = keep_raw;
        }
        self.opaque = (self.opaque & !lanes) | (src.opaque & lanes);
    }
}

/// State of [`Machine::verdicts`], kept between calls.
#[derive(Debug, Default)]
pub(crate) struct MaskState {
    /// Every register an 8-bit operand names, so accesses need no bounds checks.
    regs: Option<Box<[Reg; 256]>>,
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
            Attr::Code(p) if lane_depth(p).is_some_and(|d| site + 1 + d <= MAX_DEPTH) => {
                self.run_masks(p, my, block, wanted, host)
            }
            Attr::Code(_) => (Verdicts::default(), wanted),
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
        host: &mut dyn Host,
    ) -> (Verdicts, u64) {
        let mut st = std::mem::take(&mut self.masks);
        let regs = st
            .regs
            .get_or_insert_with(|| Box::new([Reg::default(); 256]));
        regs[..usize::from(p.nregs).min(256)].fill(Reg::default());
        st.pending.clear();
        st.pending.resize(p.code.len() + 1, 0);
        let (mut active, mut out, mut escaped) = (wanted, Verdicts::default(), 0u64);
        for (pc, ins) in p.code.iter().enumerate() {
            active |= std::mem::take(&mut st.pending[pc]);
            if active == 0 {
                continue;
            }
            let (dst, y, z) = (usize::from(ins.x), usize::from(ins.y), ins.z);
            let r = |reg: u32| reg as u8 as usize;
            // Sends the lanes of `$lanes` to the jump target (forward only; a lane
            // jumping anywhere else is taken out).
            macro_rules! jump {
                ($lanes:expr) => {{
                    let lanes: u64 = $lanes;
                    active &= !lanes;
                    let target = z as usize;
                    if target > pc && target < st.pending.len() {
                        st.pending[target] |= lanes;
                    } else {
                        escaped |= lanes;
                    }
                }};
            }
            match ins.op {
                Op::Const => regs[dst].set_value(&p.consts[z as usize], active),
                Op::Move => {
                    let src = regs[r(z)];
                    regs[dst].assign(&src, active);
                }
                Op::LoadMy => match my.get(z) {
                    Attr::Absent => regs[dst].set_value(&Value::Undefined, active),
                    Attr::Value(v) => regs[dst].set_value(v, active),
                    Attr::Code(_) => {
                        escaped |= active;
                        active = 0;
                    }
                },
                Op::LoadTarget | Op::TargetCached => {
                    let c = if ins.op == Op::LoadTarget {
                        block.slot(z)
                    } else {
                        self.cached_column(block, &p.target_only[z as usize], my, host)
                    };
                    let col = block.col(c);
                    escaped |= active & col.escape;
                    active &= !col.escape;
                    regs[dst].set_column(col.logic, c as u32, active);
                }
                Op::CmpTK => {
                    let (slot, cmp) = (z & 0xff_ffff, Cmp::from_code(z >> 24));
                    let c = block.slot(slot);
                    let value = |l: usize| lane_value(block, &self.target_cache, c, l);
                    let (v, out) =
                        block
                            .col(c)
                            .compare(cmp, &p.consts[y], active, block.ids(), value);
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::CmpK | Op::Member => {
                    let src = regs[if ins.op == Op::CmpK {
                        r(z)
                    } else {
                        r(y as u32)
                    }];
                    let (v, out) = if ins.op == Op::CmpK {
                        let (cmp, k) = (Cmp::from_code(z >> 8), &p.consts[y]);
                        Self::value_op(
                            &src,
                            active,
                            |col, lanes| {
                                let value =
                                    |l: usize| lane_value(block, &self.target_cache, col, l);
                                block.col(col).compare(cmp, k, lanes, block.ids(), value)
                            },
                            |v| crate::ops::compare(cmp, v, k),
                        )
                    } else {
                        let set = &p.sets[z as usize];
                        Self::value_op(
                            &src,
                            active,
                            |col, lanes| {
                                let value =
                                    |l: usize| lane_value(block, &self.target_cache, col, l);
                                block.col(col).member(set, lanes, block.ids(), value)
                            },
                            |v| set.contains(v),
                        )
                    };
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne | Op::Is | Op::Isnt => {
                    let (a, b) = (regs[r(u32::from(ins.y))], regs[r(z)]);
                    let (v, out) = self.compare_regs(block, cmp_of(ins.op), &a, &b, active);
                    escaped |= out;
                    active &= !out;
                    regs[dst].set_logic(v, active);
                }
                Op::Not => {
                    let v = Logic::negate(regs[r(z)].logic);
                    regs[dst].set_logic(v, active);
                }
                Op::And | Op::Or => {
                    let (a, b) = (regs[r(y as u32)].logic, regs[r(z)].logic);
                    let v = if ins.op == Op::And {
                        Logic::and(a, b)
                    } else {
                        Logic::or(a, b)
                    };
                    regs[dst].set_logic(v, active);
                }
                // `&&` and `||` decide on a false (true) left side, stored as the
                // boolean, and on error, kept.
                Op::JumpIfFalse | Op::JumpIfTrue => {
                    let decides = ins.op == Op::JumpIfTrue;
                    let v = regs[dst].logic;
                    let stored = active & if decides { v.t } else { v.f };
                    // Those lanes' class stays; their value is now exactly it.
                    regs[dst].raw &= !stored;
                    regs[dst].opaque &= !stored;
                    jump!(stored | (active & v.e));
                }
                Op::JumpIfDefined => jump!(active & !regs[dst].logic.u),
                Op::JumpIfNot => jump!(active & regs[dst].logic.f),
                Op::Jump => jump!(active),
                Op::TestTernary | Op::Test => {
                    // `?:` on a condition that is not a boolean (nor undefined or
                    // error) evaluates both branches in HTCondor: the value lanes'
                    // business. `ifThenElse` makes it an error.
                    let c = regs[r(y as u32)].logic.only(active);
                    let error = if ins.op == Op::Test {
                        c.e | c.bad
                    } else {
                        escaped |= c.bad;
                        active &= !c.bad;
                        c.e
                    };
                    regs[dst].set_value(&Value::Undefined, c.u);
                    regs[dst].set_value(&Value::Error, error);
                    jump!(c.u | error);
                }
                Op::Ret => {
                    let v = regs[r(z)].logic.only(active);
                    let one = Verdicts::of(v);
                    out.yes |= one.yes;
                    out.no |= one.no;
                    escaped |= active & !v.lanes();
                    active = 0;
                }
                // Lanes read literals only, so nothing is being evaluated that an
                // inlined attribute could come back to.
                Op::InlineEnter | Op::InlineLeave => {}
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

    /// A comparison or membership test of register `src` in `lanes`: `column`
    /// does the lanes holding a column's values, `one` gives the result for one
    /// exactly known value. Lanes holding a value known only by its class are
    /// taken out.
    fn value_op(
        src: &Reg,
        lanes: u64,
        column: impl Fn(usize, u64) -> (Logic, u64),
        one: impl Fn(&Value) -> Value,
    ) -> (Logic, u64) {
        let raw = lanes & src.raw;
        let opaque = lanes & (src.opaque | (src.logic.bad & !src.raw));
        let exact = lanes & !raw & !opaque;
        let (mut v, mut out) = if raw != 0 {
            column(src.col as usize, raw)
        } else {
            (Logic::default(), 0)
        };
        out |= opaque;
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

    /// `a cmp b` of two registers in `lanes` (`TARGET.Cpus == TARGET.TotalCpus`,
    /// a register against a column): two integer columns compared in bulk, the
    /// other lanes one by one on their values with the machine's own comparison,
    /// so exact by construction. Lanes a side knows only by class, or whose
    /// column does not know them, are taken out, as are lists and ads (whose
    /// identity is the front end's question).
    fn compare_regs(
        &self,
        block: &TargetBlock<'_>,
        cmp: Cmp,
        a: &Reg,
        b: &Reg,
        lanes: u64,
    ) -> (Logic, u64) {
        let raw = |x: &Reg| lanes & x.raw;
        let (ra, rb) = (raw(a), raw(b));
        let mut out =
            lanes & (a.opaque | (a.logic.bad & !a.raw) | b.opaque | (b.logic.bad & !b.raw));
        if ra != 0 {
            out |= ra & block.col(a.col as usize).escape;
        }
        if rb != 0 {
            out |= rb & block.col(b.col as usize).escape;
        }
        let lanes = lanes & !out;
        let mut v = Logic::default();
        let mut rest = lanes;
        if ra & rb & lanes != 0 {
            let (ca, cb) = (block.col(a.col as usize), block.col(b.col as usize));
            let ints = lanes & ra & rb & ca.int & cb.int;
            for_each_lane(ints, |l| {
                let (x, y) = (ca.ints[l], cb.ints[l]);
                let holds = match cmp {
                    Cmp::Lt => x < y,
                    Cmp::Le => x <= y,
                    Cmp::Gt => x > y,
                    Cmp::Ge => x >= y,
                    Cmp::Eq | Cmp::Is => x == y,
                    Cmp::Ne | Cmp::Isnt => x != y,
                };
                if holds {
                    v.t |= 1 << l;
                } else {
                    v.f |= 1 << l;
                }
            });
            rest &= !ints;
        }
        // A lane a register holds exactly is the value its class names.
        let classes = [
            Value::Bool(true),
            Value::Bool(false),
            Value::Undefined,
            Value::Error,
        ];
        let side = |x: &Reg, raw: u64, l: usize| -> &Value {
            if raw >> l & 1 == 1 {
                return lane_value(block, &self.target_cache, x.col as usize, l);
            }
            let bit = 1u64 << l;
            let class = &x.logic;
            &classes[if class.t & bit != 0 {
                0
            } else if class.f & bit != 0 {
                1
            } else if class.u & bit != 0 {
                2
            } else {
                3
            }]
        };
        for_each_lane(rest, |l| {
            let (x, y) = (side(a, ra, l), side(b, rb, l));
            if matches!(x, Value::List(_) | Value::Ad(_))
                || matches!(y, Value::List(_) | Value::Ad(_))
            {
                out |= 1 << l;
            } else {
                *v.mask_of(&crate::ops::compare(cmp, x, y)) |= 1 << l;
            }
        });
        (v.only(lanes & !out), out)
    }

    /// The column of a TARGET-only subexpression's values: computed first for
    /// every ad of the block that the cache lacks.
    fn cached_column(
        &mut self,
        block: &mut TargetBlock<'_>,
        sub: &TargetOnly,
        my: &CompiledAd,
        host: &mut dyn Host,
    ) -> usize {
        let src = ColSrc::Cached(sub.key);
        if let Some(c) = block.find(src) {
            return c;
        }
        for target in block.targets {
            self.prime_target_only(sub, my, target, host);
        }
        let cache = &self.target_cache;
        block.build(src, |ad| {
            cache.get(&(ad as *const CompiledAd as usize, sub.key))
        })
    }
}

/// The comparison of a comparison instruction.
fn cmp_of(op: Op) -> Cmp {
    match op {
        Op::Lt => Cmp::Lt,
        Op::Le => Cmp::Le,
        Op::Gt => Cmp::Gt,
        Op::Ge => Cmp::Ge,
        Op::Eq => Cmp::Eq,
        Op::Ne => Cmp::Ne,
        Op::Is => Cmp::Is,
        _ => Cmp::Isnt,
    }
}

/// Lane `l`'s value in column `c` (one the column knows).
fn lane_value<'v>(
    block: &'v TargetBlock<'_>,
    cache: &'v ahash::AHashMap<(usize, u64), Value>,
    c: usize,
    l: usize,
) -> &'v Value {
    let ad = block.targets[l];
    let v = match block.col(c).src {
        ColSrc::Slot(slot) => match ad.get(slot) {
            Attr::Value(v) => Some(v),
            _ => None,
        },
        ColSrc::Cached(key) => cache.get(&(ad as *const CompiledAd as usize, key)),
    };
    v.unwrap_or(&Value::Undefined)
}
