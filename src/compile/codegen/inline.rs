//! Inlining: MY's small attributes compiled into the programs that read them,
//! guarded so that a circular reference is still found as a load finds it.

use super::emit::reg8;
use super::{compile_inner, measure, Gen, MAX_DEPTH};
use crate::functions::IMPURE_BUILTINS;
use crate::syntax::ast::{ExprRef, Node, NodeId};
use classad_vm::instr::form;
use classad_vm::Op;

/// How many attributes deep inlining goes.
const MAX_INLINE_NESTING: usize = 8;

/// The largest attribute expression inlined, in nodes.
const MAX_INLINE_NODES: u32 = 256;

/// True when attribute expression `e` may be compiled into the programs that
/// reference it: small, and without builtins whose value changes between calls
/// (`CurrentTime` included), which a load would compute once, except `time()`.
///
/// HTCondor has no memo: each reference to an attribute evaluates it again, and
/// reads the clock again. Inlining `time()` does the same; only the machine's
/// memo of a loaded attribute shares one read between references. Both read the
/// clock within one evaluation, so they differ at most where a second passes
/// mid-evaluation, as two runs of HTCondor do. Pilots' START reads `time()`:
/// inlined, the block tiers run it (one read of the clock per block).
fn inlinable(e: &ExprRef, id: NodeId, nodes: &mut u32) -> bool {
    *nodes += 1;
    if *nodes > MAX_INLINE_NODES {
        return false;
    }
    let node = e.tree.node(id);
    match node {
        Node::Attr { name, .. } if name.eq_ignore_ascii_case("CurrentTime") => return false,
        Node::Call { name, args }
            if IMPURE_BUILTINS.iter().any(|s| s.eq_ignore_ascii_case(name))
                && !(name.eq_ignore_ascii_case("time") && args.is_empty()) =>
        {
            return false
        }
        _ => {}
    }
    let mut ok = true;
    node.for_each_child(|c| ok = ok && inlinable(e, c, nodes));
    ok
}

impl Gen<'_> {
    /// Compiles MY's attribute `name` in place of a load, when that is exact: the
    /// attribute is small, pure (no clock or chance, whose values a load would
    /// share), and not on a cycle of MY's attributes (a load detects the cycle as
    /// HTCondor does). True when done.
    pub(super) fn inline_my(&mut self, name: &str, dst: u16, site: u16) -> bool {
        let Some(facts) = self.facts.as_deref_mut() else {
            return false;
        };
        let Some(e) = facts.ad.get(name).map(ExprRef::from) else {
            return false;
        };
        let key = name.to_ascii_lowercase();
        if facts.inlining.contains(&key) {
            facts.cycle = true;
            return false;
        }
        if facts.inlining.len() >= MAX_INLINE_NESTING || !inlinable(&e, e.id, &mut 0) {
            return false;
        }
        // Where the inlined code would start, counted from the outermost program.
        let base = facts.inline_base + u32::from(site) + 1;
        if base + measure(&e, e.id).0 > MAX_DEPTH {
            // The outermost program could then only go to the reference evaluator
            // (its depth bound passes the limit), where a load leaves the machine
            // to decide at run time: keep the load. This also bounds the
            // recursion of nested inlining.
            return false;
        }
        facts.inlining.push(key);
        let outer_base = std::mem::replace(&mut facts.inline_base, base);
        let sub = compile_inner(&e, Some(&mut *facts), self.slots, self.cache_targets, None);
        facts.inline_base = outer_base;
        facts.inlining.pop();
        if facts.cycle {
            // Somewhere below, an attribute reached one being inlined: give up up to
            // the outermost inlining, whose load sees the cycle at run time.
            if facts.inlining.is_empty() {
                facts.cycle = false;
            }
            return false;
        }
        // The region is guarded: an attribute being evaluated when its inlined
        // code starts is a circular reference, found as a load would find it
        // (through TARGET, say, which no compile-time check can see).
        let Ok(length) = u16::try_from(sub.code.len()) else {
            return false;
        };
        let slot = self.slots.intern(name);
        let folded = u64::from(self.folded_steps) + u64::from(sub.folded_steps);
        if folded > classad_vm::limits::MAX_FOLDED_STEPS {
            // Its folded values would take this program past its share: load it.
            return false;
        }
        let enter = self.push(
            form::InlineEnter {
                dst: reg8(dst),
                length,
                slot,
            }
            .instr(Op::InlineEnter),
        );
        let at = classad_vm::Placement {
            result: dst,
            first_temp: self.next_reg,
            code_base: self.code.len() as u32,
            const_base: self.consts.len() as u32,
            sub_base: self.target_only.len() as u32,
            set_base: self.sets.len() as u32,
            depth: u32::from(site) + 1,
        };
        let Some(code) = sub.relocated(&at) else {
            self.code.truncate(enter);
            return false;
        };
        let saved = self.next_reg;
        for _ in 1..sub.nregs {
            self.reg();
        }
        self.next_reg = saved;
        self.code.extend(code);
        self.push(form::InlineLeave { slot }.instr(Op::InlineLeave));
        self.consts.extend(sub.consts);
        self.target_only.extend(sub.target_only);
        self.sets.extend(sub.sets);
        self.fail_needs_reference |= sub.fail_needs_reference;
        // HTCondor dereferences and evaluates it there: keep the bounds.
        self.extra_depth = self.extra_depth.max(u32::from(site) + 1 + sub.max_depth);
        self.extra_nodes = self.extra_nodes.saturating_add(sub.nodes + 1);
        self.folded_steps = folded as u32;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    #[test]
    fn my_attributes_are_inlined_unless_on_a_cycle() {
        let my = "Start = true\nLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus\nCpus = 4\n\
                  Requirements = Start && (Limits)";
        let p = compiled("Requirements", my, "RequestCpus = 2");
        assert!(!ops(&p).contains(&Op::LoadMy), "{p}");
        // A -> B -> A: both stay loads, and the cycle gives what HTCondor gives.
        let cyclic = "A = B && TARGET.X > 1\nB = A || TARGET.X < 5\nR = A";
        let p = compiled("R", cyclic, "X = 3");
        assert!(ops(&p).contains(&Op::LoadMy), "{p}");
        compiled("B", cyclic, "X = 3");
        // The clock is read where HTCondor reads it, once per reference, and
        // never when compiled; chance stays a load.
        let p = compiled("T > 0", "T = time()", "X = 1");
        assert_eq!(
            ops(&p),
            [
                Op::InlineEnter,
                Op::Call,
                Op::InlineLeave,
                Op::CmpK,
                Op::Ret
            ]
        );
        let p = compiled("T > 0", "T = random()", "X = 1");
        assert!(ops(&p).contains(&Op::LoadMy), "{p}");
    }
}
