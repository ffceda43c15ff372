//! The tree-walking evaluator: HTCondor's `_Evaluate` methods, one match arm a node.

use super::Fail;
use crate::syntax::ast::{BinOp, ExprRef, Node, NodeId, UnOp};
use crate::values::compound::identity;
use crate::values::compound::{
    ad_value, as_ad, as_list, detached, list_value, out_of_copy, projected_list, subscript_copy,
    Held, ListVal,
};
use crate::values::scope::{frame_identity, Found, Frame, Scope, ScopeIdentity};
use classad_vm::ops::{self, Binary, Cmp};
use classad_vm::Value;
use std::sync::Arc;

/// HTCondor's limit on nested operations and attribute dereferences (the
/// machine's too: defined once, in `classad_vm::limits`).
pub use classad_vm::limits::MAX_DEPTH;
/// HTCondor's bound on `a.b.c...` selection chains: a longer chain is an error.
pub const MAX_SELECT_CHAIN: usize = 400;
/// HTCondor's budget of node evaluations for one top-level evaluation (the
/// machine's too: defined once, in `classad_vm::limits`).
pub use classad_vm::limits::MAX_STEPS;
/// Our bound on the node evaluations of one top-level evaluation together with the
/// fresh evaluations it starts (ad subscripts, `evalInEachContext`, `countMatches`),
/// each of which HTCondor gives a budget of its own: nested, they multiply, and
/// HTCondor then runs without bound (a fresh evaluation does not know what is being
/// evaluated around it, so `A = countMatches(A, {[a = 1], [b = 2]})` recurses,
/// doubling at each level). Twice HTCondor's budget: room for an evaluation and one
/// fresh one to spend theirs, a few seconds at most. Past it the evaluation fails.
pub const MAX_TOTAL_STEPS: u64 = 2 * MAX_STEPS;
/// Our bound on how deeply one top-level evaluation, with the fresh evaluations it
/// starts, may nest: every operation, reference, selection and call counts, also
/// those HTCondor's depth does not count (calls; the fresh evaluations, each of
/// which HTCondor gives a depth of its own). It keeps our stack bounded where
/// HTCondor's is not (a subscript that reaches itself, `[x = self["x"]].x`,
/// recurses until HTCondor's stack overflows). Past it the evaluation fails.
pub const MAX_TOTAL_DEPTH: u32 = 1_000;

/// State of one top-level evaluation: HTCondor's `EvalState`.
pub struct Evaluator {
    /// Old ClassAd semantics (HTCondor's daemons): unscoped names fall back to the
    /// other ad of a match, and `MY` and `CurrentTime` are special names.
    pub old_semantics: bool,
    depth_left: u32,
    steps_left: u64,
    /// What is left of [`MAX_TOTAL_STEPS`].
    total_steps_left: u64,
    /// How deeply the evaluation nests now (see [`MAX_TOTAL_DEPTH`]).
    nesting: u32,
    /// The attributes being evaluated (ad, expression), for cycle detection.
    stack: Vec<AttrKey>,
    /// Where each fresh evaluation around this point started (see
    /// [`Self::fresh`]), outermost first.
    fresh_starts: Vec<FreshStart>,
    /// The value a failed evaluation leaves behind: HTCondor's node that fails
    /// still writes its output value (an operator or a call sets error; an
    /// attribute reference leaves what its target left, or nothing when the
    /// reference itself could not be resolved). A list subscript ignores the
    /// failure of the element it evaluates and keeps that value.
    residue: Value,
    /// HTCondor's `rootAd`: where `.name`, `toplevel` and `root` start. Set by
    /// the first evaluation (the outermost ad of its scope; none without an ad),
    /// and, as HTCondor's fresh `EvalState`s do, for the element evaluations of a
    /// list selection, an ad subscript and `evalInEachContext`/`countMatches`.
    /// A record literal met along the way does not become the root. The outer
    /// `None`: not set yet.
    root: Option<Option<Arc<Scope>>>,
    /// While an expression is evaluated away from where it was written
    /// (`evalInEachContext` evaluates it in each ad of a list), the scope it was
    /// written in: HTCondor's record and list literals keep that lexical parent
    /// rather than the ad they are evaluated in. Cleared on entering an
    /// attribute's own expression. `None`: no such evaluation.
    lexical: Option<Option<Arc<Scope>>>,
    /// HTCondor's `unresolved` and `evalInEachContext` look their reference up
    /// with the evaluation's own state and leave its current ad where the lookup
    /// ended: names (and calls) evaluated after them in the same attribute's
    /// expression then start there, until that attribute's evaluation returns
    /// and the ad it started in is restored. `None`: no such lookup happened.
    leaked: Option<Option<Arc<Scope>>>,
    /// What [`super::independent::IndependentParts`] recorded of the expression
    /// whose tree is `parts_tree`, when evaluating it in ad after ad.
    pub(crate) parts: Option<std::collections::HashMap<NodeId, super::independent::Recorded>>,
    pub(crate) parts_tree: usize,
}

impl Evaluator {
    /// A fresh evaluation.
    pub fn new(old_semantics: bool) -> Evaluator {
        Evaluator {
            old_semantics,
            depth_left: MAX_DEPTH,
            steps_left: MAX_STEPS,
            total_steps_left: MAX_TOTAL_STEPS,
            nesting: 0,
            stack: Vec::new(),
            fresh_starts: Vec::new(),
            residue: Value::Undefined,
            root: None,
            lexical: None,
            leaked: None,
            parts: None,
            parts_tree: 0,
        }
    }

    /// Evaluates `e` with `cur` as the current ad (`None`: no ad at all).
    pub fn eval(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        if self.root.is_none() {
            self.root = Some(cur.map(|c| c.root()));
        }
        if self.parts.is_some() && self.at_top(e, cur) {
            return self.eval_recorded(e, cur);
        }
        self.eval_node(e, cur)
    }

    /// Whether `e` is a subexpression of the recorded expression evaluated in the
    /// state every ad's evaluation of it shares (see [`super::independent`]).
    fn at_top(&self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> bool {
        Arc::as_ptr(&e.tree) as usize == self.parts_tree
            && !matches!(e.node(), Node::Lit(_))
            && self.stack.is_empty()
            && self.lexical.is_none()
            && self.leaked.is_none()
            && matches!((&self.root, cur), (Some(Some(root)), Some(cur)) if Arc::ptr_eq(root, cur))
    }

    /// Replays `e`'s recorded evaluation when that is exact, or evaluates it and
    /// records it when it read nothing of the ad.
    fn eval_recorded(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        use super::independent::Recorded;
        use crate::values::reads::ad_reads;
        let depth = (self.depth_left, self.nesting);
        let budgets = [self.steps_left, self.total_steps_left];
        if let Some(rec) = self.parts.as_ref().and_then(|p| p.get(&e.id)) {
            if rec.replays_at(depth, budgets) {
                let rec = rec.clone();
                self.steps_left -= rec.used[0];
                self.total_steps_left -= rec.used[1];
                if rec.result.is_err() {
                    self.residue = rec.residue;
                }
                return rec.result;
            }
        }
        let reads = ad_reads();
        let result = self.eval_node(e, cur);
        let unchanged = self.leaked.is_none() && self.stack.is_empty() && self.lexical.is_none();
        if ad_reads() == reads && unchanged && Recorded::keepable(&result) {
            let rec = Recorded {
                result: result.clone(),
                depth,
                budgets,
                used: [
                    budgets[0] - self.steps_left,
                    budgets[1] - self.total_steps_left,
                ],
                residue: self.residue.clone(),
            };
            if let Some(parts) = self.parts.as_mut() {
                parts.insert(e.id, rec);
            }
        }
        result
    }

    /// [`Self::eval`] of one node.
    fn eval_node(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        if self.steps_left == 0 || self.total_steps_left == 0 {
            self.residue = Value::Error;
            return Err(Fail);
        }
        self.steps_left -= 1;
        self.total_steps_left -= 1;
        match e.node() {
            // A list or record literal evaluates to itself without evaluating anything
            // inside, so like any literal it does not count against the depth limit.
            Node::List(_) | Node::Record(_) => self.eval_compound(e, cur),
            // HTCondor folds `relTime("...")` at parse time into a literal that prints
            // as a relative time but evaluates to a real.
            Node::Lit(Value::RelTime(r)) => Ok(Value::Real(*r)),
            Node::Lit(v) => Ok(v.clone()),
            _ => {
                if self.nesting >= MAX_TOTAL_DEPTH {
                    self.residue = Value::Error;
                    return Err(Fail);
                }
                self.nesting += 1;
                let r = self.eval_nested(e, cur);
                self.nesting -= 1;
                r
            }
        }
    }

    /// [`Self::eval_node`] of a reference, selection, operation or call, with
    /// HTCondor's depth: an operation takes a level (its `RecursionGuard`); a call
    /// takes none (`FunctionCall::_Evaluate`); a reference takes one for the
    /// expression it finds, and a selection one for its base (`AttributeReference`).
    fn eval_nested(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        let r = match e.node() {
            Node::Attr {
                scope: None,
                name,
                absolute,
            } => {
                return match self.leaked.clone() {
                    Some(leaked) => self.eval_name(name, *absolute, leaked.as_ref()),
                    None => self.eval_name(name, *absolute, cur),
                }
            }
            Node::Attr { .. } => return self.eval_compound(e, cur),
            Node::Call { .. } => self.eval_compound(e, cur),
            _ => {
                if self.depth_left == 0 {
                    self.residue = Value::Error;
                    return Err(Fail);
                }
                self.depth_left -= 1;
                let r = self.eval_compound(e, cur);
                self.depth_left += 1;
                r
            }
        };
        if r.is_err() {
            // An operator or a call whose operand failed sets error.
            self.residue = Value::Error;
        }
        r
    }

    fn eval_compound(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail> {
        match e.node() {
            Node::Lit(_) | Node::Attr { scope: None, .. } => self.eval(e, cur),
            Node::Attr {
                scope: Some(s),
                name,
                ..
            } => {
                if select_chain_len(e) > MAX_SELECT_CHAIN {
                    return Ok(Value::Error);
                }
                // The base and the elements of a list base are evaluated into
                // values of their own: their failure leaves nothing behind.
                // HTCondor restores the current ad when a reference's evaluation
                // returns, so a lookup in the base (`unresolved(x).y`) leaves
                // nothing behind either (see the `leaked` field).
                let saved_leak = self.leaked.clone();
                // HTCondor's `FindExpr`: the base takes a level, and with none
                // left the selection is error.
                if self.depth_left == 0 {
                    return Ok(Value::Error);
                }
                self.depth_left -= 1;
                let base = self.eval(&e.child(*s), cur).inspect_err(|_| {
                    self.residue = Value::Undefined;
                });
                self.depth_left += 1;
                let r = match base {
                    Ok(base) => self.select(&base, name, cur).inspect_err(|_| {
                        if matches!(base, Value::List(_)) {
                            self.residue = Value::Undefined;
                        }
                    }),
                    Err(f) => Err(f),
                };
                self.leaked = saved_leak;
                r
            }
            Node::Paren(x) => self.eval(&e.child(*x), cur),
            Node::Unary(op, x) => {
                let v = self.eval(&e.child(*x), cur)?;
                Ok(match op {
                    UnOp::Neg => ops::neg(&v),
                    UnOp::Plus => ops::plus(&v),
                    UnOp::Not => ops::not(&v),
                    UnOp::BitNot => ops::bit_not(&v),
                })
            }
            Node::Binary(op, a, b) => self.eval_binary(*op, &e.child(*a), &e.child(*b), cur),
            Node::Ternary(c, a, b) => {
                let cond = self.eval(&e.child(*c), cur)?;
                match cond {
                    Value::Undefined => Ok(Value::Undefined),
                    Value::Error => Ok(Value::Error),
                    _ => match cond.as_bool_equiv() {
                        Some(true) => self.eval(&e.child(*a), cur),
                        Some(false) => self.eval(&e.child(*b), cur),
                        None => {
                            // HTCondor evaluates both branches before it gives error
                            // for a condition that is not a boolean: a branch that
                            // fails fails the whole.
                            self.eval(&e.child(*a), cur)?;
                            self.eval(&e.child(*b), cur)?;
                            Ok(Value::Error)
                        }
                    },
                }
            }
            Node::Call { name, .. } => match crate::functions::find(name) {
                None => Ok(Value::Error),
                Some(f) => {
                    if crate::functions::IMPURE_BUILTINS
                        .iter()
                        .any(|i| i.eq_ignore_ascii_case(name))
                    {
                        // The clock or chance: not the same in every ad's evaluation.
                        crate::values::reads::note_ad_read();
                    }
                    let cur = match &self.leaked {
                        Some(leaked) => leaked.clone(),
                        None => cur.cloned(),
                    };
                    let mut call = super::call::EvalCall {
                        ev: self,
                        call: e.clone(),
                        cur,
                    };
                    crate::functions::run_builtin(f, &mut call)
                }
            },
            Node::List(_) => Ok(list_value(ListVal::Lazy {
                list: e.clone(),
                scope: self.literal_parent(cur),
                copied: false,
            })),
            Node::Record(_) => Ok(ad_value(Arc::new(Scope {
                frame: Frame::Record(e.clone()),
                parent: self.literal_parent(cur),
                alternate: None,
            }))),
        }
    }

    fn eval_binary(
        &mut self,
        op: BinOp,
        a: &ExprRef,
        b: &ExprRef,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Value, Fail> {
        let x = self.eval(a, cur)?;
        if let Some(v) = op.binary().and_then(|b| b.decided_by_left(&x)) {
            return Ok(v);
        }
        if op == BinOp::Elvis && !x.is_undefined() {
            return Ok(x);
        }
        let y = self.eval(b, cur)?;
        Ok(match op {
            BinOp::Elvis => y,
            BinOp::And => ops::and(&x, &y),
            BinOp::Or => ops::or(&x, &y),
            BinOp::Subscript => self.subscript(&x, &y)?,
            BinOp::Is => identity(Cmp::Is, &x, &y),
            BinOp::Isnt => identity(Cmp::Isnt, &x, &y),
            _ => strict_binary(op, &x, &y).unwrap_or(Value::Error),
        })
    }

    /// `list[i]` and `ad["name"]`; strict.
    pub fn subscript(&mut self, x: &Value, y: &Value) -> Result<Value, Fail> {
        if let Some(v) = ops::strict2(x, y) {
            return Ok(v);
        }
        if let (Some(ad), Value::Str(name)) = (as_ad(x), y) {
            if ad.held == Held::Freed {
                // HTCondor looks into freed memory here (see `Held`).
                return Ok(Value::Undefined);
            }
            // HTCondor looks the name up in that ad alone and evaluates it as a fresh
            // top-level evaluation of the ad (`EvaluateAttr`): a new state, so what
            // is being evaluated around it is not known there, and the attribute
            // itself is not marked as being evaluated (it is not reached by a
            // reference). Where HTCondor then recurses until its stack overflows
            // (`[x = self["x"]].x`) we stop at our bound on the total depth
            // (`MAX_TOTAL_DEPTH`), which fails the innermost subscript's
            // evaluation: error.
            // A record or list it gives is a copy with no enclosing scope (see
            // `Held`).
            return match ad.scope.lookup_local(name, self.old_semantics) {
                None => Ok(Value::Undefined),
                Some(Found::Expr(e, scope)) => {
                    let root = Some(ad.scope.root());
                    let start = FreshStart::new(&e, &scope, None);
                    let r = self.fresh(root, start, |ev| ev.eval_unmarked(&e, &scope));
                    // An evaluation that fails there is error here.
                    Ok(r.map_or(Value::Error, subscript_copy))
                }
                Some(found) => self.eval_found(found).map(subscript_copy),
            };
        }
        if let Some(list) = as_list(x) {
            let Value::Int(i) = *y else {
                return Ok(Value::Error);
            };
            // HTCondor reads the index into a C `int`, truncating it.
            let i = i as i32;
            if i < 0 || i as usize >= list.len() {
                return Ok(Value::Error);
            }
            // HTCondor's `ExprList::GetValueAt` evaluates the element a level
            // deeper (error when there is none left), ignores the failure of its
            // evaluation and keeps whatever value it left.
            if self.depth_left == 0 {
                return Ok(Value::Error);
            }
            self.depth_left -= 1;
            let r = self.list_item(list, i as usize);
            self.depth_left += 1;
            return Ok(match r {
                Ok(v) => v,
                Err(Fail) => self.take_residue(),
            });
        }
        Ok(Value::Error)
    }

    /// Element `i` of a list, evaluated.
    pub fn list_item(&mut self, list: &ListVal, i: usize) -> Result<Value, Fail> {
        match list {
            ListVal::Values(v) | ListVal::Projected(v) => Ok(v[i].clone()),
            ListVal::Lazy {
                list,
                scope,
                copied,
            } => {
                let Node::List(items) = list.node() else {
                    return Ok(Value::Error);
                };
                let saved = self.lexical.take();
                let saved_leak = self.leaked.take();
                let r = self.eval(&list.child(items[i]), scope.as_ref());
                self.leaked = saved_leak;
                self.lexical = saved;
                // A record out of a list copy points into freed memory in
                // HTCondor (see `Held`).
                if *copied {
                    r.map(out_of_copy)
                } else {
                    r
                }
            }
        }
    }

    /// The parent scope of a record or list literal evaluated in `cur` (see the
    /// `lexical` field).
    fn literal_parent(&self, cur: Option<&Arc<Scope>>) -> Option<Arc<Scope>> {
        match &self.lexical {
            Some(lexical) => lexical.clone(),
            None => cur.cloned(),
        }
    }

    /// Evaluates `e`, written in scope `lexical`, with `cur` as the current ad, as
    /// `evalInEachContext` does.
    pub fn eval_away(
        &mut self,
        e: &ExprRef,
        cur: &Arc<Scope>,
        lexical: Option<Arc<Scope>>,
    ) -> Result<Value, Fail> {
        let saved = self.lexical.replace(lexical);
        let r = self.eval(e, Some(cur));
        self.lexical = saved;
        r
    }

    /// Every element of a list, evaluated.
    pub fn list_items(&mut self, list: &ListVal) -> Result<Vec<Value>, Fail> {
        (0..list.len()).map(|i| self.list_item(list, i)).collect()
    }

    /// The value the last failed evaluation left behind (see the field), for a
    /// caller that ignores the failure as HTCondor does.
    pub fn take_residue(&mut self) -> Value {
        std::mem::replace(&mut self.residue, Value::Undefined)
    }

    /// Runs `f` as a fresh top-level evaluation of HTCondor's (a new `EvalState`):
    /// rooted at `root`, nothing being evaluated around it, and a depth and a step
    /// budget of its own, within our bounds on the whole ([`MAX_TOTAL_DEPTH`],
    /// [`MAX_TOTAL_STEPS`]). HTCondor's ad subscripts (`EvaluateAttr`) and the
    /// element evaluations of `evalInEachContext` and `countMatches` are such.
    ///
    /// `start` says what `f` evaluates and where. A fresh evaluation that starts
    /// where one around it started begins in the same state (HTCondor's new
    /// `EvalState` carries nothing else in), so it repeats that one's path to
    /// itself: HTCondor recurses until its stack overflows (a slot with
    /// `Requirements = evalInEachContext(leftMatchesRight, {[a = 1]})` crashes
    /// its negotiator and its Python bindings), so the whole top-level
    /// evaluation never ends there. Ours spends what is left of
    /// [`MAX_TOTAL_STEPS`] at once and fails, as it would, much later, on
    /// reaching that bound: with several ads in the list the recursion branches
    /// at every level, and the bound alone let one evaluation run for seconds.
    pub fn fresh(
        &mut self,
        root: Option<Arc<Scope>>,
        start: FreshStart,
        f: impl FnOnce(&mut Self) -> Result<Value, Fail>,
    ) -> Result<Value, Fail> {
        if self.fresh_starts.contains(&start) {
            // HTCondor never ends this evaluation, whatever the other branches
            // do: it is spent as a whole, as past our step bound.
            self.total_steps_left = 0;
            self.residue = Value::Error;
            return Err(Fail);
        }
        let outer = (
            std::mem::take(&mut self.stack),
            self.depth_left,
            self.steps_left,
        );
        self.depth_left = MAX_DEPTH;
        self.steps_left = MAX_STEPS;
        self.fresh_starts.push(start);
        let r = self.with_root(root, f);
        self.fresh_starts.pop();
        (self.stack, self.depth_left, self.steps_left) = outer;
        r
    }

    /// Runs `f` with HTCondor's `rootAd` set to `root`, as a fresh `EvalState`
    /// of HTCondor's would have it.
    pub fn with_root<T>(&mut self, root: Option<Arc<Scope>>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.root.replace(root);
        let saved_leak = self.leaked.take();
        let r = f(self);
        self.leaked = saved_leak;
        self.root = saved;
        r
    }

    /// Runs `f` as a fresh `EvalState` of HTCondor's would: without the current
    /// ad a lookup in `unresolved` or `evalInEachContext` left (see the `leaked`
    /// field), which is there again afterwards.
    pub fn without_leak<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved_leak = self.leaked.take();
        let r = f(self);
        self.leaked = saved_leak;
        r
    }

    /// Leaves the evaluation's current ad at `scope`, as HTCondor's lookup of a
    /// reference inside `unresolved` and `evalInEachContext` does (see the
    /// `leaked` field); nothing when no lookup ran.
    pub fn leave_state_in(&mut self, scope: Option<Arc<Scope>>) {
        if let Some(s) = scope {
            self.leaked = Some(Some(s));
        }
    }

    /// HTCondor's `rootAd` (see the field).
    fn root_ad(&self) -> Option<Arc<Scope>> {
        self.root.clone().flatten()
    }

    /// `base.name`: a lookup in an ad, or the same selection over each element of a
    /// list (each in an evaluation of its own, rooted where `cur` is, as HTCondor
    /// does).
    fn select(
        &mut self,
        base: &Value,
        name: &str,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Value, Fail> {
        match base {
            Value::Undefined => Ok(Value::Undefined),
            Value::Ad(_) => {
                let ad = as_ad(base).ok_or(Fail)?;
                if ad.held != Held::InPlace {
                    // HTCondor evaluates what it finds in freed memory (see `Held`).
                    return Ok(Value::Undefined);
                }
                let scope = ad.scope.clone();
                match self.lookup_in_scope(&scope, name)? {
                    Some(found) => self.eval_found(found),
                    None => Ok(Value::Undefined),
                }
            }
            Value::List(_) => {
                let root = cur.map(|c| c.root());
                self.with_root(root, |ev| ev.select_each(base, name, cur))
            }
            _ => Ok(Value::Error),
        }
    }

    /// [`Self::select`] over the elements of a list.
    fn select_each(
        &mut self,
        base: &Value,
        name: &str,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Value, Fail> {
        {
            {
                let list = as_list(base).ok_or(Fail)?;
                let mut out = Vec::with_capacity(list.len());
                for i in 0..list.len() {
                    let item = self.select_item(list, i, cur)?;
                    out.push(match item {
                        Value::List(_) => {
                            // A list can hold itself (`[q = {q}].q.p`): each nested
                            // projection counts against the depth limit, as in
                            // HTCondor, instead of recursing without end.
                            if self.depth_left == 0 {
                                return Err(Fail);
                            }
                            self.depth_left -= 1;
                            let v = self.select(&item, name, cur);
                            self.depth_left += 1;
                            v?
                        }
                        Value::Ad(_) | Value::Undefined => detached(self.select(&item, name, cur)?),
                        _ => Value::Error,
                    });
                }
                Ok(projected_list(out))
            }
        }
    }

    /// Element `i` of a list a selection projects: HTCondor evaluates a list
    /// literal's elements where the selection is (`cur`), not where the list was
    /// written; a record or list literal among them keeps the scope it was written
    /// in.
    fn select_item(
        &mut self,
        list: &ListVal,
        i: usize,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Value, Fail> {
        match list {
            ListVal::Lazy { list, scope, .. } => {
                let Node::List(items) = list.node() else {
                    return Ok(Value::Error);
                };
                let saved_leak = self.leaked.take();
                let saved = self.lexical.replace(scope.clone());
                let r = self.eval(&list.child(items[i]), cur);
                self.lexical = saved;
                self.leaked = saved_leak;
                r
            }
            _ => self.list_item(list, i),
        }
    }

    /// An unscoped (`name`) or absolute (`.name`) reference.
    fn eval_name(
        &mut self,
        name: &str,
        absolute: bool,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Value, Fail> {
        let Some(cur) = cur else {
            // No ad at all: HTCondor fails an absolute reference (there is no root)
            // and finds nothing for any other.
            return if absolute {
                self.residue = Value::Undefined;
                Err(Fail)
            } else {
                Ok(Value::Undefined)
            };
        };
        let start = if absolute {
            match self.root_ad() {
                Some(root) => root,
                None => {
                    // No root: HTCondor fails the reference.
                    self.residue = Value::Undefined;
                    return Err(Fail);
                }
            }
        } else {
            cur.clone()
        };
        let mut found = self.lookup_in_scope(&start, name)?;
        if found.is_none() && !absolute {
            if let Some((pair, side)) = &start.alternate {
                let alt = Scope::of_side(pair, *side, self.old_semantics);
                found = self.lookup_in_scope(&alt, name)?;
            }
        }
        match found {
            None => Ok(Value::Undefined),
            Some(f) => self.eval_found(f),
        }
    }

    /// HTCondor's `LookupInScope`: the current ad, then its parents up to the root;
    /// special names (`toplevel`, `root`, `self`, `parent`, and in old semantics `MY`
    /// and `CurrentTime`) resolve at the first ad that lacks them. `toplevel` and
    /// `root` fail when the evaluation has no root ad, as in HTCondor.
    pub fn lookup_in_scope(
        &mut self,
        start: &Arc<Scope>,
        name: &str,
    ) -> Result<Option<Found>, Fail> {
        self.lookup_stopping(start, name).map(|(found, _)| found)
    }

    /// [`Self::lookup_in_scope`], also giving the scope the search stopped at
    /// (HTCondor's `state.curAd` afterwards): where the name was found, or the
    /// outermost scope when it was found nowhere.
    pub(crate) fn lookup_stopping(
        &mut self,
        start: &Arc<Scope>,
        name: &str,
    ) -> Result<(Option<Found>, Arc<Scope>), Fail> {
        let mut cur = start.clone();
        let found = self.lookup_from(&mut cur, name)?;
        Ok((found, cur))
    }

    fn lookup_from(&mut self, at: &mut Arc<Scope>, name: &str) -> Result<Option<Found>, Fail> {
        let cur = at;
        loop {
            if let Some(f) = cur.lookup_local(name, self.old_semantics) {
                return Ok(Some(f));
            }
            let parent = cur.parent.clone();
            let is = |s: &str| name.eq_ignore_ascii_case(s);
            if is("toplevel") || is("root") {
                return match self.root_ad() {
                    Some(root) => Ok(Some(Found::Ad(noting_ad(root)))),
                    None => {
                        self.residue = Value::Undefined;
                        Err(Fail)
                    }
                };
            }
            if is("self") || (self.old_semantics && is("MY")) {
                return Ok(Some(Found::Ad(noting_ad(cur.clone()))));
            }
            if is("parent") {
                return Ok(parent.map(|p| Found::Ad(noting_ad(p))));
            }
            if self.old_semantics && is("CurrentTime") {
                crate::values::reads::note_ad_read();
                return Ok(Some(Found::Value(Value::Int(crate::functions::now_secs()))));
            }
            let Some(p) = parent else {
                return Ok(None);
            };
            *cur = p;
        }
    }

    /// Evaluates what a lookup found. An expression already being evaluated is a
    /// circular reference: undefined, as in HTCondor 25.
    fn eval_found(&mut self, found: Found) -> Result<Value, Fail> {
        match found {
            Found::Value(v) => Ok(v),
            Found::Ad(scope) => Ok(ad_value(scope)),
            Found::Expr(e, scope) => {
                let key = attr_key(&scope, &e);
                if self.stack.contains(&key) {
                    return Ok(Value::Undefined);
                }
                if self.depth_left == 0 {
                    self.residue = Value::Error;
                    return Err(Fail);
                }
                self.depth_left -= 1;
                self.stack.push(key);
                let saved = self.lexical.take();
                let saved_leak = self.leaked.take();
                let r = self.eval(&e, Some(&scope));
                self.leaked = saved_leak;
                self.lexical = saved;
                self.stack.pop();
                self.depth_left += 1;
                r
            }
        }
    }

    /// Evaluates an attribute's expression `e`, found in `scope`, as
    /// [`Self::eval_found`] does but without marking it as being evaluated.
    fn eval_unmarked(&mut self, e: &ExprRef, scope: &Arc<Scope>) -> Result<Value, Fail> {
        if self.depth_left == 0 {
            self.residue = Value::Error;
            return Err(Fail);
        }
        self.depth_left -= 1;
        let saved = self.lexical.take();
        let saved_leak = self.leaked.take();
        let r = self.eval(e, Some(scope));
        self.leaked = saved_leak;
        self.lexical = saved;
        self.depth_left += 1;
        r
    }

    /// Finds, without evaluating it, the expression an attribute reference refers to.
    pub fn find_referenced(
        &mut self,
        e: &ExprRef,
        cur: Option<&Arc<Scope>>,
    ) -> Result<Option<Referenced>, Fail> {
        self.deref(e, cur).map(|(found, _)| match found {
            Some(Found::Expr(e, s)) => Some((e, s)),
            _ => None,
        })
    }

    /// What an attribute reference refers to (an expression, or an ad for a name
    /// such as `self` or `TARGET`), without evaluating it, and where HTCondor's
    /// lookup leaves its evaluation state: the scope the search stopped at (where
    /// the name was found, also a name of a match's context such as `other`, or
    /// the first ad for `self`, `parent`, `toplevel`), or, when it was found
    /// nowhere, the outermost ad of the chain it walked; `None` when no lookup ran
    /// (a reference whose scope is not an ad, `.name` without a root). A selection
    /// from a list refers to the list of values it makes (no lookup ran).
    pub fn deref(
        &mut self,
        e: &ExprRef,
        cur: Option<&Arc<Scope>>,
    ) -> Result<(Option<Found>, Option<Arc<Scope>>), Fail> {
        let Node::Attr {
            scope,
            name,
            absolute,
        } = e.node()
        else {
            return Ok((None, None));
        };
        let (found, stopped) = match scope {
            Some(s) => {
                let base = self.eval(&e.child(*s), cur)?;
                match as_ad(&base) {
                    // A copy `ad["name"]` made is looked into once freed in
                    // HTCondor (see `Held`): nothing is found.
                    Some(ad) if ad.held != Held::InPlace => return Ok((None, None)),
                    Some(ad) => self.lookup_stopping(&ad.scope.clone(), name)?,
                    // A selection from a list refers to the list of what each
                    // element gives, made where the reference is.
                    None if matches!(base, Value::List(_)) => {
                        let root = cur.map(|c| c.root());
                        let v = self.with_root(root, |ev| ev.select_each(&base, name, cur))?;
                        return Ok((Some(Found::Value(v)), None));
                    }
                    None => return Ok((None, None)),
                }
            }
            None => match cur {
                None => return Ok((None, None)),
                Some(cur) => {
                    let start = if *absolute {
                        match self.root_ad() {
                            Some(root) => root,
                            None => return Ok((None, None)),
                        }
                    } else {
                        cur.clone()
                    };
                    let mut f = self.lookup_stopping(&start, name)?;
                    if f.0.is_none() && !*absolute {
                        if let Some((pair, side)) = &start.alternate {
                            let alt = Scope::of_side(pair, *side, self.old_semantics);
                            let g = self.lookup_stopping(&alt, name)?;
                            if g.0.is_some() {
                                f = g;
                            }
                        }
                    }
                    f
                }
            },
        };
        Ok((found, Some(stopped)))
    }
}

/// `scope`, counted as a read of an ad document when it is one (see
/// [`super::independent`]).
fn noting_ad(scope: Arc<Scope>) -> Arc<Scope> {
    if matches!(scope.frame, Frame::Ad(_)) {
        crate::values::reads::note_ad_read();
    }
    scope
}

/// An expression a reference refers to, and the scope it was found in.
pub type Referenced = (ExprRef, Arc<Scope>);

/// How many `.name` selections are stacked at `e` (`a.b.c` has two).
fn select_chain_len(e: &ExprRef) -> usize {
    let mut n = 0;
    let mut id = e.id;
    while let Node::Attr { scope: Some(s), .. } = e.tree.node(id) {
        n += 1;
        if n > MAX_SELECT_CHAIN {
            break;
        }
        id = *s;
    }
    n
}

/// Where a fresh evaluation starts (see [`Evaluator::fresh`]): the expression, the
/// chain of scopes it is evaluated in (which gives its root too) and the scope it
/// was written in, when that is elsewhere.
#[derive(PartialEq)]
pub struct FreshStart {
    expr: (usize, NodeId),
    scope: ScopeIdentity,
    lexical: Option<Option<ScopeIdentity>>,
}

impl FreshStart {
    /// `e` evaluated in `scope`, written in `lexical` (see `Evaluator::eval_away`;
    /// `None`: where it is evaluated).
    pub fn new(e: &ExprRef, scope: &Scope, lexical: Option<Option<&Scope>>) -> FreshStart {
        FreshStart {
            expr: (Arc::as_ptr(&e.tree) as usize, e.id),
            scope: scope.identity(),
            lexical: lexical.map(|l| l.map(Scope::identity)),
        }
    }
}

/// Identifies an attribute: the ad it was found in and its expression. Ads of one
/// file may share an expression tree (parsed once, as HTCondor's cache does), so the
/// expression alone would confuse `A.x` with `B.x`.
type AttrKey = (usize, u32, usize, NodeId);

fn attr_key(scope: &Scope, e: &ExprRef) -> AttrKey {
    let (frame, sub) = frame_identity(&scope.frame);
    (frame, sub, Arc::as_ptr(&e.tree) as usize, e.id)
}

/// The strict binary operators (arithmetic, bitwise, ordinary comparisons) on two
/// values; `None` for the others, whose rules need more than the two values.
pub fn strict_binary(op: BinOp, x: &Value, y: &Value) -> Option<Value> {
    match op.binary()? {
        Binary::And | Binary::Or | Binary::Cmp(Cmp::Is | Cmp::Isnt) => None,
        b => Some(b.apply(x, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Semantics;
    use crate::ad::{read_ads, ClassAd};
    use crate::matching::symmetric_match;
    use crate::values::reads::ad_reads;
    use std::sync::Arc;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    /// Found by the `pool_vs_pairs` fuzz target: a slot whose Requirements reach
    /// themselves through `leftMatchesRight` in a fresh evaluation per context ad.
    /// HTCondor overflows its stack; ours used to branch at every level until
    /// `MAX_TOTAL_STEPS` (seconds a pair). The ad documents read count the work.
    #[test]
    fn a_fresh_evaluation_that_starts_where_one_around_it_did_ends_at_once() {
        let job = ad("RequestMemory = 2048\nRequirements = true\n");
        for requirements in [
            "evalInEachContext(leftMatchesRight, { [b = Error], [a = 10; b = \"x\"] })",
            "countMatches(leftMatchesRight, { [a = 1], [a = 2], [a = 3], [a = 4], [a = 5], [a = 6], [a = 7], [a = 8] }) > 0",
            "size(evalInEachContext(symmetricMatch, { [a = 1], [a = 2], [a = 3], [a = 4] })) > 0",
        ] {
            let machine = ad(&format!("OpSys = \"WINDOWS\"\nRequirements = {requirements}\n"));
            let before = ad_reads();
            assert!(!symmetric_match(&job, &machine, Semantics::Htcondor));
            let reads = ad_reads() - before;
            assert!(reads < 1_000, "{requirements}: {reads} ad reads");
        }
    }

    /// The same for ad subscripts: `self["x"]` inside `x` starts where it started.
    #[test]
    fn a_subscript_that_reaches_itself_ends_at_once() {
        let my = ad("x = self[\"x\"] + self[\"x\"] + self[\"x\"]\n");
        let e =
            crate::syntax::ast::ExprRef::root_of(Arc::new(crate::syntax::parse_expr("x").unwrap()));
        let before = ad_reads();
        let r = crate::eval::eval_in(&e, &my, None, Semantics::Htcondor);
        let reads = ad_reads() - before;
        // HTCondor never ends it; ours fails as a whole.
        assert!(r.is_err(), "{r:?}");
        assert!(reads < 1_000, "{reads} ad reads");
    }
}
