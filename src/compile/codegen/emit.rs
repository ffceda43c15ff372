//! Emission: the walk over the tree that writes instructions, asking the
//! analyses of the sibling modules (folding, TARGET-only caching, name
//! resolution, inlining) what each node compiles to.

use super::{is_scope_name, site, Gen};
use crate::syntax::ast::{BinOp, Node, NodeId, UnOp};
use classad_vm::instr::{form, U24};
use classad_vm::{Instr, Op, Value};

/// Register `r` as an operand. Registers past 255 make the whole program fall
/// back (see `compile_inner`); truncating here keeps the code well-formed
/// meanwhile.
pub(super) fn reg8(r: u16) -> u8 {
    r as u8
}

/// The instruction of a binary operator; `?:` compiles to a jump and a subscript
/// to `Index` before they get here.
fn binary_op(op: BinOp) -> Op {
    op.binary().map_or(Op::Index, Op::of_binary)
}

impl Gen<'_> {
    /// Appends `ins` (made from its operands in [`form`]); its index.
    pub(super) fn push(&mut self, ins: Instr) -> usize {
        self.code.push(ins);
        self.code.len() - 1
    }

    /// Points the jump at `at` to the next instruction emitted.
    fn patch(&mut self, at: usize) {
        self.code[at] = self.code[at].with_target(self.code.len() as u32);
    }

    pub(super) fn reg(&mut self) -> u16 {
        let r = self.next_reg;
        self.next_reg += 1;
        self.max_reg = self.max_reg.max(self.next_reg);
        r
    }

    pub(super) fn konst(&mut self, dst: u16, v: Value) {
        let konst = self.consts.len() as u32;
        self.consts.push(v);
        self.push(
            form::Const {
                dst: reg8(dst),
                konst,
            }
            .instr(Op::Const),
        );
    }

    pub(super) fn reference(&mut self) {
        self.push(form::Stop {}.instr(Op::Reference));
    }

    /// `op` (`LoadMy` or `LoadTarget`) of attribute `slot` into `dst`, at depth
    /// `depth`.
    pub(super) fn load(&mut self, op: Op, dst: u16, depth: u16, slot: u32) {
        let dst = reg8(dst);
        self.push(form::Load { dst, depth, slot }.instr(op));
    }

    /// Emits code leaving node `id`'s value in `dst`; `depth` is the depth its
    /// ancestors consume (for the depth bound of attribute dereferences).
    pub(super) fn node(&mut self, id: NodeId, dst: u16, depth: u32) {
        let node = self.e.tree.node(id);
        match node {
            Node::Lit(Value::RelTime(r)) => return self.konst(dst, Value::Real(*r)),
            Node::Lit(v) => return self.konst(dst, v.clone()),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } => return self.name(name, dst, depth),
            _ => {}
        }
        if let Some(v) = self.known(id) {
            return self.konst(dst, v);
        }
        if self.cache_targets
            && self.my.is_some()
            && self.target_only(id)
            && (self.has_call(id) || (self.tree_has_chain() && self.has_chain(id)))
        {
            return self.target_cached(id, dst, depth);
        }
        let d = depth + 1;
        let saved = self.next_reg;
        match node {
            Node::Lit(_) | Node::Attr { scope: None, .. } => self.reference(),
            Node::Binary(BinOp::Subscript, a, b) if self.target_key(*a, *b).is_some() => {
                let key = self.target_key(*a, *b).unwrap_or_default();
                let slot = self.slots.intern(&key);
                self.load(Op::LoadTarget, dst, site(d), slot);
            }
            Node::Attr { scope: Some(_), .. } | Node::Binary(BinOp::Subscript, ..)
                if self.try_path(id, dst, d) => {}
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => self.select(*s, name, dst, d),
            Node::Paren(a) => self.node(*a, dst, d),
            Node::Unary(op, a) => {
                let r = self.reg();
                self.node(*a, r, d);
                let op = match op {
                    UnOp::Neg => Op::Neg,
                    UnOp::Plus => Op::Plus,
                    UnOp::Not => Op::Not,
                    UnOp::BitNot => Op::BitNot,
                };
                self.push(
                    form::Unary {
                        dst: reg8(dst),
                        src: reg8(r),
                    }
                    .instr(op),
                );
            }
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b)
                if self.neutral_operand(*op, *a, *b).is_some() =>
            {
                let x = self.neutral_operand(*op, *a, *b).unwrap_or(*a);
                self.node(x, dst, d);
            }
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let is_and = *op == BinOp::And;
                let rb = self.reg();
                self.node(*a, dst, d);
                // A deciding left side is stored as `false`/`true` by the jump.
                let (jump, op) = if is_and {
                    (Op::JumpIfFalse, Op::And)
                } else {
                    (Op::JumpIfTrue, Op::Or)
                };
                let skip = self.push(
                    form::Branch {
                        cond: reg8(dst),
                        target: 0,
                    }
                    .instr(jump),
                );
                self.node(*b, rb, d);
                let (dst, rb) = (reg8(dst), reg8(rb));
                self.push(form::Binary { dst, a: dst, b: rb }.instr(op));
                self.patch(skip);
            }
            Node::Binary(op, a, b) if self.compare_with_constant(*op, *a, *b, dst, d) => {}
            Node::Binary(BinOp::Elvis, a, b) => {
                self.node(*a, dst, d);
                let defined = form::Branch {
                    cond: reg8(dst),
                    target: 0,
                };
                let end = self.push(defined.instr(Op::JumpIfDefined));
                self.node(*b, dst, d);
                self.patch(end);
            }
            Node::Binary(op, a, b) => {
                let (ra, rb) = (self.reg(), self.reg());
                self.node(*a, ra, d);
                self.node(*b, rb, d);
                let (dst, a, b) = (reg8(dst), reg8(ra), reg8(rb));
                self.push(form::Binary { dst, a, b }.instr(binary_op(*op)));
            }
            Node::Ternary(c, a, b) => self.conditional(*c, *a, *b, dst, d, true),
            Node::Call { name, args } => self.call(name, args, dst, d),
            Node::List(_) | Node::Record(_) => self.reference(),
        }
        self.next_reg = saved;
    }

    /// A comparison with a constant operand as one `CmpK`, or `CmpTK` when the
    /// other operand is a TARGET attribute; false (nothing emitted) otherwise. `d`
    /// is the depth the operands sit at.
    fn compare_with_constant(&mut self, op: BinOp, a: NodeId, b: NodeId, dst: u16, d: u32) -> bool {
        let Some(cmp) = op.comparison() else {
            return false;
        };
        let plain = |v: &Option<Value>| {
            v.as_ref()
                .is_some_and(|v| !matches!(v, Value::List(_) | Value::Ad(_)))
        };
        let (x, cmp, k) = if let Some(k) = Some(self.known(b)).filter(plain) {
            (a, cmp, k)
        } else if let Some(k) = Some(self.known(a))
            .filter(plain)
            .filter(|k| !matches!(k, Some(Value::Undefined | Value::Error)))
        {
            // Swapping is exact for a plain constant (see `Cmp::swapped`).
            (b, cmp.swapped(), k)
        } else {
            return false;
        };
        let (Some(k), Ok(konst)) = (k, u16::try_from(self.consts.len())) else {
            return false;
        };
        self.consts.push(k);
        let dst = reg8(dst);
        if let Some((slot, site)) = self.target_attr(x, d) {
            if let Some(slot) = U24::new(slot) {
                // The load's own depth, which the instruction does not carry.
                self.extra_depth = self.extra_depth.max(site + 1);
                self.push(
                    form::CmpTK {
                        dst,
                        konst,
                        slot,
                        cmp,
                    }
                    .instr(Op::CmpTK),
                );
                return true;
            }
        }
        let rx = self.reg();
        self.node(x, rx, d);
        let src = reg8(rx);
        self.push(
            form::CmpK {
                dst,
                konst,
                src,
                cmp,
            }
            .instr(Op::CmpK),
        );
        true
    }

    /// The slot and load site of node `id` when it is a plain load of a TARGET
    /// attribute (`TARGET.x`, or a name MY lacks), sitting at depth `d`: exactly the
    /// cases where [`Gen::node`] would emit a lone `LoadTarget`.
    fn target_attr(&mut self, id: NodeId, d: u32) -> Option<(u32, u32)> {
        self.my?;
        let (name, site) = match self.e.tree.node(id) {
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if !name.eq_ignore_ascii_case("CurrentTime") && !self.overlay_has(name) => (name, d),
            Node::Attr {
                scope: Some(s),
                name,
                absolute: false,
            } => match self.e.tree.node(*s) {
                Node::Attr {
                    scope: None,
                    name: b,
                    absolute: false,
                } if (b.eq_ignore_ascii_case("TARGET") || b.eq_ignore_ascii_case("other"))
                    && !self.my_has(b) =>
                {
                    (name, d + 1)
                }
                _ => return None,
            },
            _ => return None,
        };
        if self.my_has(name) || is_scope_name(name) {
            return None;
        }
        let name = name.clone();
        Some((self.slots.intern(&name), site))
    }

    /// `c ? a : b` (`ternary`) or `ifThenElse(c, a, b)`.
    pub(super) fn conditional(
        &mut self,
        c: NodeId,
        a: NodeId,
        b: NodeId,
        dst: u16,
        d: u32,
        ternary: bool,
    ) {
        let rc = self.reg();
        self.node(c, rc, d);
        let op = if ternary { Op::TestTernary } else { Op::Test };
        let (dst8, cond) = (reg8(dst), reg8(rc));
        let test = self.push(
            form::Test {
                dst: dst8,
                cond,
                target: 0,
            }
            .instr(op),
        );
        let to_else = self.push(form::Branch { cond, target: 0 }.instr(Op::JumpIfNot));
        self.node(a, dst, d);
        let end = self.push(form::Jump { target: 0 }.instr(Op::Jump));
        self.patch(to_else);
        self.node(b, dst, d);
        self.patch(end);
        self.patch(test);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    #[test]
    fn comparisons_with_constants_read_target_attributes_in_place() {
        let p = compiled("TARGET.Arch == \"x86_64\"", "A = 1", "Arch = \"X86_64\"");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        // A constant on the left swaps the comparison.
        let p = compiled("4 < Cpus", "A = 1", "Cpus = 8");
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        let p = compiled(
            "MY.Cpus <= TARGET.RequestCpus",
            "Cpus = 2",
            "RequestCpus = 1",
        );
        assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
        // TARGET's attribute may itself be an expression.
        compiled("TARGET.Cpus >= 3", "A = 1", "Cpus = B + 1\nB = 2");
        compiled("TARGET.Missing =?= undefined", "A = 1", "B = 1");
    }
}
