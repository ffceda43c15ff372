//! Relocating a program's code so that it runs inside another program (inlining).

use crate::instr::{Instr, Op};
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
        if last.op != Op::Ret || last.z != 0 || body.iter().any(|i| i.op == Op::Ret) {
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
        let x = |i: &Instr| reg(u32::from(i.x)).map(|r| r as u8);
        let y_reg = |i: &Instr| reg(u32::from(i.y)).map(|r| r as u16);
        let konst16 = |k: u16| u16::try_from(u32::from(k) + at.const_base).ok();
        let site = |s: u16| (u32::from(s) + at.depth).min(u32::from(u16::MAX)) as u16;
        let jump = |t: u32| t.checked_add(at.code_base);
        body.iter()
            .map(|i| {
                use Op::*;
                let (x, y, z) = match i.op {
                    Const => (x(i)?, i.y, i.z + at.const_base),
                    Move | Neg | Plus | Not | BitNot => (x(i)?, i.y, reg(i.z)?),
                    LoadMy | LoadTarget => (x(i)?, site(i.y), i.z),
                    Add | Sub | Mul | Div | Mod | Lt | Le | Gt | Ge | Eq | Ne | Is | Isnt
                    | BitAnd | BitOr | BitXor | Shl | Shr | UShr | And | Or | Index => {
                        (x(i)?, y_reg(i)?, reg(i.z)?)
                    }
                    CmpK => {
                        let (src, cmp) = i.cmp_k_parts();
                        let moved = Instr::cmp_k(x(i)?, konst16(i.y)?, reg(src)? as u8, cmp);
                        (moved.x, moved.y, moved.z)
                    }
                    CmpTK => (x(i)?, konst16(i.y)?, i.z),
                    JumpIfFalse | JumpIfTrue | JumpIfDefined | JumpIfNot => {
                        (x(i)?, i.y, jump(i.z)?)
                    }
                    Test | TestTernary => (x(i)?, y_reg(i)?, jump(i.z)?),
                    Jump => (i.x, i.y, jump(i.z)?),
                    Call => (x(i)?, y_reg(i)?, i.z),
                    // (Its last register must fit too.)
                    List => {
                        reg((u32::from(i.y) + i.z).saturating_sub(1))?;
                        (x(i)?, y_reg(i)?, i.z)
                    }
                    FreshEnter | FreshLeave => (x(i)?, i.y, i.z),
                    Member => (x(i)?, y_reg(i)?, i.z + at.set_base),
                    InlineEnter => (x(i)?, i.y, i.z),
                    InlineLeave => (i.x, i.y, i.z),
                    TargetCached => (x(i)?, site(i.y), i.z + at.sub_base),
                    Fail | Reference => (i.x, i.y, i.z),
                    // (Its paths would need a base of their own: kept as a load.)
                    SelectPath | Ret => return None,
                };
                Some(Instr::new(i.op, x, y, z))
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
                Instr::new(Op::Const, 1, 0, 0),
                Instr::new(Op::JumpIfFalse, 1, 0, 4),
                Instr::new(Op::LoadTarget, 2, 3, 9),
                Instr::cmp_k(0, 1, 2, Cmp::from_code(4)),
                Instr::new(Op::Ret, 0, 0, 0),
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
                Instr::new(Op::Const, 10, 0, 5),
                Instr::new(Op::JumpIfFalse, 10, 0, 24),
                Instr::new(Op::LoadTarget, 11, 5, 9),
                Instr::cmp_k(7, 6, 11, Cmp::from_code(4)),
            ]
        );
        let crowded = Placement {
            first_temp: 255,
            ..at
        };
        assert!(p.relocated(&crowded).is_none(), "register 255 is the last");
    }
}
