//! The expression tree: nodes in a flat arena addressed by `u32` ids.

use classad_vm::ops::{Arith, Binary, Bit, Cmp};
use classad_vm::{Str, Value};
use std::sync::Arc;

/// Index of a node inside its [`Expr`] arena.
pub type NodeId = u32;

/// Unary operators, as HTCondor's `Operation1` has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

/// Binary operators, as HTCondor's `Operation2` has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `>>>` (logical)
    UShr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `=?=` and `is` (one operator in HTCondor)
    Is,
    /// `=!=` and `isnt`
    Isnt,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `a ?: b`: `a` unless it is undefined
    Elvis,
    /// `a[b]`
    Subscript,
}

/// What the front end knows of a binary operator, one row per operator: how
/// HTCondor's new-syntax unparser spells it, its precedence among the binary
/// operators (lowest, `||`, is 0; `None` for `?:` and subscripts, which the parser
/// reads at levels of their own), and the rule it applies to two values (`None`
/// for `?:` and subscripts).
type Row = (&'static str, Option<u8>, Option<Binary>);

impl BinOp {
    /// This operator's row (see [`Row`]).
    const fn row(self) -> Row {
        match self {
            BinOp::Mul => ("*", Some(9), Some(Binary::Arith(Arith::Mul))),
            BinOp::Div => ("/", Some(9), Some(Binary::Arith(Arith::Div))),
            BinOp::Mod => ("%", Some(9), Some(Binary::Arith(Arith::Mod))),
            BinOp::Add => ("+", Some(8), Some(Binary::Arith(Arith::Add))),
            BinOp::Sub => ("-", Some(8), Some(Binary::Arith(Arith::Sub))),
            BinOp::Shl => ("<<", Some(7), Some(Binary::Bit(Bit::Shl))),
            BinOp::Shr => (">>", Some(7), Some(Binary::Bit(Bit::Shr))),
            BinOp::UShr => (">>>", Some(7), Some(Binary::Bit(Bit::UShr))),
            BinOp::Lt => ("<", Some(6), Some(Binary::Cmp(Cmp::Lt))),
            BinOp::Le => ("<=", Some(6), Some(Binary::Cmp(Cmp::Le))),
            BinOp::Gt => (">", Some(6), Some(Binary::Cmp(Cmp::Gt))),
            BinOp::Ge => (">=", Some(6), Some(Binary::Cmp(Cmp::Ge))),
            BinOp::Eq => ("==", Some(5), Some(Binary::Cmp(Cmp::Eq))),
            BinOp::Ne => ("!=", Some(5), Some(Binary::Cmp(Cmp::Ne))),
            BinOp::Is => ("is", Some(5), Some(Binary::Cmp(Cmp::Is))),
            BinOp::Isnt => ("isnt", Some(5), Some(Binary::Cmp(Cmp::Isnt))),
            BinOp::BitAnd => ("&", Some(4), Some(Binary::Bit(Bit::And))),
            BinOp::BitXor => ("^", Some(3), Some(Binary::Bit(Bit::Xor))),
            BinOp::BitOr => ("|", Some(2), Some(Binary::Bit(Bit::Or))),
            BinOp::And => ("&&", Some(1), Some(Binary::And)),
            BinOp::Or => ("||", Some(0), Some(Binary::Or)),
            BinOp::Elvis => ("?:", None, None),
            BinOp::Subscript => ("[]", None, None),
        }
    }

    /// The operator as HTCondor's new-syntax unparser spells it (without spaces).
    pub fn new_syntax(self) -> &'static str {
        self.row().0
    }

    /// Its precedence among the binary operators the parser reads by precedence,
    /// lowest (`||`) = 0; `None` for `?:` and subscripts.
    pub fn precedence(self) -> Option<u8> {
        self.row().1
    }

    /// The rule it applies to its two values (which every engine shares); `None`
    /// for `?:` and subscripts. `&&` and `||` apply theirs only when the left
    /// operand did not decide.
    pub fn binary(self) -> Option<Binary> {
        self.row().2
    }

    /// The comparison it is, if it is one (`< <= > >= == != =?= =!=`).
    pub fn comparison(self) -> Option<Cmp> {
        match self.binary()? {
            Binary::Cmp(c) => Some(c),
            _ => None,
        }
    }
}

/// One node of an expression tree.
#[derive(Clone, Debug)]
pub enum Node {
    /// A literal value: undefined, error, boolean, integer, real, string, and the
    /// absolute/relative times that `absTime("...")`/`relTime("...")` fold to.
    Lit(Value),
    /// An attribute reference: `name`, `.name` (absolute: looked up from the root), or
    /// `scope.name` where `scope` is any expression (`MY.x`, `TARGET.x`, `a.b.c`).
    Attr {
        /// The expression selected from; `None` for a bare or absolute name.
        scope: Option<NodeId>,
        /// The attribute name as written (lookups ignore case).
        name: Str,
        /// `.name`: looked up from the outermost ad.
        absolute: bool,
    },
    /// A unary operation.
    Unary(UnOp, NodeId),
    /// A binary operation (including subscript and elvis).
    Binary(BinOp, NodeId, NodeId),
    /// `c ? a : b`
    Ternary(NodeId, NodeId, NodeId),
    /// `( e )`: HTCondor keeps parentheses in the tree and prints them back.
    Paren(NodeId),
    /// A function call; the name keeps its spelling, the function is found ignoring case.
    Call {
        /// The function name as written.
        name: Str,
        /// The argument expressions, unevaluated.
        args: Vec<NodeId>,
    },
    /// `{ e1, e2, ... }`
    List(Vec<NodeId>),
    /// `[ a = e1; b = e2 ]`: a nested ClassAd.
    Record(Vec<(Str, NodeId)>),
}

impl Node {
    /// Calls `f` on every child id, in source order.
    pub fn for_each_child(&self, mut f: impl FnMut(NodeId)) {
        match self {
            Node::Lit(_) | Node::Attr { scope: None, .. } => {}
            Node::Attr { scope: Some(a), .. } | Node::Unary(_, a) | Node::Paren(a) => f(*a),
            Node::Binary(_, a, b) => {
                f(*a);
                f(*b);
            }
            Node::Ternary(a, b, c) => {
                f(*a);
                f(*b);
                f(*c);
            }
            Node::Call { args: items, .. } | Node::List(items) => items.iter().for_each(|&a| f(a)),
            Node::Record(attrs) => attrs.iter().for_each(|(_, a)| f(*a)),
        }
    }

    /// The same node with every child id passed through `f` (for moving a tree into
    /// another arena).
    pub fn map_children(&self, mut f: impl FnMut(NodeId) -> NodeId) -> Node {
        match self {
            Node::Lit(_) => self.clone(),
            Node::Attr {
                scope,
                name,
                absolute,
            } => Node::Attr {
                scope: scope.map(&mut f),
                name: name.clone(),
                absolute: *absolute,
            },
            Node::Unary(op, a) => Node::Unary(*op, f(*a)),
            Node::Binary(op, a, b) => Node::Binary(*op, f(*a), f(*b)),
            Node::Ternary(a, b, c) => Node::Ternary(f(*a), f(*b), f(*c)),
            Node::Paren(a) => Node::Paren(f(*a)),
            Node::Call { name, args } => Node::Call {
                name: name.clone(),
                args: args.iter().map(|&a| f(a)).collect(),
            },
            Node::List(items) => Node::List(items.iter().map(|&a| f(a)).collect()),
            Node::Record(attrs) => {
                Node::Record(attrs.iter().map(|(n, a)| (n.clone(), f(*a))).collect())
            }
        }
    }
}

/// A parsed expression: an arena of nodes and the id of its root.
///
/// Nodes refer to their children by id, so a tree is one allocation, `Send + Sync`,
/// and cheap to share behind an `Arc`.
#[derive(Clone, Debug)]
pub struct Expr {
    nodes: Vec<Node>,
    root: NodeId,
}

impl Expr {
    /// Builds an expression from its arena; `root` must index into `nodes`.
    pub fn from_parts(nodes: Vec<Node>, root: NodeId) -> Expr {
        assert!((root as usize) < nodes.len(), "root outside the arena");
        Expr { nodes, root }
    }

    /// An expression that is a single literal.
    pub fn literal(v: Value) -> Expr {
        Expr {
            nodes: vec![Node::Lit(v)],
            root: 0,
        }
    }

    /// The root node's id.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The node with id `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// When node `id` selects a name from a bare name (`MY.x`, `TARGET.x`): the
    /// two names, the bare one first.
    pub fn named_selection(&self, id: NodeId) -> Option<(&Str, &Str)> {
        let Node::Attr {
            scope: Some(s),
            name,
            ..
        } = self.node(id)
        else {
            return None;
        };
        match self.node(*s) {
            Node::Attr {
                scope: None,
                name: base,
                absolute: false,
            } => Some((base, name)),
            _ => None,
        }
    }

    /// All nodes, in arena order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// How deep lists and records nest in the subtree at `id`: 0 for one that
    /// has none, 1 for `{ 1 }` or `[ a = 1 ]`, 2 for `{ { 1 } }`, ... (for
    /// bounding what is built from parts of trees). Iterative, so trees of any
    /// depth are measured.
    pub fn nesting(&self, id: NodeId) -> u32 {
        let mut deepest = 0;
        let mut stack = vec![(id, 0u32)];
        while let Some((n, above)) = stack.pop() {
            let node = self.node(n);
            let here = above + u32::from(matches!(node, Node::List(_) | Node::Record(_)));
            deepest = deepest.max(here);
            node.for_each_child(|c| stack.push((c, here)));
        }
        deepest
    }
}

/// Copies the subtree of `src` at `id` into the arena `nodes` and gives its new id:
/// how a tree is built from parts of other trees (a residual expression keeping
/// the parts it could not fold, a list whose elements come from other
/// expressions). Iterative, so trees of any depth are copied.
pub fn copy_into(src: &Expr, id: NodeId, nodes: &mut Vec<Node>) -> NodeId {
    // Every node of the subtree, parents before children.
    let mut order: Vec<NodeId> = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        order.push(n);
        src.node(n).for_each_child(|c| stack.push(c));
    }
    let base = nodes.len() as NodeId;
    let new_id: std::collections::HashMap<NodeId, NodeId> = order
        .iter()
        .enumerate()
        .map(|(i, &n)| (n, base + i as NodeId))
        .collect();
    for &n in &order {
        nodes.push(src.node(n).map_children(|c| new_id[&c]));
    }
    base
}

/// A node of a shared expression tree: what lazily evaluated lists and records point
/// at.
#[derive(Clone, Debug)]
pub struct ExprRef {
    /// The tree.
    pub tree: Arc<Expr>,
    /// The node inside it.
    pub id: NodeId,
}

impl ExprRef {
    /// The root of `tree`.
    pub fn root_of(tree: Arc<Expr>) -> ExprRef {
        let id = tree.root();
        ExprRef { tree, id }
    }

    /// The node this refers to.
    pub fn node(&self) -> &Node {
        self.tree.node(self.id)
    }

    /// Another node of the same tree.
    pub fn child(&self, id: NodeId) -> ExprRef {
        ExprRef {
            tree: self.tree.clone(),
            id,
        }
    }

    /// The same node, borrowed.
    pub fn view(&self) -> ExprView<'_> {
        ExprView {
            tree: &self.tree,
            id: self.id,
        }
    }
}

/// A node of a shared expression tree, borrowed: how a ClassAd lends its attributes
/// out without touching reference counts (an atomic operation each).
#[derive(Clone, Copy, Debug)]
pub struct ExprView<'a> {
    /// The tree.
    pub tree: &'a Arc<Expr>,
    /// The node inside it.
    pub id: NodeId,
}

impl<'a> ExprView<'a> {
    /// The node this refers to.
    pub fn node(&self) -> &'a Node {
        self.tree.node(self.id)
    }

    /// An owned reference to the same node, for keeping beyond the borrow.
    pub fn to_expr_ref(&self) -> ExprRef {
        ExprRef {
            tree: self.tree.clone(),
            id: self.id,
        }
    }
}

impl From<ExprView<'_>> for ExprRef {
    fn from(v: ExprView<'_>) -> ExprRef {
        v.to_expr_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{parse_expr, unparse};

    /// Every operator the parser reads by precedence, from its row's spelling:
    /// the row's spelling parses to its operator, and the parser ranks each pair
    /// of operators by the rows' precedence, left-associative. (The levels
    /// themselves are held against HTCondor by the conformance tests.)
    #[test]
    fn each_row_spells_and_ranks_its_operator() {
        use BinOp::*;
        let ops = [
            Mul, Div, Mod, Add, Sub, Shl, Shr, UShr, Lt, Le, Gt, Ge, Eq, Ne, Is, Isnt, BitAnd,
            BitXor, BitOr, And, Or,
        ];
        for op in ops {
            let e = parse_expr(&format!("a {} b", op.new_syntax())).unwrap();
            assert!(
                matches!(e.node(e.root()), Node::Binary(o, ..) if *o == op),
                "{op:?}"
            );
            for other in ops {
                let e = parse_expr(&format!("a {} b {} c", op.new_syntax(), other.new_syntax()))
                    .unwrap();
                let Node::Binary(top, ..) = e.node(e.root()) else {
                    panic!("{op:?} {other:?}");
                };
                // Left-associative: the right operator is at the top unless it
                // binds tighter.
                let want = if other.precedence() > op.precedence() {
                    op
                } else {
                    other
                };
                assert_eq!(*top, want, "a {op:?} b {other:?} c");
            }
        }
    }

    #[test]
    fn named_selections_are_of_a_bare_name_only() {
        let sel = |text: &str| {
            let e = parse_expr(text).unwrap();
            e.named_selection(e.root()).map(|(b, n)| format!("{b}.{n}"))
        };
        assert_eq!(sel("MY.x").as_deref(), Some("MY.x"));
        assert_eq!(sel("target.Memory").as_deref(), Some("target.Memory"));
        assert_eq!(sel("x"), None);
        assert_eq!(sel(".a.x"), None);
        assert_eq!(sel("a.b.x"), None);
        assert_eq!(sel("[a = 1].a"), None);
    }

    #[test]
    fn copy_into_keeps_the_subtree_and_nothing_else() {
        let e = parse_expr("f(a + 1, {b, [c = 2]}) * 3").unwrap();
        // The call, the left operand of `*`.
        let Node::Binary(BinOp::Mul, call, _) = e.node(e.root()) else {
            panic!("not a product");
        };
        let mut nodes = vec![Node::Lit(Value::Int(7))];
        let root = copy_into(&e, *call, &mut nodes);
        assert_eq!(root, 1);
        let copy = Expr::from_parts(nodes, root);
        assert_eq!(unparse(&copy), "f(a + 1,{ b,[ c = 2 ] })");
        assert_eq!(copy.nodes().len(), 1 + 8);
    }

    #[test]
    fn nesting_counts_lists_and_records_only() {
        let nesting = |text: &str| {
            let e = parse_expr(text).unwrap();
            e.nesting(e.root())
        };
        assert_eq!(nesting("a + f(1, (2))"), 0);
        assert_eq!(nesting("{ 1 }"), 1);
        assert_eq!(nesting("[ a = 1 ]"), 1);
        assert_eq!(nesting("{ 1, { 2, [ a = { 3 } ] }, f({ 4 }) }"), 4);
        assert_eq!(nesting("f(((({ { 1 } }))))"), 2);
        // Deeper than the parser reads: built by hand, measured without recursion.
        let mut nodes = vec![Node::Lit(Value::Int(1))];
        for i in 0..100_000 {
            nodes.push(Node::List(vec![i]));
        }
        let deep = Expr::from_parts(nodes, 100_000);
        assert_eq!(deep.nesting(deep.root()), 100_000);
        assert_eq!(deep.nesting(7), 7);
    }
}
