//! Expression trees to register bytecode, for one ad's point of view.
//!
//! A program is compiled for the ad it belongs to (MY), because how a name resolves
//! depends on that ad: `x` is MY's `x` when MY has one, else (HTCondor's daemons'
//! old semantics) the TARGET's. Anything that needs scopes beyond MY and TARGET
//! (nested records, `parent`, absolute `.x`, `LEFT`, lists of expressions, the
//! builtins in [`SCOPED_BUILTINS`]) compiles to `Reference`, which hands the whole
//! evaluation to the reference evaluator: exactness first, speed where it matters.

use crate::ad::ClassAd;
use crate::eval::Evaluator;
use crate::functions::{find, find_index, IMPURE_BUILTINS, SCOPED_BUILTINS};
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId, UnOp};
use classad_vm::{Instr, Op, Program, SlotTable, Value};

/// Names that resolve to an ad or a value in HTCondor's scope walk rather than to an
/// attribute (context and match-ad names, and the special names).
const SCOPE_NAMES: [&str; 18] = [
    "my",
    "target",
    "other",
    "ad",
    "self",
    "parent",
    "toplevel",
    "root",
    "left",
    "right",
    "lctx",
    "rctx",
    "symmetricmatch",
    "leftmatchesright",
    "rightmatchesleft",
    "leftrankvalue",
    "rightrankvalue",
    "currenttime",
];

fn is_scope_name(n: &str) -> bool {
    SCOPE_NAMES.iter().any(|s| n.eq_ignore_ascii_case(s))
}

/// Compiles `e`, an expression belonging to `my` (`None`: evaluated with no ad at
/// all), against `slots`.
pub fn compile_expr(e: &ExprRef, my: Option<&ClassAd>, slots: &mut SlotTable) -> Program {
    let (max_depth, nodes) = measure(e, e.id);
    let mut g = Gen {
        e,
        my,
        slots,
        code: Vec::new(),
        consts: Vec::new(),
        next_reg: 1,
        max_reg: 1,
    };
    g.node(e.id, 0, 0);
    let ret = Instr::new(Op::Ret, 0, 0, 0);
    g.code.push(ret);
    if g.max_reg > u16::from(u8::MAX) {
        // Too many live temporaries for 8-bit registers: leave it to the reference.
        g.code = vec![Instr::new(Op::Reference, 0, 0, 0)];
    }
    Program {
        code: g.code,
        consts: g.consts,
        nregs: g.max_reg,
        max_depth,
        nodes,
    }
}

/// HTCondor's depth (operations and selections count; literals, plain names and
/// list or record literals themselves do not, though their contents are counted
/// too, since builtins may evaluate them) and node count of a subtree.
fn measure(e: &ExprRef, id: NodeId) -> (u32, u32) {
    let kids = |ids: &mut dyn Iterator<Item = NodeId>| {
        ids.fold((0u32, 0u32), |(d, n), c| {
            let (cd, cn) = measure(e, c);
            (d.max(cd), n + cn)
        })
    };
    let (d, n) = match e.tree.node(id) {
        Node::Lit(_) | Node::Attr { scope: None, .. } => return (0, 1),
        Node::Attr { scope: Some(s), .. } => kids(&mut std::iter::once(*s)),
        Node::Unary(_, a) | Node::Paren(a) => kids(&mut std::iter::once(*a)),
        Node::Binary(_, a, b) => kids(&mut [*a, *b].into_iter()),
        Node::Ternary(a, b, c) => kids(&mut [*a, *b, *c].into_iter()),
        Node::Call { args, .. } | Node::List(args) => kids(&mut args.iter().copied()),
        Node::Record(attrs) => kids(&mut attrs.iter().map(|(_, a)| *a)),
    };
    (d + 1, n + 1)
}

struct Gen<'a> {
    e: &'a ExprRef,
    my: Option<&'a ClassAd>,
    slots: &'a mut SlotTable,
    code: Vec<Instr>,
    consts: Vec<Value>,
    next_reg: u16,
    max_reg: u16,
}

impl Gen<'_> {
    fn emit(&mut self, op: Op, x: u16, y: u16, z: u32) -> usize {
        // Registers past 255 make the whole program fall back (see compile_expr);
        // truncating here keeps the code well-formed meanwhile.
        self.code.push(Instr::new(op, x as u8, y, z));
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize) {
        self.code[at].z = self.code.len() as u32;
    }

    fn reg(&mut self) -> u16 {
        let r = self.next_reg;
        self.next_reg += 1;
        self.max_reg = self.max_reg.max(self.next_reg);
        r
    }

    fn konst(&mut self, dst: u16, v: Value) {
        let k = self.consts.len() as u32;
        self.consts.push(v);
        self.emit(Op::Const, dst, 0, k);
    }

    fn reference(&mut self) {
        self.emit(Op::Reference, 0, 0, 0);
    }

    /// Emits code leaving node `id`'s value in `dst`; `depth` is the depth its
    /// ancestors consume (for the depth bound of attribute dereferences).
    fn node(&mut self, id: NodeId, dst: u16, depth: u32) {
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
        if self.pure(id) {
            if let Some(v) = self.fold(id) {
                return self.konst(dst, v);
            }
        }
        let d = depth + 1;
        let saved = self.next_reg;
        match node {
            Node::Lit(_) | Node::Attr { scope: None, .. } => self.reference(),
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
                self.emit(op, dst, 0, u32::from(r));
            }
            Node::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let is_and = *op == BinOp::And;
                let (ra, rb) = (self.reg(), self.reg());
                self.node(*a, ra, d);
                let skip = self.emit(
                    if is_and {
                        Op::JumpIfFalse
                    } else {
                        Op::JumpIfTrue
                    },
                    ra,
                    0,
                    0,
                );
                self.node(*b, rb, d);
                self.emit(
                    if is_and { Op::And } else { Op::Or },
                    dst,
                    ra,
                    u32::from(rb),
                );
                let end = self.emit(Op::Jump, 0, 0, 0);
                self.patch(skip);
                self.konst(dst, Value::Bool(!is_and));
                self.patch(end);
            }
            Node::Binary(BinOp::Elvis, a, b) => {
                self.node(*a, dst, d);
                let end = self.emit(Op::JumpIfDefined, dst, 0, 0);
                self.node(*b, dst, d);
                self.patch(end);
            }
            Node::Binary(op, a, b) => {
                let (ra, rb) = (self.reg(), self.reg());
                self.node(*a, ra, d);
                self.node(*b, rb, d);
                self.emit(binary_op(*op), dst, ra, u32::from(rb));
            }
            Node::Ternary(c, a, b) => self.conditional(*c, *a, *b, dst, d),
            Node::Call { name, args } => self.call(name, args, dst, d),
            Node::List(_) | Node::Record(_) => self.reference(),
        }
        self.next_reg = saved;
    }

    /// `c ? a : b` (also `ifThenElse(c, a, b)`).
    fn conditional(&mut self, c: NodeId, a: NodeId, b: NodeId, dst: u16, d: u32) {
        let rc = self.reg();
        self.node(c, rc, d);
        let test = self.emit(Op::Test, dst, rc, 0);
        let to_else = self.emit(Op::JumpIfNot, rc, 0, 0);
        self.node(a, dst, d);
        let end = self.emit(Op::Jump, 0, 0, 0);
        self.patch(to_else);
        self.node(b, dst, d);
        self.patch(end);
        self.patch(test);
    }

    fn call(&mut self, name: &str, args: &[NodeId], dst: u16, d: u32) {
        let Some(b) = find(name) else {
            // An unknown function is error, its arguments unevaluated.
            return self.konst(dst, Value::Error);
        };
        if b.name.eq_ignore_ascii_case("ifThenElse") {
            return match args {
                [c, a, e] => self.conditional(*c, *a, *e, dst, d),
                _ => self.konst(dst, Value::Error),
            };
        }
        if SCOPED_BUILTINS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(b.name))
            || args.len() > 255
        {
            return self.reference();
        }
        let Some(native) = find_index(name) else {
            return self.reference();
        };
        let first = self.next_reg;
        for _ in args {
            self.reg();
        }
        for (i, a) in args.iter().enumerate() {
            self.node(*a, first + i as u16, d);
        }
        self.emit(Op::Call, dst, first, (native << 8) | args.len() as u32);
    }

    fn my_has(&self, name: &str) -> bool {
        self.my.is_some_and(|my| my.get(name).is_some())
    }

    /// An unscoped name, resolved as HTCondor's daemons do from MY's point of view.
    fn name(&mut self, name: &str, dst: u16, depth: u32) {
        if self.my.is_none() {
            // With no ad at all every name is undefined; the scope names are left to
            // the reference evaluator, which knows exactly what they give there.
            return if is_scope_name(name) {
                self.reference()
            } else {
                self.konst(dst, Value::Undefined)
            };
        }
        if self.my_has(name) {
            let slot = self.slots.intern(name);
            self.emit(Op::LoadMy, dst, site(depth), slot);
        } else if name.eq_ignore_ascii_case("CurrentTime") {
            // Old semantics: `CurrentTime` is `time()` when MY does not define it.
            let native = find_index("time").unwrap_or(u32::MAX);
            self.emit(Op::Call, dst, 0, native << 8);
        } else if is_scope_name(name) {
            self.reference();
        } else {
            // Not in MY: old semantics look in TARGET (undefined without one).
            let slot = self.slots.intern(name);
            self.emit(Op::LoadTarget, dst, site(depth), slot);
        }
    }

    /// `base.name` where the selection node consumes depth `d`.
    fn select(&mut self, base: NodeId, name: &str, dst: u16, d: u32) {
        let Node::Attr {
            scope: None,
            name: b,
            absolute: false,
        } = self.e.tree.node(base)
        else {
            return self.reference();
        };
        if self.my.is_none() || self.my_has(b) || is_scope_name(name) {
            // MY shadows the scope name, or the name selected is itself one.
            return self.reference();
        }
        let is = |s: &str| b.eq_ignore_ascii_case(s);
        // (`ad` is MY too, but only inside a match, so it is left to the reference.)
        if is("MY") || is("self") {
            if self.my_has(name) {
                let slot = self.slots.intern(name);
                self.emit(Op::LoadMy, dst, site(d), slot);
            } else {
                self.konst(dst, Value::Undefined);
            }
        } else if is("TARGET") || is("other") {
            let slot = self.slots.intern(name);
            self.emit(Op::LoadTarget, dst, site(d), slot);
        } else {
            self.reference();
        }
    }

    /// True when the subtree's value depends on nothing but itself: no names, no
    /// clock or chance, no scope-dependent builtins.
    fn pure(&self, id: NodeId) -> bool {
        match self.e.tree.node(id) {
            Node::Lit(_) => true,
            Node::Attr { .. } => false,
            Node::Unary(_, a) | Node::Paren(a) => self.pure(*a),
            Node::Binary(_, a, b) => self.pure(*a) && self.pure(*b),
            Node::Ternary(a, b, c) => self.pure(*a) && self.pure(*b) && self.pure(*c),
            Node::Call { name, args } => {
                let impure = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                !impure(&IMPURE_BUILTINS)
                    && !impure(&SCOPED_BUILTINS)
                    && args.iter().all(|a| self.pure(*a))
            }
            Node::List(items) => items.iter().all(|a| self.pure(*a)),
            Node::Record(attrs) => attrs.iter().all(|(_, a)| self.pure(*a)),
        }
    }

    /// The value of a pure subtree, computed now by the reference evaluator (so
    /// folding is exact by construction); `None` if its evaluation fails.
    fn fold(&self, id: NodeId) -> Option<Value> {
        Evaluator::new(true).eval(&self.e.child(id), None).ok()
    }
}

/// The depth operand of a load: saturates, which only makes the bound stricter.
fn site(depth: u32) -> u16 {
    depth.min(u32::from(u16::MAX)) as u16
}

fn binary_op(op: BinOp) -> Op {
    match op {
        BinOp::Mul => Op::Mul,
        BinOp::Div => Op::Div,
        BinOp::Mod => Op::Mod,
        BinOp::Add => Op::Add,
        BinOp::Sub => Op::Sub,
        BinOp::Shl => Op::Shl,
        BinOp::Shr => Op::Shr,
        BinOp::UShr => Op::UShr,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        BinOp::Ge => Op::Ge,
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
        BinOp::Is => Op::Is,
        BinOp::Isnt => Op::Isnt,
        BinOp::BitAnd => Op::BitAnd,
        BinOp::BitXor => Op::BitXor,
        BinOp::BitOr => Op::BitOr,
        BinOp::And => Op::And,
        BinOp::Or => Op::Or,
        // `?:` compiles to a jump before it gets here.
        BinOp::Elvis | BinOp::Subscript => Op::Index,
    }
}
