//! HTCondor's reduction of a Requirements expression to the conditions that decide
//! it: the `Step  Matched  Condition` table of `condor_q -better-analyze`.
//!
//! HTCondor numbers the sub-expressions worth evaluating on their own (comparisons,
//! the operands and results of `&&`, `||` and `!`, and whatever a `&&` or `||`
//! combines) in evaluation order; works out which are constant (they read nothing
//! of the other ad); folds the constant ones into the logic above them; counts how
//! many targets each remaining one matches; and leaves out every step that
//! another step stands for (an `a && b` that matches exactly what `b` matches is
//! `b`) or that cannot change the result (what `false && x` leaves of `x`). This
//! module follows that procedure step for step (HTCondor's
//! `src/condor_utils/expr_analyze.cpp`: `AnalyzeThisSubExpr`, `CheckIfConstant`,
//! `AnalyzePropagateConstants`, `AnalyzeRequirementsForEachTarget`,
//! `PrintNumberedExprTreeClauses`), so the step numbers, counts and labels are
//! the ones HTCondor prints, with the default detail of `-better-analyze` (no
//! `ifThenElse` steps, no pretty-printed sub-expressions).
//!
//! The counting is the caller's: [`Steps::needed`] names the steps whose counts
//! the reduction may read, the caller evaluates each against every target (the
//! expression with the analyzed ad as MY and the target as TARGET, counted when
//! true or a non-zero number, as HTCondor's `EvalExprToBool` and
//! `IsBooleanValueEquiv` count it), and [`Steps::reduce`] finishes. Every walk is
//! iterative: an expression may be a long chain of `&&`.

use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::matching::refs::References;
use crate::syntax::ast::{BinOp, ExprRef, Node, UnOp};
use crate::syntax::unparse::{unparse_node, write_scalar_value};
use std::sync::Arc;

/// The most steps analyzed: the reduction evaluates each step against every
/// target, and a step's `&&` covers all the steps below it, so the work grows with
/// the square of an expression's length. Real Requirements have tens of steps.
pub const MAX_STEPS: usize = 500;

/// The logical operator a step applies to the steps below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// `!a`
    Not,
    /// `a || b`
    Or,
    /// `a && b`
    And,
}

/// One numbered step (HTCondor's `AnalSubExpr`).
#[derive(Clone, Debug)]
pub struct Step {
    /// The sub-expression: a node of the analyzed expression, or of an attribute
    /// of the ad written in its place (a slot's `START`).
    pub expr: ExprRef,
    /// The operator, for the steps of `!`, `||` and `&&`.
    pub logic: Option<Logic>,
    left: Option<usize>,
    right: Option<usize>,
    /// The third operand's step (of `c ? a : b`).
    grip: Option<usize>,
    /// The label the step was made with: a literal's or a call's text; empty
    /// for the rest, which are labelled later.
    label: String,
    /// The step reads the clock (`time()`, `CurrentTime`): a constant one is
    /// true or false "now" rather than always.
    variable: bool,
}

/// What a table row says of its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    /// The number of targets the step matches.
    Count(usize),
    /// A constant step that is true.
    Always,
    /// A constant step that is false.
    Never,
    /// A constant step that reads the clock and is true now.
    Now,
    /// A constant step that reads the clock and is false now.
    NotNow,
}

impl Matched {
    /// The text HTCondor prints in the `Matched` column.
    pub fn text(&self) -> String {
        match self {
            Matched::Count(n) => n.to_string(),
            Matched::Always => "always".into(),
            Matched::Never => "never".into(),
            Matched::Now => "now".into(),
            Matched::NotNow => "not now".into(),
        }
    }
}

/// One row of the reduced table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The step's number.
    pub step: usize,
    /// Its count, or what it is when constant.
    pub matched: Matched,
    /// The condition: the step's expression, or how it combines other steps
    /// (`[0] && [3]`).
    pub condition: String,
}

/// The steps of one expression of an ad, numbered as HTCondor numbers them.
#[derive(Clone, Debug)]
pub struct Steps {
    steps: Vec<Step>,
    /// Per step: HTCondor's state while it reduces.
    state: Vec<State>,
}

/// What the reduction knows of a step.
#[derive(Clone, Debug, Default)]
struct State {
    /// The step reads nothing of the target.
    constant: bool,
    /// A constant step's value (`EvalExprToBool` in the ad alone).
    hard: bool,
    /// The step another step stands for it.
    effective: Option<usize>,
    /// The step cannot change the result.
    dont_care: bool,
    /// The targets it matches (0 until counted).
    count: usize,
    /// Its text.
    unparsed: String,
    /// Its label (rebuilt from `left`/`right` when empty).
    label: String,
    left: Option<usize>,
    right: Option<usize>,
    grip: Option<usize>,
}

/// A frame of the iterative walk that numbers the steps: one node on its way
/// through its children.
struct Frame {
    expr: ExprRef,
    /// Names of the ad still written in place (none below an inlined one).
    inline: bool,
    push: bool,
    logic: Option<Logic>,
    label: String,
    /// Children: HTCondor's left, right and third operand.
    children: [Option<ExprRef>; 3],
    /// Whether the children are to be stored (the operands of logic).
    store_children: bool,
    /// The children's step numbers so far.
    found: [Option<usize>; 3],
    /// The clock is read here or below.
    variable: bool,
    /// The next child to walk.
    next: usize,
}

impl Steps {
    /// The steps of `expr`, an expression of `ad`, numbered as HTCondor's
    /// `AnalyzeThisSubExpr` numbers them. A bare reference to an attribute of
    /// `ad` named in `inline` (a slot's `START`) is analyzed as the attribute's
    /// expression, once (not below another inlined name).
    pub fn of(ad: &ClassAd, expr: &ExprRef, inline: &[&str]) -> Steps {
        let mut steps: Vec<Step> = Vec::new();
        let mut stack = vec![frame(ad, expr.clone(), true, true, inline)];
        // A finished child's step number and whether it reads the clock.
        let mut done: Option<(Option<usize>, bool)> = None;
        while let Some(top) = stack.last_mut() {
            if let Some((ix, variable)) = done.take() {
                top.found[top.next] = ix;
                top.variable |= variable;
                top.next += 1;
            }
            while top.next < 3 && top.children[top.next].is_none() {
                top.next += 1;
            }
            if let Some(child) = top.children.get(top.next).cloned().flatten() {
                let (store, inline_below) = (top.store_children, top.inline);
                stack.push(frame(ad, child, store, inline_below, inline));
                continue;
            }
            let f = stack.pop().expect("the frame on top");
            let variable = f.variable;
            done = Some((finish_frame(f, &mut steps), variable));
        }
        let state = steps
            .iter()
            .map(|s| State {
                label: s.label.clone(),
                left: s.left,
                right: s.right,
                grip: s.grip,
                ..State::default()
            })
            .collect();
        Steps { steps, state }
    }

    /// The number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// True when the expression has no step (it is a lone name or literal).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The steps, by number.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Each step as HTCondor lists them before analysing
    /// (`PrintNumberedExprTreeClauses`): the operator and the steps it
    /// combines, or the step's text (after the number of the step it builds on,
    /// when it has one).
    pub fn numbered(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| match make_label(s.logic, s.left, s.right) {
                Some(label) => label,
                None => {
                    let mut text = String::new();
                    if let Some(l) = s.left {
                        text = format!("[{l}] ");
                    }
                    unparse_node(&s.expr.tree, s.expr.id, &mut text);
                    text
                }
            })
            .collect()
    }

    /// Works out which steps are constant in `ad` (they read nothing from
    /// outside it: `CheckIfConstant`) and their values, folds them into the
    /// logic above them (`AnalyzePropagateConstants`), and gives the steps whose
    /// counts the reduction may read: the caller counts each against every
    /// target and hands the counts to [`Steps::reduce`].
    pub fn needed(&mut self, ad: &Arc<ClassAd>) -> Vec<usize> {
        for (s, st) in self.steps.iter().zip(self.state.iter_mut()) {
            unparse_node(&s.expr.tree, s.expr.id, &mut st.unparsed);
            let refs = References::of(ad, &s.expr.tree, s.expr.id);
            st.constant = refs.external.is_empty();
            if st.constant {
                st.hard = matches!(eval_in(&s.expr, ad, None, Semantics::Htcondor),
                    Ok(v) if v.as_bool_equiv() == Some(true));
            }
        }
        self.propagate_constants();
        self.propagate_effectives();
        (0..self.steps.len())
            .filter(|&i| {
                let st = &self.state[i];
                st.effective.is_none() && !st.dont_care && !st.constant
            })
            .collect()
    }

    /// Finishes the reduction, once [`Steps::needed`] has run, with
    /// `counts[i]`, the targets step `i` matches (read only for the steps
    /// `needed` gave), out of `targets`: the rows HTCondor prints.
    pub fn reduce(mut self, counts: &[usize], targets: usize) -> Vec<Row> {
        self.count_steps(counts, targets);
        let mut rows = Vec::new();
        for ix in 0..self.steps.len() {
            let st = &self.state[ix];
            if st.effective.is_some() || st.dont_care {
                continue;
            }
            let matched = if st.constant {
                match (st.hard, self.steps[ix].variable) {
                    (true, false) => Matched::Always,
                    (false, false) => Matched::Never,
                    (true, true) => Matched::Now,
                    (false, true) => Matched::NotNow,
                }
            } else {
                Matched::Count(st.count)
            };
            rows.push(Row {
                step: ix,
                matched,
                condition: self.label(ix),
            });
        }
        rows
    }

    /// A step's label (HTCondor's `Label()`): the label set so far, else the
    /// operator and its steps, else the step's text.
    fn label(&self, ix: usize) -> String {
        let st = &self.state[ix];
        if !st.label.is_empty() {
            return st.label.clone();
        }
        if let Some(l) = make_label(self.steps[ix].logic, st.left, st.right) {
            return l;
        }
        if st.unparsed.is_empty() {
            "empty".into()
        } else {
            st.unparsed.clone()
        }
    }

    /// `AnalyzePropagateConstants`: a logic step over constant steps becomes
    /// constant, or stands for its other operand; what it makes irrelevant is
    /// marked so.
    fn propagate_constants(&mut self) {
        for ix in 0..self.steps.len() {
            let mut effective = None;
            let mut irrelevant = None;
            let mut soft_irrelevant = false;
            if let Some(logic) = self.steps[ix].logic {
                let side = |i: Option<usize>| match i {
                    Some(i) if self.state[i].constant => {
                        (self.state[i].hard as u8, self.steps[i].variable)
                    }
                    // Not constant: HTCondor's "indeterminate".
                    _ => (2, false),
                };
                let (left, right) = (self.state[ix].left, self.state[ix].right);
                let ((hl, sl), (hr, sr)) = (side(left), side(right));
                match logic {
                    Logic::Not => {
                        if self.state[ix].label.is_empty() {
                            if let Some(l) = left {
                                self.state[ix].label = format!(" ! [{l}]{}", truthy(hl, sl));
                            }
                        }
                    }
                    Logic::Or => {
                        if hl == 1 || hr == 1 {
                            self.set_constant(ix, true, sl && sr);
                            if hl == 1 {
                                effective = left;
                                irrelevant = right;
                                soft_irrelevant = sl && (hr != 0 || sr);
                            } else {
                                effective = right;
                                irrelevant = left;
                                soft_irrelevant = sr && (hl != 0 || sl);
                            }
                        } else if hl == 0 && hr == 0 {
                            self.set_constant(ix, false, sl || sr);
                        } else if hl == 0 {
                            effective = right;
                            irrelevant = left;
                            soft_irrelevant = sl;
                        } else if hr == 0 {
                            effective = left;
                            irrelevant = right;
                            soft_irrelevant = sr;
                        }
                        self.state[ix].label =
                            format!("{} || {}", operand(left, hl, sl), operand(right, hr, sr));
                    }
                    Logic::And => {
                        if hl == 0 || hr == 0 {
                            self.set_constant(ix, false, sl || sr);
                            if hl == 0 {
                                effective = left;
                                irrelevant = right;
                                soft_irrelevant = sl;
                            } else {
                                effective = right;
                                irrelevant = left;
                                soft_irrelevant = sr;
                            }
                        } else if hl == 1 && hr == 1 {
                            self.set_constant(ix, true, sl || sr);
                        } else if hl == 1 {
                            effective = right;
                        } else if hr == 1 {
                            effective = left;
                        }
                        self.state[ix].label =
                            format!("{} && {}", operand(left, hl, sl), operand(right, hr, sr));
                    }
                }
                if effective.is_some() {
                    self.state[ix].effective = effective;
                }
            }
            // Follow what the step stands for to its end.
            if let Some(mut e) = effective {
                if irrelevant.is_none() {
                    if Some(e) == self.state[ix].left {
                        irrelevant = self.state[ix].right;
                    }
                    if Some(e) == self.state[ix].right {
                        irrelevant = self.state[ix].left;
                    }
                    // As HTCondor: this marks as soft some prunes that are not,
                    // so that the parents of soft prunes stay soft.
                    if self.steps[ix].variable {
                        soft_irrelevant = true;
                    }
                }
                while let Some(next) = self.state[e].effective {
                    e = next;
                    self.state[ix].effective = Some(e);
                }
            }
            if let Some(irr) = irrelevant {
                if !soft_irrelevant {
                    self.mark_irrelevant(irr);
                }
            }
        }
    }

    /// A logic step's constant value: HTCondor sets the step's value and
    /// whether it reads the clock (which `variable` holds here).
    fn set_constant(&mut self, ix: usize, value: bool, variable: bool) {
        self.state[ix].constant = true;
        self.state[ix].hard = value;
        self.steps[ix].variable = variable;
    }

    /// Marks step `ix` and every step below it as unable to change the result
    /// (`MarkIrrelevant`).
    fn mark_irrelevant(&mut self, ix: usize) {
        let mut todo = vec![ix];
        while let Some(i) = todo.pop() {
            self.state[i].dont_care = true;
            let st = &self.state[i];
            todo.extend([st.left, st.right, st.grip].into_iter().flatten());
        }
    }

    /// The pass after the constants: a step's operands that stand for other
    /// steps are replaced by those.
    fn propagate_effectives(&mut self) {
        for ix in 0..self.steps.len() {
            let mut changed = false;
            let st = &self.state[ix];
            let mut operands = [st.left, st.right, st.grip];
            for operand in &mut operands {
                if let Some(e) = operand.and_then(|j| self.state[j].effective) {
                    *operand = Some(e);
                    changed = true;
                }
            }
            let st = &mut self.state[ix];
            [st.left, st.right, st.grip] = operands;
            if changed {
                self.state[ix].label.clear();
            }
        }
    }

    /// The counting pass of `AnalyzeRequirementsForEachTarget`, in step order:
    /// each step still standing is counted (its count from `counts`), and a
    /// logic step whose operands' counts decide it stands for one of them; an
    /// operand of `&&` that matches more than the `&&` while its partner matches
    /// exactly as much is left out.
    fn count_steps(&mut self, counts: &[usize], all: usize) {
        for (ix, &count) in counts.iter().enumerate() {
            {
                let st = &self.state[ix];
                if st.effective.is_some() || st.dont_care || st.constant {
                    continue;
                }
            }
            self.state[ix].count = 0;
            let (left, right) = (self.state[ix].left, self.state[ix].right);
            let logic = self.steps[ix].logic;
            if let (Some(l), Some(r), Some(logic)) = (left, right, logic) {
                let (cl, cr) = (self.state[l].count, self.state[r].count);
                let mut effective = None;
                let mut prune = None;
                match logic {
                    Logic::And => {
                        if cl == 0 {
                            effective = Some(l);
                        } else if cr == 0 {
                            effective = Some(r);
                        }
                    }
                    Logic::Or => {
                        // HTCondor's four cases, in its order: one side
                        // matching every target decides, else one matching
                        // none leaves the other.
                        if cl == all {
                            (effective, prune) = (Some(l), Some(r));
                        } else if cr == all || (cl == 0 && cr != 0) {
                            (effective, prune) = (Some(r), Some(l));
                        } else if cl != 0 && cr == 0 {
                            (effective, prune) = (Some(l), Some(r));
                        }
                    }
                    Logic::Not => {}
                }
                if let Some(p) = prune {
                    self.mark_irrelevant(p);
                }
                match effective {
                    Some(e) => self.state[ix].effective = Some(self.end_of(e)),
                    None => self.operands_to_effectives(ix, l, r),
                }
            }
            // HTCondor counts the step even when the operands decided it.
            self.state[ix].count = count;
            if let (Some(l), Some(r), Some(Logic::And)) = (left, right, logic) {
                let c = self.state[ix].count;
                let (cl, cr) = (self.state[l].count, self.state[r].count);
                let mut effective = None;
                if cl == c {
                    effective = Some(l);
                    if cr > c {
                        self.state[r].dont_care = true;
                    }
                } else if cr == c {
                    effective = Some(r);
                    if cl > c {
                        self.state[l].dont_care = true;
                    }
                }
                match effective {
                    Some(e) => {
                        self.state[ix].effective = Some(self.end_of(e));
                        self.state[ix].label.clear();
                    }
                    None => self.operands_to_effectives(ix, l, r),
                }
            } else if let (Some(l), Some(r), Some(_)) = (left, right, logic) {
                self.operands_to_effectives(ix, l, r);
            }
        }
    }

    /// The step `e` stands for, followed to its end.
    fn end_of(&self, mut e: usize) -> usize {
        while let Some(next) = self.state[e].effective {
            e = next;
        }
        e
    }

    /// Step `ix`'s operands `l` and `r` replaced by what they stand for.
    fn operands_to_effectives(&mut self, ix: usize, l: usize, r: usize) {
        if let Some(e) = self.state[l].effective {
            self.state[ix].left = Some(e);
            self.state[ix].label.clear();
        }
        if let Some(e) = self.state[r].effective {
            self.state[ix].right = Some(e);
            self.state[ix].label.clear();
        }
    }
}

/// HTCondor's `MakeLabel`: a logic step as the steps it combines.
fn make_label(logic: Option<Logic>, left: Option<usize>, right: Option<usize>) -> Option<String> {
    let n = |i: Option<usize>| i.map_or(-1, |i| i as i64);
    match logic? {
        Logic::Not => left.map(|l| format!(" ! [{l}]")),
        Logic::Or => Some(format!("[{}] || [{}]", n(left), n(right))),
        Logic::And => Some(format!("[{}] && [{}]", n(left), n(right))),
    }
}

/// An operand in a label HTCondor makes while folding constants: its number
/// and, when constant, its value (`T`/`F`, `t`/`f` when it reads the clock).
fn operand(ix: Option<usize>, hard: u8, soft: bool) -> String {
    format!("[{}]{}", ix.map_or(-1, |i| i as i64), truthy(hard, soft))
}

/// HTCondor's `truthy` marks: 0 false, 1 true, 2 not constant.
fn truthy(hard: u8, soft: bool) -> &'static str {
    match (hard, soft) {
        (0, false) => "F",
        (1, false) => "T",
        (0, true) => "f",
        (1, true) => "t",
        _ => "",
    }
}

/// The frame for `expr`: what kind of node it is to the analysis, which of its
/// children are walked, and whether it is a step of its own.
fn frame(ad: &ClassAd, expr: ExprRef, store: bool, inline_here: bool, inline: &[&str]) -> Frame {
    let mut f = Frame {
        expr: expr.clone(),
        inline: inline_here,
        push: store,
        logic: None,
        label: String::new(),
        children: [None, None, None],
        store_children: false,
        found: [None; 3],
        variable: false,
        next: 0,
    };
    let child = |id| Some(expr.child(id));
    match expr.node() {
        Node::Lit(v) => {
            let mut text = String::new();
            if !write_scalar_value(v, &mut text) {
                text = crate::values::display::unparse_value(v);
            }
            f.label = text;
        }
        Node::Attr {
            scope,
            name,
            absolute,
        } => {
            if scope.is_none() && name.eq_ignore_ascii_case("CurrentTime") {
                f.variable = true;
            }
            if let Some(s) = scope {
                f.children[0] = child(*s);
            } else if !*absolute
                && inline_here
                && inline.iter().any(|n| n.eq_ignore_ascii_case(name))
            {
                // The attribute's expression stands in the name's place, and
                // nothing below it is inlined again.
                if let Some(e) = ad.get(name) {
                    f.children[0] = Some(e.to_expr_ref());
                    f.inline = false;
                }
            }
        }
        Node::Unary(op, a) => {
            f.children[0] = child(*a);
            if *op == UnOp::Not {
                f.logic = Some(Logic::Not);
                f.push = true;
                f.store_children = true;
            }
        }
        Node::Binary(op, a, b) => {
            f.children = [child(*a), child(*b), None];
            match op {
                BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::Is
                | BinOp::Isnt => f.push = true,
                BinOp::And | BinOp::Or => {
                    f.logic = Some(if *op == BinOp::And {
                        Logic::And
                    } else {
                        Logic::Or
                    });
                    f.push = true;
                    f.store_children = true;
                }
                // HTCondor sets `MY.x ?: literal` apart as a default rather
                // than a condition, then stores it whenever its operands are
                // stored, which is the rule for every other operator: the
                // distinction changes nothing.
                _ => {}
            }
        }
        Node::Ternary(c, a, b) => f.children = [child(*c), child(*a), child(*b)],
        Node::Paren(a) => {
            f.children[0] = child(*a);
            f.push = false;
            f.store_children = true;
        }
        Node::Call { name, args } => {
            if args.is_empty() && name.eq_ignore_ascii_case("time") {
                f.variable = true;
            }
            f.label = format!("{name}()");
            if store {
                let mut text = String::new();
                unparse_node(&expr.tree, expr.id, &mut text);
                if !text.is_empty() {
                    f.label = text;
                }
            }
        }
        Node::List(_) | Node::Record(_) => {}
    }
    f
}

/// The end of a frame: its step number (its own, or the one it stands for).
fn finish_frame(f: Frame, steps: &mut Vec<Step>) -> Option<usize> {
    let [left, right, grip] = &f.children;
    let only_left = left.is_some() && right.is_none() && grip.is_none();
    let ix_left = f.found[0];
    if f.push {
        if let Some(ix) = ix_left.filter(|_| only_left) {
            // `!` takes over the step just made below it.
            if ix + 1 == steps.len() && f.logic == Some(Logic::Not) {
                let last = steps.last_mut().expect("a step");
                last.expr = f.expr;
                last.logic = Some(Logic::Not);
                if !last.label.is_empty() {
                    last.label.insert_str(0, "! ");
                }
            }
            return Some(ix);
        }
        steps.push(Step {
            expr: f.expr,
            logic: f.logic,
            left: ix_left,
            right: f.found[1],
            grip: f.found[2],
            label: f.label,
            variable: f.variable,
        });
        return Some(steps.len() - 1);
    }
    if only_left {
        return ix_left;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::syntax::parse_expr;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    fn requirements(ad: &ClassAd) -> ExprRef {
        ad.get("Requirements").unwrap().to_expr_ref()
    }

    /// The steps of `text` as Requirements of an ad with `attrs`, reduced with
    /// `count(step text)` as each needed step's count of `all` targets.
    fn reduce(attrs: &str, text: &str, all: usize, count: &dyn Fn(&str) -> usize) -> Vec<String> {
        let job = ad(&format!("{attrs}\nRequirements = {text}\n"));
        let mut steps = Steps::of(&job, &requirements(&job), &[]);
        let needed = steps.needed(&job);
        let mut counts = vec![usize::MAX; steps.len()];
        for i in needed {
            let mut t = String::new();
            let e = &steps.steps()[i].expr;
            unparse_node(&e.tree, e.id, &mut t);
            counts[i] = count(&t);
        }
        steps
            .reduce(&counts, all)
            .into_iter()
            .map(|r| format!("[{}] {} {}", r.step, r.matched.text(), r.condition))
            .collect()
    }

    #[test]
    fn steps_are_numbered_in_evaluation_order() {
        let job = ad("Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)\nRequestDisk = 1\n");
        let steps = Steps::of(&job, &requirements(&job), &[]);
        assert_eq!(
            steps.numbered(),
            [
                "TARGET.Arch == \"X86_64\"",
                "TARGET.OpSys == \"LINUX\"",
                "[0] && [1]",
                "TARGET.Disk >= RequestDisk",
                "[2] && [3]",
                "TARGET.Memory >= RequestMemory",
                "[4] && [5]",
            ]
        );
    }

    /// The manual's example (HTCondor's troubleshooting guide): one slot,
    /// matching every condition but the memory one.
    #[test]
    fn the_manual_s_example_reduces_to_its_four_conditions() {
        let rows = reduce(
            "RequestDisk = 1\nRequestMemory = 99999",
            "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)",
            1,
            &|t| usize::from(!t.contains("Memory")),
        );
        assert_eq!(
            rows,
            [
                "[0] 1 TARGET.Arch == \"X86_64\"",
                "[1] 1 TARGET.OpSys == \"LINUX\"",
                "[3] 1 TARGET.Disk >= RequestDisk",
                "[5] 0 TARGET.Memory >= RequestMemory",
            ]
        );
    }

    #[test]
    fn an_and_that_narrows_both_operands_keeps_its_row() {
        // Arch matches 10 of 10, OpSys 8, both together 6 (the counts of the
        // `&&` steps below are what the table prints for them).
        let rows = reduce(
            "",
            "TARGET.Arch == \"X\" && TARGET.OpSys == \"L\"",
            10,
            &|t| match t {
                "TARGET.Arch == \"X\"" => 9,
                "TARGET.OpSys == \"L\"" => 8,
                _ => 6,
            },
        );
        assert_eq!(
            rows,
            [
                "[0] 9 TARGET.Arch == \"X\"",
                "[1] 8 TARGET.OpSys == \"L\"",
                "[2] 6 [0] && [1]",
            ]
        );
        // When the `&&` matches what OpSys matches, OpSys stands for it and
        // Arch, which matches more, is left out.
        let rows = reduce(
            "",
            "TARGET.Arch == \"X\" && TARGET.OpSys == \"L\"",
            10,
            &|t| {
                if t == "TARGET.Arch == \"X\"" {
                    9
                } else {
                    8
                }
            },
        );
        assert_eq!(rows, ["[1] 8 TARGET.OpSys == \"L\""]);
    }

    #[test]
    fn constant_steps_fold_into_the_logic_above_them() {
        // `MY.WantX` is true in the job: the `&&` stands for the other operand.
        let rows = reduce("WantX = true", "MY.WantX && TARGET.HasX", 4, &|_| 3);
        assert_eq!(rows, ["[1] 3 TARGET.HasX"]);
        // False: the whole is never true, and the other operand is irrelevant.
        let rows = reduce("WantX = false", "MY.WantX && TARGET.HasX", 4, &|_| 3);
        assert_eq!(rows, ["[0] never MY.WantX"]);
        // Read from the clock: "not now" rather than never.
        // HTCondor leaves the other operand in (it could matter later).
        let rows = reduce("", "time() < 0 && TARGET.HasX", 4, &|_| 3);
        assert_eq!(rows, ["[0] not now time() < 0", "[1] 3 TARGET.HasX"]);
    }

    #[test]
    fn an_or_that_one_side_decides_stands_for_it() {
        // The left side matches every target: the right is irrelevant.
        let rows = reduce(
            "FileSystemDomain = \"x\"",
            "(TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer)",
            5,
            &|t| if t.contains("Domain") { 5 } else { 2 },
        );
        assert_eq!(
            rows,
            ["[0] 5 TARGET.FileSystemDomain == MY.FileSystemDomain"]
        );
        // Neither decides: both and the `||` are rows.
        let rows = reduce("", "TARGET.A == 1 || TARGET.B == 1", 5, &|t| match t {
            "TARGET.A == 1" => 2,
            "TARGET.B == 1" => 1,
            _ => 3,
        });
        assert_eq!(
            rows,
            [
                "[0] 2 TARGET.A == 1",
                "[1] 1 TARGET.B == 1",
                "[2] 3 [0] || [1]"
            ]
        );
    }

    #[test]
    fn not_takes_over_the_step_below_it() {
        let job = ad("Requirements = !(TARGET.X == 1) && !member(TARGET.M, { 1, 2 })\n");
        let steps = Steps::of(&job, &requirements(&job), &[]);
        assert_eq!(
            steps.numbered(),
            [
                " !(TARGET.X == 1)",
                " !member(TARGET.M,{ 1,2 })",
                "[0] && [1]"
            ]
        );
        // In the table, a step `!` took over keeps the label it had, marked.
        let mut steps = steps;
        let needed = steps.needed(&job);
        assert_eq!(needed, [0, 1, 2]);
        let rows = steps.reduce(&[1, 1, 1], 2);
        assert_eq!(rows[1].condition, "! member(TARGET.M,{ 1,2 })");
        assert_eq!(rows[0].condition, " !(TARGET.X == 1)");
    }

    #[test]
    fn parenthesized_operands_are_steps_and_start_is_inlined() {
        let slot = ad(
            "Start = (TARGET.Owner =!= \"mallory\")\nCpus = 4\nRequirements = START && (TARGET.RequestCpus ?: 1) <= (MY.Cpus ?: 0)\n",
        );
        let steps = Steps::of(&slot, &requirements(&slot), &["START"]);
        assert_eq!(
            steps.numbered(),
            [
                "TARGET.Owner isnt \"mallory\"",
                // What parentheses hold is stored as a step of its own.
                "TARGET.RequestCpus ?: 1",
                "MY.Cpus ?: 0",
                "[1] (TARGET.RequestCpus ?: 1) <= (MY.Cpus ?: 0)",
                "[0] && [3]"
            ]
        );
        // Not inlined: START is a step of its own.
        let steps = Steps::of(&slot, &requirements(&slot), &[]);
        assert_eq!(steps.numbered()[0], "START");
    }

    #[test]
    fn long_chains_are_walked_without_recursion() {
        let text = vec!["TARGET.X"; 20_000].join(" && ");
        let e = ExprRef::root_of(Arc::new(parse_expr(&text).unwrap()));
        let steps = Steps::of(&ClassAd::new(), &e, &[]);
        assert_eq!(steps.len(), 20_000 * 2 - 1);
    }
}
