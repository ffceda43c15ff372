//! Relocating a program's code so that it runs inside another program (inlining).

use crate::instr::{form, Instr, Kind, Op, Operands};
use crate::program::Program;

/// Where an inlined program lands in the program receiving it.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// The register that receives the inlined program's value (its `r0`).
    pub result: u16,
    /// The register its `r1` becomes; its other registers follow.
    pub first_temp: u16,
    /// The index its first instruction lands at.
    pub code_base: u32,
    /// The index its first constant lands at.
    pub const_base: u32,
    /// The index its first TARGET-only subexpression lands at.
    pub sub_base: u32,
    /// The index its first constant collection lands at.
    pub set_base: u32,
    /// How much deeper its loads sit (their depth operands grow by it).
    pub depth: u32,
}

impl Program {
    /// This program's code placed per `at`, to run as part of another program, which
    /// must append this program's constants, TARGET-only subexpressions and constant collections at the
    /// bases `at` gives. The final `Ret` is dropped: execution continues with
    /// whatever follows the relocated code. `None` when an operand would not fit, or
    /// the program does not end in its only `Ret` of `r0`.
    pub fn relocated(&self, at: &Placement) -> Option<Vec<Instr>> {
        let (last, body) = self.code.split_last()?;
        let returns_r0 = matches!(last.operands(), Operands::Ret(form::Ret { src: 0 }));
        if !returns_r0 || body.iter().any(|i| i.op() == Op::Ret) {
            return None;
        }
        let reg = |r: u32| -> Option<u32> {
            let r = if r == 0 {
                u32::from(at.result)
            } else {
                u32::from(at.first_temp) + r - 1
            };
            (r <= u32::from(u8::MAX)).then_some(r)
        };
        body.iter()
            .map(|i| {
                if let Operands::List(list) = i.operands() {
                    // (Its last register must fit too.)
                    reg((u32::from(list.first) + list.count).saturating_sub(1))?;
                }
                i.map_operands(|kind, v| match kind {
                    Kind::Reg => reg(v),
                    Kind::Konst => v.checked_add(at.const_base),
                    Kind::Depth => Some((v + at.depth).min(u32::from(u16::MAX))),
                    Kind::Target => v.checked_add(at.code_base),
                    Kind::Set => v.checked_add(at.set_base),
                    Kind::Sub => v.checked_add(at.sub_base),
                    // (Its paths would need a base of their own: kept as a load.)
                    Kind::Path => None,
                    Kind::Slot | Kind::Native | Kind::Count | Kind::Length | Kind::Cmp => Some(v),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Cmp;
    use crate::value::Value;

    #[test]
    fn registers_constants_jumps_and_depths_move() {
        let p = Program {
            code: vec![
                form::Const { dst: 1, konst: 0 }.instr(Op::Const),
                form::Branch { cond: 1, target: 4 }.instr(Op::JumpIfFalse),
                form::Load {
                    dst: 2,
                    depth: 3,
                    slot: 9,
                }
                .instr(Op::LoadTarget),
                form::CmpK {
                    dst: 0,
                    konst: 1,
                    src: 2,
                    cmp: Cmp::Eq,
                }
                .instr(Op::CmpK),
                form::Ret { src: 0 }.instr(Op::Ret),
            ],
            consts: vec![Value::Bool(true), Value::Int(1)],
            nregs: 3,
            ..Program::default()
        };
        let at = Placement {
            result: 7,
            first_temp: 10,
            code_base: 20,
            const_base: 5,
            sub_base: 0,
            set_base: 0,
            depth: 2,
        };
        let code = p.relocated(&at).expect("fits");
        assert_eq!(
            code,
            vec![
                form::Const { dst: 10, konst: 5 }.instr(Op::Const),
                form::Branch {
                    cond: 10,
                    target: 24
                }
                .instr(Op::JumpIfFalse),
                form::Load {
                    dst: 11,
                    depth: 5,
                    slot: 9
                }
                .instr(Op::LoadTarget),
                form::CmpK {
                    dst: 7,
                    konst: 6,
                    src: 11,
                    cmp: Cmp::Eq
                }
                .instr(Op::CmpK),
            ]
        );
        let crowded = Placement {
            first_temp: 255,
            ..at
        };
        assert!(p.relocated(&crowded).is_none(), "register 255 is the last");
    }
}
