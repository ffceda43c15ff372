//! The instruction set: fixed 8-byte register instructions.
//!
//! Every instruction is `op x y z`: `x` is an 8-bit register (usually the
//! destination), `y` a 16-bit operand (a register, or a small immediate), `z` a 32-bit
//! operand (a register, constant index, slot, jump target or native id). Registers are
//! per-program; `r[i]` below. Jump targets are instruction indices. The three
//! instructions whose `z` packs two operands (`CmpK`, `CmpTK`, `Call`) are made
//! with [`Instr::cmp_k`], [`Instr::cmp_tk`] and [`Instr::call`] and read with
//! their `_parts` methods: nothing else packs or unpacks them.
//!
//! | op | operands | semantics |
//! |---|---|---|
//! | `Const` | `x`=dst, `z`=const | `r[x] = consts[z]` |
//! | `Move` | `x`=dst, `z`=src | `r[x] = r[z]` |
//! | `LoadMy` | `x`=dst, `z`=slot | `r[x]` = the value of attribute `z` of MY (undefined when absent), evaluated lazily in MY's scope at most once per evaluation |
//! | `LoadTarget` | `x`=dst, `z`=slot | the same for TARGET, evaluated with the sides swapped; undefined without a target |
//! | `Neg` `Plus` `Not` `BitNot` | `x`=dst, `z`=src | unary operators (`classad_vm::ops`) |
//! | `Add` `Sub` `Mul` `Div` `Mod` | `x`=dst, `y`=a, `z`=b | arithmetic |
//! | `Lt` `Le` `Gt` `Ge` `Eq` `Ne` `Is` `Isnt` | `x`=dst, `y`=a, `z`=b | comparisons; `Is`/`Isnt` are `=?=`/`=!=` |
//! | `BitAnd` `BitOr` `BitXor` `Shl` `Shr` `UShr` | `x`=dst, `y`=a, `z`=b | bitwise operators |
//! | `CmpK` | `x`=dst, `y`=const, `z`=src \| cmp << 8 | `r[x] = r[src] cmp consts[y]`, `cmp` a [`crate::ops::Cmp`] code |
//! | `CmpTK` | `x`=dst, `y`=const, `z`=slot \| cmp << 24 | `r[x]` = TARGET's attribute `slot` (as `LoadTarget` gives it) `cmp consts[y]`, without copying a literal attribute |
//! | `And` `Or` | `x`=dst, `y`=a, `z`=b | `&&`/`||` once the left side did not decide |
//! | `JumpIfFalse` | `x`=a, `z`=target | `&&`'s short-circuit: when `r[x]` is boolean-equivalent false, store `false` in `r[x]` and jump; when it is error, jump (HTCondor decides `false && b` and `error && b` without evaluating `b`) |
//! | `JumpIfTrue` | `x`=a, `z`=target | `\|\|`'s: when `r[x]` is boolean-equivalent true, store `true` and jump; when it is error, jump |
//! | `JumpIfDefined` | `x`=a, `z`=target | jump unless `r[x]` is undefined (`?:` elvis) |
//! | `Test` | `x`=dst, `y`=cond, `z`=target | `ifThenElse` condition: undefined gives `r[x]`=undefined, a non-boolean gives error, and both jump to `z` (the end); otherwise fall through |
//! | `TestTernary` | `x`=dst, `y`=cond, `z`=target | `?:` condition: as `Test` for undefined, error and booleans; any other value stops the machine with [`crate::machine::Halt::NeedReference`] (HTCondor then evaluates both branches, so a failing branch fails the whole, before giving error) |
//! | `JumpIfNot` | `x`=cond, `z`=target | jump when `r[x]` (already tested) is false |
//! | `Jump` | `z`=target | unconditional jump |
//! | `Index` | `x`=dst, `y`=a, `z`=b | `a[b]`: list subscript or ad lookup (host) |
//! | `SelectPath` | `x`=dst, `y`=the depth where the chain sits, `z`=index into the program's `paths` | `r[x]` = a selection chain through MY's or TARGET's record literals ([`crate::program::PathSelect`]); what it cannot resolve stops the machine with [`crate::machine::Halt::NeedReference`] |
//! | `Member` | `x`=dst, `y`=src, `z`=set | `r[x]` = whether `r[y]` is in the program's constant collection `sets[z]` ([`crate::sets::ConstSet::contains`]) |
//! | `Call` | `x`=dst, `y`=first arg register, `z`=native id << 8 \| argc | a builtin on argument values (host; a pure builtin's value may come from the machine's memo of earlier calls on the same values, `call_memo`) |
//! | `TargetCached` | `x`=dst, `y`=the depth where the subexpression sits, `z`=index into the program's `target_only` table | the value of a subexpression that depends only on TARGET: computed once per TARGET ad and kept in the machine's cache (only when every attribute it read was a literal) |
//! | `InlineEnter` | `x`=dst, `y`=length, `z`=slot | starts the code of MY's attribute `z`, compiled in place of a load: when that attribute is being evaluated (a circular reference), `r[x]` = undefined and execution skips the `y` instructions that follow (up to and including the matching `InlineLeave`), as a load would find the cycle; otherwise the attribute counts as being evaluated until `InlineLeave` |
//! | `InlineLeave` | `z`=slot | ends the inlined code of MY's attribute `z` |
//! | `List` | `x`=dst, `y`=first register, `z`=count | `r[x]` = the list of the values in `z` registers from `y` (host, through the same memo: equal items make one list), as `evalInEachContext` lists its results |
//! | `FreshEnter` | `x`=flag | starts code that HTCondor evaluates as a fresh evaluation of its own (`evalInEachContext`'s expression in each record), which the machine models only while it reads no attribute that is code (that would be evaluated with nothing being evaluated around it): `r[x]` keeps whether code was read before |
//! | `FreshLeave` | `x`=flag | ends it: when code was read since `FreshEnter`, the machine stops with [`crate::machine::Halt::NeedReference`] |
//! | `Fail` | — | the evaluation fails here, as HTCondor's would (the compiler proved it reaches HTCondor's step limit: a MY attribute that must evaluate more than 10,000,000 nodes); the machine stops with [`crate::machine::Halt::Fail`] |
//! | `Reference` | — | this evaluation needs the reference evaluator (a construct the compiler does not handle natively); the machine stops with [`crate::machine::Halt::NeedReference`] |
//! | `Ret` | `z`=src | the program's value is `r[z]` |

use crate::ops::{Arith, Binary, Bit, Cmp};
use std::fmt;

/// An operation code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[allow(missing_docs)] // each variant is documented in the module's table
pub enum Op {
    Const,
    Move,
    LoadMy,
    LoadTarget,
    Neg,
    Plus,
    Not,
    BitNot,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    Is,
    Isnt,
    CmpK,
    CmpTK,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    UShr,
    And,
    Or,
    JumpIfFalse,
    JumpIfTrue,
    JumpIfDefined,
    Test,
    TestTernary,
    JumpIfNot,
    Jump,
    Index,
    SelectPath,
    Member,
    Call,
    TargetCached,
    InlineEnter,
    InlineLeave,
    List,
    FreshEnter,
    FreshLeave,
    Fail,
    Reference,
    Ret,
}

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

/// One instruction: an opcode and three operands (see the module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Instr {
    /// The operation.
    pub op: Op,
    /// 8-bit operand: usually the destination register.
    pub x: u8,
    /// 16-bit operand.
    pub y: u16,
    /// 32-bit operand.
    pub z: u32,
}

/// How many attribute slots a `CmpTK` can name: its `z` holds the slot in its low
/// 24 bits and the comparison above them.
pub const CMP_TK_SLOTS: u32 = 1 << 24;

impl Instr {
    /// An instruction from its parts.
    pub const fn new(op: Op, x: u8, y: u16, z: u32) -> Instr {
        Instr { op, x, y, z }
    }

    /// `CmpK`: `r[dst] = r[src] cmp consts[k]`.
    pub fn cmp_k(dst: u8, k: u16, src: u8, cmp: Cmp) -> Instr {
        Instr::new(
            Op::CmpK,
            dst,
            k,
            u32::from(src) | u32::from(cmp.code()) << 8,
        )
    }

    /// `CmpTK`: `r[dst]` = TARGET's attribute `slot` `cmp consts[k]`; `None`
    /// when `slot` is not below [`CMP_TK_SLOTS`].
    pub fn cmp_tk(dst: u8, k: u16, slot: u32, cmp: Cmp) -> Option<Instr> {
        (slot < CMP_TK_SLOTS)
            .then(|| Instr::new(Op::CmpTK, dst, k, slot | u32::from(cmp.code()) << 24))
    }

    /// `Call`: `r[dst]` = builtin `native` on the `argc` registers from
    /// `first`.
    pub fn call(dst: u8, first: u16, native: u32, argc: u8) -> Instr {
        Instr::new(Op::Call, dst, first, native << 8 | u32::from(argc))
    }

    /// A `CmpK`'s source register and comparison.
    #[inline]
    pub fn cmp_k_parts(self) -> (u32, Cmp) {
        (self.z & 0xff, Cmp::from_code(self.z >> 8))
    }

    /// A `CmpTK`'s slot and comparison.
    #[inline]
    pub fn cmp_tk_parts(self) -> (u32, Cmp) {
        (self.z & (CMP_TK_SLOTS - 1), Cmp::from_code(self.z >> 24))
    }

    /// A `Call`'s builtin and argument count.
    #[inline]
    pub fn call_parts(self) -> (u32, u32) {
        (self.z >> 8, self.z & 0xff)
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Op::*;
        let Instr { op, x, y, z } = *self;
        let name = format!("{op:?}");
        match op {
            Const => write!(f, "{name:<13} r{x}, k{z}"),
            Move | Neg | Plus | Not | BitNot => write!(f, "{name:<13} r{x}, r{z}"),
            LoadMy | LoadTarget => write!(f, "{name:<13} r{x}, slot{z}"),
            JumpIfFalse | JumpIfTrue | JumpIfDefined | JumpIfNot => {
                write!(f, "{name:<13} r{x}, @{z}")
            }
            Test | TestTernary => write!(f, "{name:<13} r{x}, r{y}, @{z}"),
            CmpK => {
                let (src, cmp) = self.cmp_k_parts();
                write!(f, "{name:<13} r{x}, r{src} {cmp:?} k{y}")
            }
            CmpTK => {
                let (slot, cmp) = self.cmp_tk_parts();
                write!(f, "{name:<13} r{x}, slot{slot} {cmp:?} k{y}")
            }
            Jump => write!(f, "{name:<13} @{z}"),
            Call => {
                let (native, argc) = self.call_parts();
                write!(f, "{name:<13} r{x}, native{native}(r{y}..+{argc})")
            }
            TargetCached => write!(f, "{name:<13} r{x}, sub{z}"),
            SelectPath => write!(f, "{name:<13} r{x}, path{z}"),
            Member => write!(f, "{name:<13} r{x}, r{y} in set{z}"),
            InlineEnter => write!(f, "{name:<13} r{x}, slot{z}, +{y}"),
            InlineLeave => write!(f, "{name:<13} slot{z}"),
            List => write!(f, "{name:<13} r{x}, r{y}..+{z}"),
            FreshEnter | FreshLeave => write!(f, "{name:<13} r{x}"),
            Fail | Reference => write!(f, "{name}"),
            Ret => write!(f, "{name:<13} r{z}"),
            _ => write!(f, "{name:<13} r{x}, r{y}, r{z}"),
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
                            Instr::new(Op::Const, 0, 0, 0),
                            Instr::new(Op::Const, 1, 0, 1),
                            Instr::new(Op::of_binary(b), 2, 0, 1),
                            Instr::new(Op::Ret, 0, 0, 2),
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
            Instr::new(Op::Add, 2, 0, 1).to_string(),
            "Add           r2, r0, r1"
        );
        assert_eq!(
            Instr::new(Op::LoadTarget, 0, 0, 7).to_string(),
            "LoadTarget    r0, slot7"
        );
        assert_eq!(
            Instr::cmp_tk(1, 2, 9, Cmp::from_code(4))
                .unwrap()
                .to_string(),
            "CmpTK         r1, slot9 Eq k2"
        );
        assert_eq!(
            Instr::call(1, 3, 5, 2).to_string(),
            "Call          r1, native5(r3..+2)"
        );
    }
}
