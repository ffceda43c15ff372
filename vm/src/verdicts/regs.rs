//! The bit-mask tier's registers: for each lane, the class of its value as the
//! logical operators see it, and where its exact value is when the class is not
//! the whole of it (a column of the block, or the register's own number lanes).

use crate::columns::{Column, TargetBlock};
use crate::lanes::LANES;
use crate::logic::Logic;
use crate::value::Value;

/// The machine's cache of TARGET-only values, by ad and subexpression.
pub(super) type TargetCache = ahash::AHashMap<(usize, u64), Value>;

/// The machine's closed values of TARGET ads' code, by ad and slot.
pub(super) type ClosedValues = ahash::AHashMap<(usize, u32), Option<crate::closed::Closed>>;

/// Where the values of a block's columns are when the ads do not hold them as
/// literals: the machine's caches.
#[derive(Clone, Copy)]
pub(super) struct Known<'v> {
    pub(super) cache: &'v TargetCache,
    pub(super) closed: &'v ClosedValues,
}

/// One register of every lane.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reg {
    pub(super) logic: Logic,
    /// Lanes whose value is column `col`'s.
    pub(super) raw: u64,
    pub(super) col: u32,
    /// Lanes whose value is a number held in the register's [`NumLanes`]: what
    /// arithmetic computed, or a numeric constant.
    pub(super) num: u64,
    /// Lanes whose value is known only by its class (a string that is not in a
    /// column, a time): a comparison of it is left to the value lanes.
    pub(super) opaque: u64,
}

impl Reg {
    /// Writes values that are exactly what their class says (booleans, undefined,
    /// error) in `lanes`; lanes classed `bad` become opaque.
    pub(super) fn set_logic(&mut self, new: Logic, lanes: u64) {
        self.logic = self.logic.merge(new, lanes);
        self.raw &= !lanes;
        self.num &= !lanes;
        self.opaque = (self.opaque & !lanes) | (new.bad & lanes);
    }

    /// Writes `v` in `lanes` (numbers go through [`Reg::set_number`]).
    pub(super) fn set_value(&mut self, v: &Value, lanes: u64) {
        self.set_logic(Logic::of(v, lanes), lanes);
        if !matches!(v, Value::Bool(_) | Value::Undefined | Value::Error) {
            self.opaque |= lanes;
        }
    }

    /// Writes `v` in `lanes`, numbers into `nums` (this register's number lanes).
    pub(super) fn set_number(&mut self, nums: &mut NumLanes, v: &Value, lanes: u64) {
        let n = match *v {
            Value::Int(i) => Num::Int(i),
            Value::Real(r) => Num::Real(r),
            _ => return self.set_value(v, lanes),
        };
        self.set_logic(Logic::of(v, lanes), lanes);
        self.num |= lanes;
        crate::logic::for_each_lane(lanes, |l| nums[l] = n);
    }

    /// Writes column `col` (classified as `logic`) in `lanes`.
    pub(super) fn set_column(&mut self, logic: Logic, col: u32, lanes: u64) {
        self.assign(
            &Reg {
                logic,
                raw: lanes,
                col,
                num: 0,
                opaque: 0,
            },
            lanes,
        );
    }

    /// Copies `src`'s masks in `lanes` (its number lanes are the caller's to
    /// copy). A register refers to one column: lanes left referring to another
    /// become opaque.
    pub(super) fn assign(&mut self, src: &Reg, lanes: u64) {
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
        self.num = (self.num & !lanes) | (src.num & lanes);
        self.opaque = (self.opaque & !lanes) | (src.opaque & lanes);
    }
}

/// A number of one lane, as the machine's arithmetic gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    Int(i64),
    Real(f64),
}

impl Num {
    /// The number as a real, as HTCondor promotes an integer (`as f64`).
    pub(super) fn real(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }

    /// True when the number is as a boolean (`Value::as_bool_equiv`): not zero.
    #[inline]
    pub(super) fn is_true(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            Num::Real(r) => r != 0.0,
        }
    }

    pub(super) fn value(self) -> Value {
        match self {
            Num::Int(i) => Value::Int(i),
            Num::Real(r) => Value::Real(r),
        }
    }
}

/// The numbers of one register, lane by lane (valid in the lanes of its `num`).
pub(super) type NumLanes = [Num; LANES];

/// One lane's value of a register, as an operator reads it.
pub(super) enum Operand<'v> {
    /// A value made here: a number, or what the lane's class says exactly.
    Own(Value),
    /// A value in a column.
    Ref(&'v Value),
    /// Not known here: the lane goes to the value lanes.
    Unknown,
}

impl Operand<'_> {
    /// The value, when known.
    pub(super) fn value(&self) -> Option<&Value> {
        match self {
            Operand::Own(v) => Some(v),
            Operand::Ref(v) => Some(v),
            Operand::Unknown => None,
        }
    }
}

/// Reads the lanes of one register: its masks, its number lanes, and the column
/// its raw lanes refer to.
pub(super) struct Reader<'v> {
    pub(super) reg: Reg,
    nums: &'v NumLanes,
    pub(super) col: Option<&'v Column>,
    block: &'v TargetBlock<'v>,
    known: Known<'v>,
}

impl<'v> Reader<'v> {
    /// A reader of `reg`, whose number lanes are `nums`, on `block` (whose
    /// columns' values beyond literals are in `known`).
    pub(super) fn new(
        reg: &Reg,
        nums: &'v NumLanes,
        block: &'v TargetBlock<'v>,
        known: Known<'v>,
    ) -> Reader<'v> {
        Reader {
            reg: *reg,
            nums,
            col: (reg.raw != 0).then(|| block.col(reg.col as usize)),
            block,
            known,
        }
    }

    /// The lanes holding an integer or a real (in the register's number lanes
    /// or in its column).
    pub(super) fn numbers(&self) -> u64 {
        let reg = &self.reg;
        reg.num | self.col.map_or(0, |c| reg.raw & (c.int | c.real))
    }

    /// Lane `l`'s number: `l` must be one of [`Reader::numbers`].
    #[inline]
    pub(super) fn number(&self, l: usize) -> Num {
        let bit = 1u64 << l;
        match self.col {
            Some(col) if self.reg.raw & bit != 0 => col.at(l),
            _ => self.nums[l],
        }
    }

    /// Where the numbers of `lanes` (each holding one) are, when in one
    /// place: all in the column, or all in the number lanes.
    #[inline]
    pub(super) fn source(&self, lanes: u64) -> Option<Source<'v>> {
        match self.col {
            Some(col) if lanes & !self.reg.raw == 0 => Some(Source::Column(col)),
            _ if lanes & !self.reg.num == 0 => Some(Source::Nums(self.nums)),
            _ => None,
        }
    }

    /// Lane `l`'s value: exact by construction, as each source holds it.
    pub(super) fn lane(&self, l: usize) -> Operand<'v> {
        let bit = 1u64 << l;
        let reg = &self.reg;
        if let Some(col) = self.col.filter(|_| reg.raw & bit != 0) {
            return if col.escape & bit != 0 {
                Operand::Unknown
            } else if col.int & bit != 0 {
                Operand::Own(Value::Int(col.ints[l]))
            } else if col.real & bit != 0 {
                Operand::Own(Value::Real(col.reals[l]))
            } else {
                Operand::Ref(super::lane_value(
                    self.block,
                    self.known,
                    reg.col as usize,
                    l,
                ))
            };
        }
        if reg.num & bit != 0 {
            return Operand::Own(self.nums[l].value());
        }
        if reg.opaque & bit != 0 {
            return Operand::Unknown;
        }
        let c = &reg.logic;
        Operand::Own(if c.t & bit != 0 {
            Value::Bool(true)
        } else if c.f & bit != 0 {
            Value::Bool(false)
        } else if c.u & bit != 0 {
            Value::Undefined
        } else if c.e & bit != 0 {
            Value::Error
        } else {
            return Operand::Unknown;
        })
    }
}

/// The numbers of some lanes of a register, in one place (see
/// [`Reader::source`]).
pub(super) enum Source<'v> {
    Column(&'v Column),
    Nums(&'v NumLanes),
}

/// Lane by lane numbers, as [`Reader::number`] reads them.
pub(super) trait Numbers {
    /// Lane `l`'s number (`l` must hold one).
    fn at(&self, l: usize) -> Num;
}

impl Numbers for Reader<'_> {
    #[inline(always)]
    fn at(&self, l: usize) -> Num {
        self.number(l)
    }
}

impl Numbers for Column {
    #[inline(always)]
    fn at(&self, l: usize) -> Num {
        if self.int >> l & 1 != 0 {
            Num::Int(self.ints[l])
        } else {
            Num::Real(self.reals[l])
        }
    }
}

impl Numbers for NumLanes {
    #[inline(always)]
    fn at(&self, l: usize) -> Num {
        self[l]
    }
}
