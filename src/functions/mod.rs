//! HTCondor's builtin functions, shared by every evaluator through the [`Call`] trait.
//!
//! Each builtin gets its arguments unevaluated, as in HTCondor: most evaluate them
//! all, `ifThenElse` evaluates only the branch it takes, and `unparse` looks at the
//! attribute reference itself.

use crate::syntax::ast::ExprRef;
use crate::values::scope::{Found, Scope};
use crate::values::Fail;
use classad_vm::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::OnceLock;

/// What a builtin can ask of the evaluator that called it.
pub trait Call {
    /// How many arguments were written.
    fn argc(&self) -> usize;
    /// Evaluates argument `i` (0-based) in the caller's scope.
    fn arg(&mut self, i: usize) -> Result<Value, Fail>;
    /// The unevaluated expression of argument `i`.
    fn arg_expr(&self, i: usize) -> ExprRef;
    /// When argument `i` is an attribute reference, what it refers to (an
    /// expression and the scope it was found in, or an ad; `None` when nothing
    /// is found) and where HTCondor's lookup left its evaluation state (see
    /// [`Evaluating::deref`]); `Err` when it is not a reference.
    fn referenced(&mut self, i: usize) -> Result<Referenced, RefError>;
    /// Parses `src` as an expression and evaluates it in the caller's scope; a parse
    /// error gives `Value::Error`.
    fn eval_source(&mut self, src: &str) -> Result<Value, Fail>;
    /// Evaluates argument `i` where HTCondor ignores the failure of that
    /// evaluation: a failure gives the value the failing node left behind (error
    /// from an operator or a call, undefined from a reference that did not
    /// resolve).
    /// `scope` replaces the caller's scope when given.
    fn arg_lenient(&mut self, i: usize, scope: Option<Arc<Scope>>) -> Value;
    /// Evaluates `e`, written in scope `lexical`, with the ad `ad` as its current
    /// scope, in a fresh evaluation rooted at the ad's outermost scope (HTCondor's
    /// `EvalState::SetScopes(ad)`). Record and list literals of `e` keep `lexical`
    /// as their parent.
    fn eval_in_ad(
        &mut self,
        e: &ExprRef,
        ad: &Value,
        lexical: Option<Arc<Scope>>,
    ) -> Result<Value, Fail>;
    /// Element `i` of list value `v` (which must be a list with that element),
    /// evaluated. Builtins read elements one at a time, as HTCondor's do, so an
    /// element after the one that decides the answer is never evaluated (and its
    /// failure cannot fail the call).
    fn list_item(&mut self, v: &Value, i: usize) -> Result<Value, Fail>;
    /// The evaluated elements of a list value; `None` when `v` is not a list.
    fn list_items(&mut self, v: &Value) -> Result<Option<Vec<Value>>, Fail> {
        let Some(n) = list_len(v) else {
            return Ok(None);
        };
        (0..n)
            .map(|i| self.list_item(v, i))
            .collect::<Result<_, _>>()
            .map(Some)
    }
    /// The scope the call is evaluated in (`None`: no ad, or arguments given as
    /// values).
    fn scope(&self) -> Option<Arc<Scope>>;
    /// The evaluator running this call, so that a builtin evaluating more
    /// expressions shares its depth limit and cycle detection.
    fn evaluator(&mut self) -> &mut dyn Evaluating;
}

/// What a builtin that evaluates further expressions (`unresolved`'s walk, an
/// ad's fields read as a time) asks of the evaluator running it: all a builtin
/// sees of it.
pub trait Evaluating {
    /// Evaluates `e` with `cur` as its scope, within this evaluation's limits.
    fn eval(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Value, Fail>;
    /// What attribute reference `e` refers to, without evaluating it, and where
    /// HTCondor's lookup leaves its evaluation state (see [`Call::referenced`]).
    fn deref(&mut self, e: &ExprRef, cur: Option<&Arc<Scope>>) -> Result<Referenced, Fail>;
    /// Looks `name` up from `start` outward, as an unscoped reference is: what
    /// it found, and the scope the search stopped at.
    fn lookup_stopping(
        &mut self,
        start: &Arc<Scope>,
        name: &str,
    ) -> Result<(Option<Found>, Arc<Scope>), Fail>;
    /// Leaves the evaluation's current ad at `scope`, as HTCondor's lookup of a
    /// reference inside `unresolved` does; nothing when no lookup ran.
    fn leave_state_in(&mut self, scope: Option<Arc<Scope>>);
    /// Runs `f` with that state set aside, and puts it back after.
    fn without_leak(&mut self, f: &mut dyn FnMut(&mut dyn Evaluating));
    /// A new evaluation with limits of its own, as HTCondor's `EvaluateAttr`
    /// on an ad starts one.
    fn fresh(&self) -> Box<dyn Evaluating>;
}

/// The number of elements of list value `v`; `None` when it is not a list.
pub fn list_len(v: &Value) -> Option<usize> {
    crate::values::compound::as_list(v).map(|l| l.len())
}

/// What an attribute reference refers to (an expression and the scope it was
/// found in, or an ad; `None` when nothing is found), and where HTCondor's lookup
/// left its evaluation state: see [`Call::referenced`].
pub type Referenced = (Option<Found>, Option<Arc<Scope>>);

/// Why `referenced_expr` found nothing usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefError {
    /// The argument is not an attribute reference.
    NotAReference,
    /// Evaluating the reference's scope failed.
    Failed,
    /// The reference's scope is not an ad (or `.name` has no root ad), so no
    /// lookup ran.
    Unresolved,
}

/// The signature every builtin has.
pub type BuiltinFn = fn(&mut dyn Call) -> Result<Value, Fail>;

/// A builtin function.
#[derive(Clone, Copy)]
pub struct Builtin {
    /// Its canonical name.
    pub name: &'static str,
    /// Its implementation.
    pub run: BuiltinFn,
    /// Found only under exactly this spelling (HTCondor's `versionGT` family);
    /// every other builtin ignores case.
    pub exact_case: bool,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Builtin({})", self.name)
    }
}

/// Every builtin, by name.
fn table() -> &'static [Builtin] {
    static TABLE: OnceLock<Vec<Builtin>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Vec::new();
        core::register(&mut t);
        convert::register(&mut t);
        math::register(&mut t);
        strings::register(&mut t);
        version::register(&mut t);
        lists::register(&mut t);
        time::register(&mut t);
        regex::register(&mut t);
        stringlist::register(&mut t);
        env_args::register(&mut t);
        introspect::register(&mut t);
        users::register(&mut t);
        t
    })
}

/// The position of builtin `name` in the table (see [`find`]): a compact id for
/// compiled code.
pub fn find_index(name: &str) -> Option<u32> {
    let b = find(name)?;
    table()
        .iter()
        .position(|t| std::ptr::eq(t, b))
        .map(|i| i as u32)
}

/// The builtin with id `i` (from [`find_index`]).
pub fn by_index(i: u32) -> Option<&'static Builtin> {
    table().get(i as usize)
}

/// Builtins that need more than their arguments' values (the expressions themselves,
/// the scope they are evaluated in, or what an argument whose evaluation failed
/// left behind); compiled code leaves them to the reference evaluator.
pub const SCOPED_BUILTINS: [&str; 5] = [
    "eval",
    "unparse",
    "unresolved",
    "evalInEachContext",
    "countMatches",
];

/// Builtins that make error of an argument whose evaluation fails, where any
/// other builtin fails with it: compiled code calls them with values, and hands
/// an evaluation that fails to the reference evaluator
/// (`classad_vm::Program::fail_needs_reference`).
pub const ERROR_ON_FAILED_ARGUMENT: [&str; 1] = ["stringListsIntersect"];

/// Builtins whose result depends on the clock or on chance (or, with no argument, on
/// the current time), so compiled code must not fold them into constants.
pub const IMPURE_BUILTINS: [&str; 9] = [
    "time",
    "currentTime",
    "dayTime",
    "random",
    "timeZoneOffset",
    "formatTime",
    "splitTime",
    "absTime",
    "debug",
];

/// True when a call of `name` gives the same value for the same argument values
/// wherever it is evaluated: neither the clock, chance, the scope nor the
/// expressions themselves ([`IMPURE_BUILTINS`], [`SCOPED_BUILTINS`]).
pub fn depends_on_arguments_only(name: &str) -> bool {
    let listed = |list: &[&str]| list.iter().any(|b| b.eq_ignore_ascii_case(name));
    !listed(&IMPURE_BUILTINS) && !listed(&SCOPED_BUILTINS)
}

/// Finds the builtin called `name`: case-insensitively, except those HTCondor only
/// knows under one spelling. `None` for an unknown function (which evaluates to
/// error).
pub fn find(name: &str) -> Option<&'static Builtin> {
    static INDEX: OnceLock<HashMap<String, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        table()
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let key = if b.exact_case {
                    b.name.to_string()
                } else {
                    b.name.to_ascii_lowercase()
                };
                (key, i)
            })
            .collect()
    });
    index
        .get(&name.to_ascii_lowercase())
        .or_else(|| index.get(name))
        .map(|&i| &table()[i])
        .filter(|b| !b.exact_case || b.name == name)
}

/// Runs builtin `b` on call `c` under the memory budget (see [`crate::limits`]): a
/// string result larger than the cap is error. (Lists are held to the cap where
/// they are made, by [`crate::values::compound::values_list`].) Every engine calls
/// builtins through here, so they all apply the same rule.
pub fn run_builtin(b: &Builtin, c: &mut dyn Call) -> Result<Value, Fail> {
    (b.run)(c).map(|v| match &v {
        Value::Str(s) if crate::limits::too_big(s.len()) => Value::Error,
        _ => v,
    })
}

/// Adds a builtin to a table under construction.
pub(crate) fn add(t: &mut Vec<Builtin>, name: &'static str, run: BuiltinFn) {
    t.push(Builtin {
        name,
        run,
        exact_case: false,
    });
}

/// Adds a builtin known only under its exact spelling.
// HTCondor 25.14.1 finds even `versionGT` under any spelling, so no builtin needs
// this today; it stays for functions registered by embedders.
#[allow(dead_code)]
pub(crate) fn add_exact(t: &mut Vec<Builtin>, name: &'static str, run: BuiltinFn) {
    t.push(Builtin {
        name,
        run,
        exact_case: true,
    });
}

/// True when the call has between `lo` and `hi` arguments; HTCondor gives error,
/// without evaluating anything, otherwise.
pub(crate) fn arity(c: &dyn Call, lo: usize, hi: usize) -> bool {
    (lo..=hi).contains(&c.argc())
}

pub(crate) mod convert;
mod core;
mod env_args;
mod introspect;
mod lists;
mod math;
mod pcre;
mod regex;
pub(crate) mod stringlist;
mod strings;
pub mod text;
pub mod time;
mod users;
pub(crate) mod version;

/// The current time in seconds since the epoch, as `time()` and `CurrentTime` give it.
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
