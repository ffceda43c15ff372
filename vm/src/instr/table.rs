//! The one definition of the instruction set: each shape of operands (where each
//! operand sits, its kind, how it prints) and each operation (its shape, what it
//! does, which tiers run it). `define.rs` generates the code from it.
//!
//! Places: `X` is the 8-bit operand, `Y` the 16-bit one, `Z` the 32-bit one, and
//! `ZBits(lo, width)` a field of `Z` (the three shapes that pack two operands
//! into it). Registers are per program (`r[i]` below); jump targets are
//! instruction indices.
//!
//! Tiers: the pair-by-pair `machine`, the value `lanes` and the bit-mask
//! `verdicts`. `Always`: the tier computes the instruction for every operand value
//! it meets; `Sometimes`: for some, handing the others down to the next tier (the
//! op's text says which); `Never`: every evaluation that reaches it is handed down
//! (the machine's next tier is the reference evaluator).

use super::define::instructions;
use super::{Cmp, Instr, Kind, Operand, Place, Runs, Tiers, U24};

instructions! {
    forms {
        /// A constant into a register.
        Const { dst: Reg(u8) @ Place::X, konst: Konst(u32) @ Place::Z }
            prints "r{dst}, k{konst}";
        /// One register into another.
        Unary { dst: Reg(u8) @ Place::X, src: Reg(u8) @ Place::Z }
            prints "r{dst}, r{src}";
        /// An attribute into a register; `depth` is where the load sits in the
        /// expression (for HTCondor's depth bound).
        Load { dst: Reg(u8) @ Place::X, depth: Depth(u16) @ Place::Y, slot: Slot(u32) @ Place::Z }
            prints "r{dst}, slot{slot}";
        /// Two registers into a third.
        Binary { dst: Reg(u8) @ Place::X, a: Reg(u8) @ Place::Y, b: Reg(u8) @ Place::Z }
            prints "r{dst}, r{a}, r{b}";
        /// A register compared with a constant.
        CmpK {
            dst: Reg(u8) @ Place::X,
            konst: Konst(u16) @ Place::Y,
            src: Reg(u8) @ Place::ZBits(0, 8),
            cmp: Cmp(Cmp) @ Place::ZBits(8, 24),
        }
            prints "r{dst}, r{src} {cmp:?} k{konst}";
        /// A TARGET attribute compared with a constant.
        CmpTK {
            dst: Reg(u8) @ Place::X,
            konst: Konst(u16) @ Place::Y,
            slot: Slot(U24) @ Place::ZBits(0, 24),
            cmp: Cmp(Cmp) @ Place::ZBits(24, 8),
        }
            prints "r{dst}, slot{slot} {cmp:?} k{konst}";
        /// A jump on a register's value.
        Branch { cond: Reg(u8) @ Place::X, target: Target(u32) @ Place::Z }
            prints "r{cond}, @{target}";
        /// A conditional's test: the result register, the condition, the end.
        Test { dst: Reg(u8) @ Place::X, cond: Reg(u8) @ Place::Y, target: Target(u32) @ Place::Z }
            prints "r{dst}, r{cond}, @{target}";
        /// An unconditional jump.
        Jump { target: Target(u32) @ Place::Z }
            prints "@{target}";
        /// A chain of selections through record literals, at a depth.
        SelectPath { dst: Reg(u8) @ Place::X, depth: Depth(u16) @ Place::Y, path: Path(u32) @ Place::Z }
            prints "r{dst}, path{path}";
        /// A register's membership in a constant collection.
        Member { dst: Reg(u8) @ Place::X, src: Reg(u8) @ Place::Y, set: Set(u32) @ Place::Z }
            prints "r{dst}, r{src} in set{set}";
        /// A builtin on `argc` registers from `first`.
        Call {
            dst: Reg(u8) @ Place::X,
            first: Reg(u8) @ Place::Y,
            argc: Count(u8) @ Place::ZBits(0, 8),
            native: Native(U24) @ Place::ZBits(8, 24),
        }
            prints "r{dst}, native{native}(r{first}..+{argc})";
        /// A TARGET-only subexpression of the program's table, at a depth.
        TargetCached { dst: Reg(u8) @ Place::X, depth: Depth(u16) @ Place::Y, sub: Sub(u32) @ Place::Z }
            prints "r{dst}, sub{sub}";
        /// The start of MY's attribute `slot` compiled in place; `length`
        /// instructions follow up to its end.
        InlineEnter { dst: Reg(u8) @ Place::X, length: Length(u16) @ Place::Y, slot: Slot(u32) @ Place::Z }
            prints "r{dst}, slot{slot}, +{length}";
        /// The end of MY's attribute `slot` compiled in place.
        InlineLeave { slot: Slot(u32) @ Place::Z }
            prints "slot{slot}";
        /// `count` registers from `first` into a list.
        List { dst: Reg(u8) @ Place::X, first: Reg(u8) @ Place::Y, count: Count(u32) @ Place::Z }
            prints "r{dst}, r{first}..+{count}";
        /// A flag register of a fresh evaluation.
        Fresh { flag: Reg(u8) @ Place::X }
            prints "r{flag}";
        /// No operands: the evaluation stops here.
        Stop {}
            prints "";
        /// The register holding the program's value.
        Ret { src: Reg(u8) @ Place::Z }
            prints "r{src}";
    }
    ops {
        /// `r[dst] = consts[konst]`.
        Const: Const, machine Always, lanes Always, verdicts Always;
        /// `r[dst] = r[src]`.
        Move: Unary, machine Always, lanes Always, verdicts Always;
        /// `r[dst]` = MY's attribute `slot` (undefined when absent), evaluated
        /// lazily in MY's scope at most once per evaluation. The lanes and the
        /// verdicts read literals only: an attribute that is code is handed down.
        LoadMy: Load, machine Always, lanes Sometimes, verdicts Sometimes;
        /// The same for TARGET, evaluated with the sides swapped; undefined
        /// without a target.
        LoadTarget: Load, machine Always, lanes Sometimes, verdicts Sometimes;
        /// Unary `-` (`classad_vm::ops`). The verdicts hand down what is not a
        /// number.
        Neg: Unary, machine Always, lanes Always, verdicts Sometimes;
        /// Unary `+`.
        Plus: Unary, machine Always, lanes Always, verdicts Sometimes;
        /// `!`.
        Not: Unary, machine Always, lanes Always, verdicts Always;
        /// `~`.
        BitNot: Unary, machine Always, lanes Always, verdicts Never;
        /// `r[dst] = r[a] + r[b]`. The verdicts hand down what they cannot
        /// keep as a number or a class.
        Add: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `-`.
        Sub: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `*`.
        Mul: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `/`.
        Div: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `%`.
        Mod: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `<`. The verdicts hand down what their columns cannot compare.
        Lt: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `<=`.
        Le: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `>`.
        Gt: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `>=`.
        Ge: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `==`.
        Eq: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `!=`.
        Ne: Binary, machine Always, lanes Always, verdicts Sometimes;
        /// `=?=`. The lanes hand down two lists (their identity is the front
        /// end's question).
        Is: Binary, machine Always, lanes Sometimes, verdicts Sometimes;
        /// `=!=`.
        Isnt: Binary, machine Always, lanes Sometimes, verdicts Sometimes;
        /// `r[dst] = r[src] cmp consts[konst]`.
        CmpK: CmpK, machine Always, lanes Always, verdicts Sometimes;
        /// `r[dst]` = TARGET's attribute `slot` (as `LoadTarget` gives it) `cmp
        /// consts[konst]`, without copying a literal attribute.
        CmpTK: CmpTK, machine Always, lanes Sometimes, verdicts Sometimes;
        /// `&` (bitwise).
        BitAnd: Binary, machine Always, lanes Always, verdicts Never;
        /// `|` (bitwise).
        BitOr: Binary, machine Always, lanes Always, verdicts Never;
        /// `^`.
        BitXor: Binary, machine Always, lanes Always, verdicts Never;
        /// `<<`.
        Shl: Binary, machine Always, lanes Always, verdicts Never;
        /// `>>`.
        Shr: Binary, machine Always, lanes Always, verdicts Never;
        /// `>>>`.
        UShr: Binary, machine Always, lanes Always, verdicts Never;
        /// `&&` once the left side did not decide.
        And: Binary, machine Always, lanes Always, verdicts Always;
        /// `||` once the left side did not decide.
        Or: Binary, machine Always, lanes Always, verdicts Always;
        /// `&&`'s short-circuit: when `r[cond]` is boolean-equivalent false,
        /// store `false` in it and jump; when it is error, jump (HTCondor decides
        /// `false && b` and `error && b` without evaluating `b`).
        JumpIfFalse: Branch, machine Always, lanes Always, verdicts Always;
        /// `||`'s: when `r[cond]` is boolean-equivalent true, store `true` and
        /// jump; when it is error, jump.
        JumpIfTrue: Branch, machine Always, lanes Always, verdicts Always;
        /// Jump unless `r[cond]` is undefined (`?:` elvis).
        JumpIfDefined: Branch, machine Always, lanes Always, verdicts Always;
        /// `ifThenElse`'s condition: undefined gives `r[dst]` = undefined, a
        /// non-boolean gives error, and both jump to `target` (the end);
        /// otherwise fall through.
        Test: Test, machine Always, lanes Always, verdicts Always;
        /// `?:`'s condition: as `Test` for undefined, error and booleans; any
        /// other value stops the machine with
        /// [`crate::machine::Halt::NeedReference`] (HTCondor then evaluates both
        /// branches, so a failing branch fails the whole, before giving error).
        TestTernary: Test, machine Sometimes, lanes Sometimes, verdicts Sometimes;
        /// Jump when `r[cond]` (already tested) is false.
        JumpIfNot: Branch, machine Always, lanes Always, verdicts Always;
        /// Unconditional jump.
        Jump: Jump, machine Always, lanes Always, verdicts Always;
        /// `a[b]`: list subscript or ad lookup (the host's; the lanes hand down
        /// what the host refuses).
        Index: Binary, machine Always, lanes Sometimes, verdicts Never;
        /// `r[dst]` = a selection chain through MY's or TARGET's record literals
        /// ([`crate::program::PathSelect`]); what it cannot resolve stops the
        /// machine with [`crate::machine::Halt::NeedReference`].
        SelectPath: SelectPath, machine Sometimes, lanes Never, verdicts Never;
        /// `r[dst]` = whether `r[src]` is in the program's constant collection
        /// `sets[set]` ([`crate::sets::ConstSet::contains`]).
        Member: Member, machine Always, lanes Always, verdicts Sometimes;
        /// A builtin on argument values (the host's; a pure builtin's value may
        /// come from the machine's memo of earlier calls on the same values,
        /// `call_memo`). The verdicts run only a builtin of no arguments that the
        /// host shares across a block (the clock).
        Call: Call, machine Always, lanes Sometimes, verdicts Sometimes;
        /// The value of a subexpression that depends only on TARGET: computed
        /// once per TARGET ad and kept in the machine's cache (only when every
        /// attribute it read was a literal).
        TargetCached: TargetCached, machine Always, lanes Sometimes, verdicts Sometimes;
        /// Starts the code of MY's attribute `slot`, compiled in place of a load:
        /// when that attribute is being evaluated (a circular reference),
        /// `r[dst]` = undefined and execution skips the `length` instructions that
        /// follow (up to and including the matching `InlineLeave`), as a load
        /// would find the cycle; otherwise the attribute counts as being
        /// evaluated until `InlineLeave`.
        InlineEnter: InlineEnter, machine Always, lanes Always, verdicts Always;
        /// Ends the inlined code of MY's attribute `slot`.
        InlineLeave: InlineLeave, machine Always, lanes Always, verdicts Always;
        /// `r[dst]` = the list of the values in `count` registers from `first`
        /// (the host's, through the same memo: equal items make one list), as
        /// `evalInEachContext` lists its results.
        List: List, machine Sometimes, lanes Sometimes, verdicts Never;
        /// Starts code that HTCondor evaluates as a fresh evaluation of its own
        /// (`evalInEachContext`'s expression in each record), which the machine
        /// models only while it reads no attribute that is code (that would be
        /// evaluated with nothing being evaluated around it): `r[flag]` keeps
        /// whether code was read before.
        FreshEnter: Fresh, machine Always, lanes Always, verdicts Always;
        /// Ends it: when code was read since `FreshEnter`, the machine stops with
        /// [`crate::machine::Halt::NeedReference`].
        FreshLeave: Fresh, machine Sometimes, lanes Always, verdicts Always;
        /// The evaluation fails here, as HTCondor's would (the compiler proved it
        /// reaches HTCondor's step limit: a MY attribute that must evaluate more
        /// than 10,000,000 nodes); the machine stops with
        /// [`crate::machine::Halt::Fail`].
        Fail: Stop, machine Always, lanes Never, verdicts Never;
        /// This evaluation needs the reference evaluator (a construct the compiler
        /// does not handle natively); the machine stops with
        /// [`crate::machine::Halt::NeedReference`].
        Reference: Stop, machine Never, lanes Never, verdicts Never;
        /// The program's value is `r[src]`. The verdicts hand down what is not a
        /// truth value.
        Ret: Ret, machine Always, lanes Always, verdicts Sometimes;
    }
}
