//! Jump threading: a pass over the emitted code that sends a jump landing on a
//! jump of the same kind, on the same register, straight to where that one goes.

use classad_vm::instr::form;
use classad_vm::{Instr, Op};

/// Retargets jumps that land on a jump of the same kind on the same register: a
/// `&&` chain's first false then jumps straight to the end.
pub(super) fn thread_jumps(code: &mut [Instr]) {
    for i in 0..code.len() {
        let ins = code[i];
        if !matches!(ins.op(), Op::JumpIfFalse | Op::JumpIfTrue) {
            continue;
        }
        let cond = form::Branch::of(ins).cond;
        let mut t = form::Branch::of(ins).target;
        let mut hops = 0;
        while let Some(&next) = code.get(t as usize) {
            if next.op() != ins.op() || form::Branch::of(next).cond != cond || hops > code.len() {
                break;
            }
            t = form::Branch::of(next).target;
            hops += 1;
        }
        code[i] = ins.with_target(t);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::thread_jumps;
    use classad_vm::instr::form;

    /// Only a jump of the same kind on the same register is followed, and a
    /// cycle of jumps (which no compiled code has) still ends.
    #[test]
    fn jumps_follow_only_their_own_kind_on_their_own_register() {
        let jump = |op, cond, target| form::Branch { cond, target }.instr(op);
        let mut code = vec![
            jump(Op::JumpIfFalse, 1, 2),
            jump(Op::JumpIfTrue, 1, 4),
            jump(Op::JumpIfFalse, 1, 3),
            jump(Op::JumpIfFalse, 2, 4),
            form::Ret { src: 0 }.instr(Op::Ret),
        ];
        thread_jumps(&mut code);
        let targets: Vec<Option<u32>> = code.iter().map(|i| i.target()).collect();
        assert_eq!(targets, [Some(3), Some(4), Some(3), Some(4), None]);
        let mut cycle = vec![jump(Op::JumpIfTrue, 1, 1), jump(Op::JumpIfTrue, 1, 0)];
        thread_jumps(&mut cycle);
    }

    #[test]
    fn a_false_conjunct_jumps_straight_to_the_end() {
        let p = compiled(
            "TARGET.A == 1 && TARGET.B == 2 && TARGET.C == 3",
            "X = 1",
            "A = 0\nB = 2\nC = 3",
        );
        let end = (p.code.len() - 1) as u32;
        for i in p.code.iter().filter(|i| i.op() == Op::JumpIfFalse) {
            assert_eq!(i.target(), Some(end), "{p}");
        }
    }
}
