//! Jump threading: a pass over the emitted code that sends a jump landing on a
//! jump of the same kind, on the same register, straight to where that one goes.

use classad_vm::{Instr, Op};

/// Retargets jumps that land on a jump of the same kind on the same register: a
/// `&&` chain's first false then jumps straight to the end.
pub(super) fn thread_jumps(code: &mut [Instr]) {
    for i in 0..code.len() {
        let ins = code[i];
        if !matches!(ins.op, Op::JumpIfFalse | Op::JumpIfTrue) {
            continue;
        }
        let mut t = ins.z as usize;
        let mut hops = 0;
        while let Some(next) = code.get(t) {
            if next.op != ins.op || next.x != ins.x || hops > code.len() {
                break;
            }
            t = next.z as usize;
            hops += 1;
        }
        code[i].z = t as u32;
    }
}
