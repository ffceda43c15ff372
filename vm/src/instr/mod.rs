//! The instruction set: fixed 8-byte register instructions.
//!
//! Every instruction is an [`Op`] and up to three operands in fixed places: an
//! 8-bit `X` (usually the destination register), a 16-bit `Y` and a 32-bit `Z`.
//! What each operation does, the operands it takes (its [`Shape`]) and the tiers
//! that run it are written once, in `table.rs`; the code that packs and reads
//! operands is generated from it (`define.rs`). Instructions are made and read
//! only through the operand structs of [`form`]: `form::Binary { dst, a, b
//! }.instr(Op::Add)`, and `form::Binary::of(ins)` back. [`Instr::operands`]
//! gives any instruction's operands, [`Instr::map_operands`] relocates them by
//! [`Kind`], and `Display` prints the assembly the golden files hold.

mod define;
mod table;
#[cfg(test)]
mod tiers;

pub use crate::ops::Cmp;
use crate::ops::{Arith, Binary, Bit};
use std::fmt;
pub use table::{form, Op, Operands, Shape};

/// The instructions that apply a binary operator to two registers, each with its
/// operator: the one list the compiler (`Op::of_binary`) and the machine's tiers
/// (`Op::binary`) read.
macro_rules! binary_instructions {
    ($($op:ident => [$($b:tt)+]),* $(,)?) => {
        impl Op {
            /// The operator of a binary instruction; `None` for any other.
            pub const fn binary(self) -> Option<Binary> {
                match self {
                    $(Op::$op => Some($($b)+),)*
                    _ => None,
                }
            }

            /// The instruction that applies `b` to two registers.
            pub const fn of_binary(b: Binary) -> Op {
                match b {
                    $($($b)+ => Op::$op,)*
                }
            }
        }
    };
}

binary_instructions! {
    Add => [Binary::Arith(Arith::Add)],
    Sub => [Binary::Arith(Arith::Sub)],
    Mul => [Binary::Arith(Arith::Mul)],
    Div => [Binary::Arith(Arith::Div)],
    Mod => [Binary::Arith(Arith::Mod)],
    Lt => [Binary::Cmp(Cmp::Lt)],
    Le => [Binary::Cmp(Cmp::Le)],
    Gt => [Binary::Cmp(Cmp::Gt)],
    Ge => [Binary::Cmp(Cmp::Ge)],
    Eq => [Binary::Cmp(Cmp::Eq)],
    Ne => [Binary::Cmp(Cmp::Ne)],
    Is => [Binary::Cmp(Cmp::Is)],
    Isnt => [Binary::Cmp(Cmp::Isnt)],
    BitAnd => [Binary::Bit(Bit::And)],
    BitOr => [Binary::Bit(Bit::Or)],
    BitXor => [Binary::Bit(Bit::Xor)],
    Shl => [Binary::Bit(Bit::Shl)],
    Shr => [Binary::Bit(Bit::Shr)],
    UShr => [Binary::Bit(Bit::UShr)],
    And => [Binary::And],
    Or => [Binary::Or],
}

/// One instruction: an operation and its operands, packed (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Instr {
    op: Op,
    x: u8,
    y: u16,
    z: u32,
}

/// Where an operand sits in an [`Instr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The 8-bit operand.
    X,
    /// The 16-bit operand.
    Y,
    /// The 32-bit operand.
    Z,
    /// Bits `lo .. lo + width` of the 32-bit operand.
    ZBits(u32, u32),
}

impl Place {
    /// How many bits an operand here can hold.
    pub const fn width(self) -> u32 {
        match self {
            Place::X => 8,
            Place::Y => 16,
            Place::Z => 32,
            Place::ZBits(_, w) => w,
        }
    }
}

/// What an operand means, for passes that move code (relocation renumbers
/// registers, constants, jump targets... each by its kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A register.
    Reg,
    /// An index into the program's constants.
    Konst,
    /// An attribute slot.
    Slot,
    /// The depth an instruction sits at in its expression.
    Depth,
    /// A jump target (an instruction index).
    Target,
    /// A builtin's id.
    Native,
    /// How many registers.
    Count,
    /// How many instructions.
    Length,
    /// An index into the program's constant collections.
    Set,
    /// An index into the program's TARGET-only subexpressions.
    Sub,
    /// An index into the program's selection paths.
    Path,
    /// A comparison ([`Cmp::code`]).
    Cmp,
}

/// How much of an operation a tier runs (see `table.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// For every operand value it meets.
    Always,
    /// For some operand values, handing the others to the next tier.
    Sometimes,
    /// Never: an evaluation that reaches it goes to the next tier.
    Never,
}

/// Which tiers run an operation: the pair-by-pair machine, the value lanes and
/// the bit-mask verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiers {
    /// The pair-by-pair machine (its next tier is the reference evaluator).
    pub machine: Runs,
    /// The value lanes (`crate::lanes`).
    pub lanes: Runs,
    /// The bit-mask verdicts (`crate::verdicts`).
    pub verdicts: Runs,
}

/// A 24-bit number: an operand that shares the 32-bit place with another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct U24(u32);

impl U24 {
    /// The largest value.
    pub const MAX: u32 = (1 << 24) - 1;

    /// `n`, when it fits in 24 bits.
    pub const fn new(n: u32) -> Option<U24> {
        if n <= Self::MAX {
            Some(U24(n))
        } else {
            None
        }
    }

    /// The number.
    #[inline(always)]
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for U24 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An operand's type: how it turns into the bits of its place and back.
pub trait Operand: Copy {
    /// The bits it needs.
    const BITS: u32;
    /// Its bits.
    fn bits(self) -> u32;
    /// The operand of `bits`, which fit (they came from [`Operand::bits`]).
    fn from_bits_masked(bits: u32) -> Self;
    /// The operand of `bits`; `None` when they do not fit.
    fn from_bits(bits: u32) -> Option<Self>;
}

macro_rules! unsigned_operand {
    ($($t:ty),*) => {$(
        impl Operand for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn bits(self) -> u32 {
                u32::from(self)
            }
            #[inline(always)]
            fn from_bits_masked(bits: u32) -> Self {
                bits as $t
            }
            fn from_bits(bits: u32) -> Option<Self> {
                <$t>::try_from(bits).ok()
            }
        }
    )*};
}

unsigned_operand!(u8, u16, u32);

impl Operand for U24 {
    const BITS: u32 = 24;
    #[inline(always)]
    fn bits(self) -> u32 {
        self.0
    }
    #[inline(always)]
    fn from_bits_masked(bits: u32) -> Self {
        U24(bits & U24::MAX)
    }
    fn from_bits(bits: u32) -> Option<Self> {
        U24::new(bits)
    }
}

impl Operand for Cmp {
    const BITS: u32 = 3;
    #[inline(always)]
    fn bits(self) -> u32 {
        u32::from(self.code())
    }
    #[inline(always)]
    fn from_bits_masked(bits: u32) -> Self {
        Cmp::from_code(bits)
    }
    fn from_bits(bits: u32) -> Option<Self> {
        (bits < 8).then(|| Cmp::from_code(bits))
    }
}

impl Instr {
    /// `op` with every operand place zero.
    #[inline(always)]
    const fn bare(op: Op) -> Instr {
        Instr {
            op,
            x: 0,
            y: 0,
            z: 0,
        }
    }

    /// `op` with every operand 0 (register `r0`, constant `k0`, `Cmp::Lt`...):
    /// for tests that go over every operation.
    pub const fn with_zero_operands(op: Op) -> Instr {
        Instr::bare(op)
    }

    /// The operation.
    #[inline(always)]
    pub fn op(self) -> Op {
        self.op
    }

    /// The bits at `place`.
    #[inline(always)]
    fn get(self, place: Place) -> u32 {
        match place {
            Place::X => u32::from(self.x),
            Place::Y => u32::from(self.y),
            Place::Z => self.z,
            Place::ZBits(lo, w) => (self.z >> lo) & (u32::MAX >> (32 - w)),
        }
    }

    /// Stores `bits` (which fit) at `place`.
    #[inline(always)]
    fn put(&mut self, place: Place, bits: u32) {
        debug_assert!(
            bits <= u32::MAX >> (32 - place.width()),
            "{bits} at {place:?}"
        );
        match place {
            Place::X => self.x = bits as u8,
            Place::Y => self.y = bits as u16,
            Place::Z => self.z = bits,
            Place::ZBits(lo, _) => self.z |= bits << lo,
        }
    }

    /// The jump target of a jump (`Branch`, `Test` or `Jump` shape) set to
    /// `to`: code emitted before its target is known is patched with it.
    pub fn with_target(self, to: u32) -> Instr {
        debug_assert!(matches!(
            self.op.shape(),
            Shape::Branch | Shape::Test | Shape::Jump
        ));
        self.map_operands(|kind, v| Some(if kind == Kind::Target { to } else { v }))
            .unwrap_or(self)
    }

    /// The jump target, for a jump; `None` for any other instruction.
    pub fn target(self) -> Option<u32> {
        match self.operands() {
            Operands::Branch(b) => Some(b.target),
            Operands::Test(t) => Some(t.target),
            Operands::Jump(j) => Some(j.target),
            _ => None,
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("{:?}", self.op);
        let operands = self.operands().to_string();
        if operands.is_empty() {
            f.write_str(&name)
        } else {
            write!(f, "{name:<13} {operands}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator of [`Binary`].
    fn every_binary() -> Vec<Binary> {
        let arith = [Arith::Add, Arith::Sub, Arith::Mul, Arith::Div, Arith::Mod];
        let bit = [Bit::And, Bit::Or, Bit::Xor, Bit::Shl, Bit::Shr, Bit::UShr];
        (arith.into_iter().map(Binary::Arith))
            .chain(bit.into_iter().map(Binary::Bit))
            .chain(Cmp::ALL.into_iter().map(Binary::Cmp))
            .chain([Binary::And, Binary::Or])
            .collect()
    }

    #[test]
    fn every_binary_operator_has_one_instruction_and_back() {
        let ops: Vec<Op> = every_binary().into_iter().map(Op::of_binary).collect();
        for (b, op) in every_binary().into_iter().zip(&ops) {
            assert_eq!(op.binary(), Some(b), "{op:?}");
        }
        let mut distinct = ops.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), ops.len());
        assert_eq!(Op::Index.binary(), None);
        assert_eq!(Op::CmpK.binary(), None);
    }

    /// The machine's dispatch spells each binary instruction out (one arm an
    /// instruction, for speed); here each arm is held against the shared map.
    #[test]
    fn the_machine_applies_each_binary_instruction_as_its_operator() {
        use crate::ad::CompiledAd;
        use crate::machine::{Machine, NoBuiltins, Sides};
        use crate::program::Program;
        use crate::value::Value;
        let values = [
            Value::Int(7),
            Value::Int(-2),
            Value::Int(0),
            Value::Real(2.5),
            Value::Bool(true),
            Value::str("a"),
            Value::Undefined,
            Value::Error,
        ];
        let ad = CompiledAd::new();
        for b in every_binary() {
            for x in &values {
                for y in &values {
                    let p = Program {
                        code: vec![
                            form::Const { dst: 0, konst: 0 }.instr(Op::Const),
                            form::Const { dst: 1, konst: 1 }.instr(Op::Const),
                            form::Binary { dst: 2, a: 0, b: 1 }.instr(Op::of_binary(b)),
                            form::Ret { src: 2 }.instr(Op::Ret),
                        ],
                        consts: vec![x.clone(), y.clone()],
                        nregs: 3,
                        max_depth: 1,
                        nodes: 3,
                        ..Program::default()
                    };
                    let got = Machine::new()
                        .eval(&p, Sides::new(&ad, None), &mut NoBuiltins)
                        .unwrap();
                    let want = b.apply(x, y);
                    assert_eq!(format!("{got:?}"), format!("{want:?}"), "{b:?} {x:?} {y:?}");
                }
            }
        }
    }

    #[test]
    fn instructions_are_eight_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 8);
    }

    #[test]
    fn instructions_print_as_assembly() {
        assert_eq!(
            form::Binary { dst: 2, a: 0, b: 1 }
                .instr(Op::Add)
                .to_string(),
            "Add           r2, r0, r1"
        );
        assert_eq!(
            form::Load {
                dst: 0,
                depth: 0,
                slot: 7
            }
            .instr(Op::LoadTarget)
            .to_string(),
            "LoadTarget    r0, slot7"
        );
        assert_eq!(
            form::CmpTK {
                dst: 1,
                konst: 2,
                slot: U24::new(9).unwrap(),
                cmp: Cmp::Eq
            }
            .instr(Op::CmpTK)
            .to_string(),
            "CmpTK         r1, slot9 Eq k2"
        );
        assert_eq!(
            form::Call {
                dst: 1,
                first: 3,
                argc: 2,
                native: U24::new(5).unwrap()
            }
            .instr(Op::Call)
            .to_string(),
            "Call          r1, native5(r3..+2)"
        );
    }
}
