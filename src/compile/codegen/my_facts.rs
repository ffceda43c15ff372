//! MY facts: which of MY's attributes are constants (values that depend on
//! nothing but MY), what evaluating them costs HTCondor, and which must fail.

use super::is_scope_name;
use super::scopes::names_my_ad;
use crate::ad::ClassAd;
use crate::eval::Evaluator;
use crate::functions::{ERROR_ON_FAILED_ARGUMENT, IMPURE_BUILTINS, SCOPED_BUILTINS};
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId};
use classad_vm::instr::Operands;
use classad_vm::{SlotTable, Value};
use std::sync::Arc;

/// What is known of MY's attributes while compiling one ad: which are constants
/// (see [`MyFacts::constant`]), memoized, because attributes reach each other.
pub(crate) struct MyFacts {
    pub(super) ad: Arc<ClassAd>,
    /// Attribute expression (tree, node) -> its cost when it only reaches MY.
    closed: std::collections::HashMap<(usize, NodeId), Option<Cost>>,
    /// Attribute expression -> a depth it is known to pass (see `attr_cost`).
    deeper_than: std::collections::HashMap<(usize, NodeId), u32>,
    constants: std::collections::HashMap<String, Option<Constant>>,
    /// The attributes being inlined, outermost first (lower case).
    pub(super) inlining: Vec<String>,
    /// Set when an inlined attribute reached one of `inlining`.
    pub(super) cycle: bool,
    /// The depth at which the attribute being inlined starts, counted from the
    /// outermost program (0 outside inlining).
    pub(super) inline_base: u32,
}

impl MyFacts {
    pub(crate) fn new(ad: Arc<ClassAd>) -> MyFacts {
        MyFacts {
            ad,
            closed: Default::default(),
            deeper_than: Default::default(),
            constants: Default::default(),
            inlining: Vec::new(),
            cycle: false,
            inline_base: 0,
        }
    }

    /// The value of MY's attribute `name` when it depends on nothing but MY: a
    /// literal, or an expression whose names all resolve, acyclically, to MY's own
    /// attributes, with no clock, chance or scope-dependent builtins. Also the
    /// depth and steps HTCondor spends evaluating it (upper bounds). Such a value
    /// is the same in every match, so it is computed once, whatever its size
    /// (issue 33: `A0 = A1 + A1; ... A18 = 1` in a job's Requirements was
    /// evaluated again for every slot); `None` when its evaluation fails or may
    /// take more steps than an evaluation may fold
    /// ([`classad_vm::limits::MAX_FOLDED_STEPS`]).
    pub(super) fn constant(&mut self, name: &str) -> Option<Constant> {
        let key = name.to_ascii_lowercase();
        if let Some(c) = self.constants.get(&key) {
            return c.clone();
        }
        let c = self.compute_constant(name);
        self.constants.insert(key, c.clone());
        c
    }

    fn compute_constant(&mut self, name: &str) -> Option<Constant> {
        let e = self.ad.get(name)?.to_expr_ref();
        if let Node::Lit(v) = e.node() {
            let value = match v {
                Value::RelTime(r) => Value::Real(*r),
                v => v.clone(),
            };
            return Some(Constant {
                value,
                depth: 0,
                steps: ConstantSteps::Estimate(1),
            });
        }
        let mut visiting = Vec::new();
        let Cost { depth, most, .. } =
            self.attr_cost(&e, MAX_CONSTANT_DEPTH, &mut visiting).ok()?;
        let (value, steps) = if most <= MAX_ESTIMATED_CONSTANT_STEPS {
            let value = self.evaluated(&e)?;
            (value, ConstantSteps::Estimate(most as u32))
        } else if most <= classad_vm::limits::MAX_FOLDED_STEPS {
            // Walking every path of `A0 = A1 + A1; ... A18 = 1` is exponential;
            // folding its expression over the constants it reaches, each worked
            // out once here, is linear.
            let value = match self.folded(&e) {
                Some(v) => v,
                None => self.evaluated(&e)?,
            };
            (value, ConstantSteps::Folded(most as u32))
        } else {
            return None;
        };
        Some(Constant {
            value,
            depth,
            steps,
        })
    }

    /// The value of MY's attribute expression `e`, by the reference evaluator.
    fn evaluated(&self, e: &ExprRef) -> Option<Value> {
        let scope = crate::values::scope::Scope::of_ad(self.ad.clone());
        Evaluator::new(true).eval(e, Some(&scope)).ok()
    }

    /// The value of MY's attribute expression `e` when the compiler folds it to
    /// a constant, with what is known of MY (each attribute it reaches folded
    /// once, by this table): exact by construction, as every folded constant is.
    fn folded(&mut self, e: &ExprRef) -> Option<Value> {
        let p = super::compile_inner(e, Some(self), &mut SlotTable::new(), false, None);
        match (p.code.as_slice(), p.consts.as_slice()) {
            ([k, ret], [v]) => match (k.operands(), ret.operands()) {
                (Operands::Const(k), Operands::Ret(ret)) if k.dst == ret.src => Some(v.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// True when evaluating MY's attribute `name` certainly fails, in any match:
    /// it depends on nothing but MY, and evaluates more nodes than HTCondor's step
    /// limit allows even along the operands every evaluation of it must evaluate
    /// (`A0 = A1 + A1; ... A30 = 1`). Whatever the evaluation spent before reaching
    /// it only brings the limit closer, so the answer is the same for every slot
    /// and needs no evaluation at all.
    pub(super) fn certainly_fails(&mut self, name: &str) -> bool {
        let Some(e) = self.ad.get(name).map(|e| e.to_expr_ref()) else {
            return false;
        };
        self.attr_cost(&e, MAX_CONSTANT_DEPTH, &mut Vec::new())
            .is_ok_and(|c| c.least > crate::eval::evaluator::MAX_STEPS)
    }

    /// The cost of evaluating attribute expression `e` when it only reaches MY's
    /// attributes; `Err(NotClosed::Open)` otherwise, or on a cycle, and
    /// `Err(NotClosed::TooDeep)` when the depth passes `budget`.
    ///
    /// The budget bounds the recursion (a chain of any length is refused after
    /// `budget` levels); a refusal is remembered with the budget it passed.
    fn attr_cost(
        &mut self,
        e: &ExprRef,
        budget: u32,
        visiting: &mut Vec<(usize, NodeId)>,
    ) -> Result<Cost, NotClosed> {
        let key = (Arc::as_ptr(&e.tree) as usize, e.id);
        if let Some(c) = self.closed.get(&key) {
            return match *c {
                Some(c) if c.depth > budget => Err(NotClosed::TooDeep),
                Some(c) => Ok(c),
                None => Err(NotClosed::Open),
            };
        }
        if self.deeper_than.get(&key).is_some_and(|&b| budget <= b) {
            return Err(NotClosed::TooDeep);
        }
        if visiting.contains(&key) {
            return Err(NotClosed::Open);
        }
        visiting.push(key);
        let c = self.cost(e, e.id, budget, visiting);
        visiting.pop();
        match c {
            Ok(c) => {
                self.closed.insert(key, Some(c));
            }
            Err(NotClosed::Open) => {
                self.closed.insert(key, None);
            }
            Err(NotClosed::TooDeep) => {
                self.deeper_than.insert(key, budget);
            }
        }
        c
    }

    fn cost(
        &mut self,
        e: &ExprRef,
        id: NodeId,
        budget: u32,
        visiting: &mut Vec<(usize, NodeId)>,
    ) -> Result<Cost, NotClosed> {
        // `mandatory` of the children are evaluated whenever the node is (the rest
        // only on some paths: the right side of `&&`, a branch, a call's arguments).
        let kids =
            |ids: &[NodeId], mandatory: usize, me: &mut MyFacts, v: &mut Vec<(usize, NodeId)>| {
                // An operation is one level above its operands.
                let below = budget.checked_sub(1).ok_or(NotClosed::TooDeep)?;
                ids.iter()
                    .enumerate()
                    .try_fold(Cost::leaf(), |acc, (i, &c)| {
                        let k = me.cost(e, c, below, v)?;
                        Ok(Cost {
                            depth: acc.depth.max(k.depth + 1),
                            most: acc.most.saturating_add(k.most),
                            least: if i < mandatory {
                                acc.least.saturating_add(k.least)
                            } else {
                                acc.least
                            },
                        })
                    })
            };
        let reach = |name: &str, site: u32, me: &mut MyFacts, v: &mut Vec<(usize, NodeId)>| {
            let target = me.ad.get(name).ok_or(NotClosed::Open)?.to_expr_ref();
            let below = budget.checked_sub(site + 1).ok_or(NotClosed::TooDeep)?;
            let c = me.attr_cost(&target, below, v)?;
            Ok(Cost {
                depth: site + 1 + c.depth,
                most: c.most.saturating_add(1),
                least: c.least.saturating_add(1),
            })
        };
        match e.tree.node(id) {
            Node::Lit(_) => Ok(Cost::leaf()),
            Node::Attr {
                scope: None,
                name,
                absolute: false,
            } if !is_scope_name(name) => reach(name, 0, self, visiting),
            Node::Attr { scope: Some(_), .. } => match e.tree.named_selection(id) {
                Some((b, name)) if names_my_ad(Some(&self.ad), b) && !is_scope_name(name) => {
                    reach(name, 1, self, visiting)
                }
                _ => Err(NotClosed::Open),
            },
            // A list of literals is the same list in every match (`AllowedGroups =
            // { "physics", "bio" }`): its elements evaluate to themselves in any
            // scope. Any other list or record holds names resolved where it is
            // used.
            Node::List(items)
                if items
                    .iter()
                    .all(|&i| matches!(e.tree.node(i), Node::Lit(_))) =>
            {
                kids(items, 0, self, visiting)
            }
            Node::Attr { .. } | Node::List(_) | Node::Record(_) => Err(NotClosed::Open),
            Node::Unary(_, a) | Node::Paren(a) => kids(&[*a], 1, self, visiting),
            Node::Binary(op, a, b) => {
                let mandatory = match op {
                    BinOp::And | BinOp::Or | BinOp::Elvis => 1,
                    _ => 2,
                };
                kids(&[*a, *b], mandatory, self, visiting)
            }
            Node::Ternary(a, b, c) => kids(&[*a, *b, *c], 1, self, visiting),
            Node::Call { name, args } => {
                let listed = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                if listed(&IMPURE_BUILTINS)
                    || listed(&SCOPED_BUILTINS)
                    || listed(&ERROR_ON_FAILED_ARGUMENT)
                {
                    return Err(NotClosed::Open);
                }
                // A builtin may leave its arguments unevaluated (a wrong count,
                // `ifThenElse`): none counts as certain.
                kids(args, 0, self, visiting)
            }
        }
    }
}

/// MY's attribute folded into a constant: its value, the depth HTCondor's
/// evaluation of it reaches (an upper bound), and its steps.
#[derive(Clone, Debug)]
pub(super) struct Constant {
    pub(super) value: Value,
    pub(super) depth: u32,
    pub(super) steps: ConstantSteps,
}

/// The steps HTCondor spends on a folded constant (an upper bound: every node
/// of every path), as the program charges them.
#[derive(Clone, Copy, Debug)]
pub(super) enum ConstantSteps {
    /// Small enough to join the program's own node count, the machine's
    /// estimate.
    Estimate(u32),
    /// Past [`MAX_ESTIMATED_CONSTANT_STEPS`]: charged apart, as folded steps
    /// (see `Program::folded_steps`).
    Folded(u32),
}

/// The largest bound on a constant's steps charged to the machine's estimate (a
/// tenth of the lanes' share of it): larger ones are charged as folded steps.
const MAX_ESTIMATED_CONSTANT_STEPS: u64 = 100_000;

/// The deepest MY attribute folded into a constant (HTCondor's limit is 400; the
/// margin leaves room for the references that reach it).
const MAX_CONSTANT_DEPTH: u32 = 300;

/// What evaluating an expression of MY's own attributes costs HTCondor: the depth it
/// reaches, and the nodes it evaluates at most (every operand and branch) and at
/// least (only the operands every evaluation evaluates). Node counts saturate.
#[derive(Clone, Copy, Debug)]
struct Cost {
    depth: u32,
    most: u64,
    least: u64,
}

impl Cost {
    /// One node, no depth below it.
    pub(super) fn leaf() -> Cost {
        Cost {
            depth: 0,
            most: 1,
            least: 1,
        }
    }
}

/// Why an attribute is not one of MY's constants (see [`MyFacts::attr_cost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NotClosed {
    /// It reaches something other than MY's attributes, or a cycle.
    Open,
    /// It nests deeper than the budget.
    TooDeep,
}

/// What builtin `run` gives with `argc` arguments when it does not evaluate any of
/// them (a wrong number of arguments); `None` when it asks for an argument. The
/// machine evaluates arguments before the call, so such calls must not reach it:
/// an argument could fail where HTCondor never evaluates it.
pub(super) fn without_arguments(run: crate::functions::BuiltinFn, argc: usize) -> Option<Value> {
    struct Probe {
        argc: usize,
        asked: bool,
        ev: Evaluator,
    }
    impl crate::functions::Call for Probe {
        fn argc(&self) -> usize {
            self.argc
        }
        fn arg(&mut self, _: usize) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn arg_expr(&self, _: usize) -> ExprRef {
            ExprRef::root_of(Arc::new(crate::syntax::ast::Expr::literal(
                Value::Undefined,
            )))
        }
        fn referenced(
            &mut self,
            _: usize,
        ) -> Result<crate::functions::Referenced, crate::functions::RefError> {
            self.asked = true;
            Err(crate::functions::RefError::Failed)
        }
        fn eval_source(&mut self, _: &str) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn arg_lenient(&mut self, _: usize, _: Option<Arc<crate::values::scope::Scope>>) -> Value {
            self.asked = true;
            Value::Error
        }
        fn eval_in_ad(
            &mut self,
            _: &ExprRef,
            _: &Value,
            _: Option<Arc<crate::values::scope::Scope>>,
        ) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn list_item(&mut self, _: &Value, _: usize) -> Result<Value, crate::eval::Fail> {
            self.asked = true;
            Err(crate::eval::Fail)
        }
        fn scope(&self) -> Option<Arc<crate::values::scope::Scope>> {
            None
        }
        fn evaluator(&mut self) -> &mut dyn crate::functions::Evaluating {
            self.asked = true;
            &mut self.ev
        }
    }
    let mut probe = Probe {
        argc,
        asked: false,
        ev: Evaluator::new(true),
    };
    let r = run(&mut probe);
    match r {
        Ok(v) if !probe.asked => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;

    /// `A0 = A1 + A1; ... A{n} = 1`: `A{k}` evaluates about 3 * 2^(n-k) nodes.
    fn doubling_ad(n: usize, requirements: &str) -> String {
        let mut s: String = (0..n)
            .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
            .collect();
        s.push_str(&format!("A{n} = 1\nRequirements = {requirements}\n"));
        s
    }

    #[test]
    fn my_attributes_past_the_step_limit_fail_without_evaluation() {
        let my = doubling_ad(30, "A0 > 0 && TARGET.Cpus > 0");
        // Every evaluation must evaluate A0's 3 * 2^30 nodes: it fails against any
        // slot, as HTCondor's does at its 10,000,000th step.
        let p = compiled("Requirements", &my, "Cpus = 1");
        assert!(ops(&p).contains(&Op::Fail), "{p}");
        // A8 must evaluate about 12.6 million nodes, A9 6.3 million: A9 has a value.
        let program = |name: &str| {
            let e = ExprRef::root_of(Arc::new(parse_expr(name).unwrap()));
            compile_expr(&e, Some(&ad(&my)), &mut SlotTable::new())
        };
        assert!(ops(&program("A8")).contains(&Op::Fail));
        assert!(
            !ops(&program("A9")).contains(&Op::Fail),
            "{}",
            program("A9")
        );
        // The failure comes only where the operand is evaluated, and is HTCondor's
        // whatever surrounds it (`compiled` holds the VM against the reference).
        for expr in [
            "A30 > 0 || A0",
            "ifThenElse(TARGET.Cpus > 0, 1, A0)",
            "false ? A0 : 2",
        ] {
            compiled(expr, &my, "Cpus = 1");
        }
        compiled("ifThenElse(TARGET.Cpus > 0, 1, A0)", &my, "Cpus = 0");
    }
}
