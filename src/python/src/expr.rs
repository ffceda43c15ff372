//! `ExprTree`: one ClassAd expression, parsed as classad2 parses it (as the
//! right-hand side of `[expression = ...]`), printed, evaluated and simplified.

use crate::ad::PyClassAd;
use crate::convert::value_to_py;
use crate::errors::{eval_failed, parse_failed, parse_failed_at, Failure};
use crate::semantics;
use classad::ad::ClassAd;
use classad::ad::ParseAds;
use classad::eval::flatten::value_expr;
use classad::eval::{eval_in, Evaluator, Fail};
use classad::syntax::ast::{Expr, ExprRef};
use classad::syntax::same::same_as;
use classad::syntax::{unparse_node, Parser};
use classad::Value;
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// An expression in the ClassAd language (immutable).
#[pyclass(module = "classad_rs", name = "ExprTree", frozen)]
pub struct PyExprTree {
    /// The expression: a node of a shared tree.
    pub expr: ExprRef,
}

impl PyExprTree {
    /// Wraps an expression.
    pub fn new(expr: ExprRef) -> PyExprTree {
        PyExprTree { expr }
    }

    /// The one-line new-syntax text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        unparse_node(&self.expr.tree, self.expr.id, &mut s);
        s
    }
}

/// Parses `text` as classad2 does: the expression of `[expression = <text>]`,
/// so that what follows a closing `]` is ignored.
pub fn parse_as_classad2(text: &str) -> PyResult<ExprRef> {
    // Text that is one whole expression (and has no comment, which would swallow
    // the closing bracket) reads the same either way; parsed directly, it skips
    // building an ad.
    if !text.contains("//") && !text.contains("/*") {
        if let Ok(e) = classad::syntax::parse_expr(text) {
            return Ok(ExprRef::root_of(Arc::new(e)));
        }
    }
    const BEFORE: &str = "[expression = ";
    let src = format!("{BEFORE}{text}]");
    let ad = match Parser::new(&src).next_classad() {
        Ok(Some(ad)) => ad,
        Ok(None) => return Err(parse_failed()),
        Err(e) => {
            // Told in `text`: on its first line, the columns of the prefix off
            // (an error at the closing bracket is one past the text's end).
            let mut f = Failure::at(&src, e.offset, e.message);
            if f.line == 1 {
                f.column = f.column.saturating_sub(BEFORE.len() as u32).max(1);
            }
            return Err(parse_failed_at(f));
        }
    };
    ad.get("expression")
        .map(|e| e.to_expr_ref())
        .ok_or_else(parse_failed)
}

/// The longest text [`parse_cached`] keeps, and how many texts it keeps.
const CACHED_TEXT: usize = 256;
const CACHED_TEXTS: usize = 4096;

/// [`parse_as_classad2`], remembering short texts parsed lately (emptied when
/// full), as HTCondor's parse cache remembers right-hand sides: scripts build
/// the same expressions over and over, and the trees are immutable and shared.
pub fn parse_cached(text: &str) -> PyResult<ExprRef> {
    type Cache = Mutex<HashMap<String, ExprRef>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    if text.len() > CACHED_TEXT {
        return parse_as_classad2(text);
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(e) = cache.lock().ok().and_then(|c| c.get(text).cloned()) {
        return Ok(e);
    }
    let e = parse_as_classad2(text)?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= CACHED_TEXTS {
            c.clear();
        }
        c.insert(text.to_owned(), e.clone());
    }
    Ok(e)
}

/// The scope and target of an evaluation, checked as classad2 checks them.
pub fn scope_arg<'py>(
    arg: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Option<Bound<'py, PyClassAd>>> {
    match arg {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) => a
            .cast::<PyClassAd>()
            .map(|a| Some(a.clone()))
            .map_err(|_| PyTypeError::new_err(format!("{what} must be a ClassAd"))),
    }
}

/// Evaluates `e` as classad2's `evaluate` does: alone without a scope; in the
/// scope's ad; with a target (another object than the scope), in a match of the
/// two, the scope on the left.
pub fn evaluate(
    e: &ExprRef,
    scope: Option<&Bound<'_, PyClassAd>>,
    target: Option<&Bound<'_, PyClassAd>>,
) -> Result<Value, Fail> {
    let sem = semantics::current();
    let Some(scope) = scope else {
        return Evaluator::new(sem == classad::eval::Semantics::Htcondor).eval(e, None);
    };
    let my: Arc<ClassAd> = scope.borrow().ad.clone();
    match target {
        Some(t) if !t.is(scope) => {
            let t = t.borrow().ad.clone();
            eval_in(e, &my, Some(&t), sem)
        }
        _ => eval_in(e, &my, None, sem),
    }
}

#[pymethods]
impl PyExprTree {
    /// `ExprTree(expr=None)`: undefined, a copy of an `ExprTree`, or the text of
    /// `str(expr)` parsed.
    #[new]
    #[pyo3(signature = (expr=None))]
    fn py_new(expr: Option<&Bound<'_, PyAny>>) -> PyResult<PyExprTree> {
        let e = match expr {
            None => ExprRef::root_of(Arc::new(Expr::literal(Value::Undefined))),
            Some(x) if x.is_none() => ExprRef::root_of(Arc::new(Expr::literal(Value::Undefined))),
            Some(x) => match x.cast::<PyExprTree>() {
                Ok(t) => t.get().expr.clone(),
                Err(_) => match x.cast::<pyo3::types::PyString>() {
                    Ok(s) => parse_cached(&s.to_cow()?)?,
                    Err(_) => parse_as_classad2(&x.str()?.to_cow()?)?,
                },
            },
        };
        Ok(PyExprTree { expr: e })
    }

    /// HTCondor's pretty-printed text (lists and records over several lines).
    fn __str__(&self) -> String {
        classad::syntax::unparse::unparse_pretty_expr(&self.expr)
    }

    fn __repr__(&self) -> String {
        self.text()
    }

    /// Equal when the other is an `ExprTree` of the same expression (HTCondor's
    /// `SameAs`); never equal to anything else.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let same = match other.cast::<PyExprTree>() {
            Ok(o) => {
                let o = &o.get().expr;
                same_as(&self.expr.tree, self.expr.id, &o.tree, o.id)
            }
            Err(_) => false,
        };
        match op {
            CompareOp::Eq => same
                .into_pyobject(py)
                .unwrap()
                .to_owned()
                .into_any()
                .unbind(),
            CompareOp::Ne => (!same)
                .into_pyobject(py)
                .unwrap()
                .to_owned()
                .into_any()
                .unbind(),
            _ => py.NotImplemented(),
        }
    }

    /// `eval(scope=None, target=None)`: the expression's value as a Python object.
    #[pyo3(signature = (scope=None, target=None))]
    fn eval(
        &self,
        py: Python<'_>,
        scope: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let scope = scope_arg(scope, "scope")?;
        let target = scope_arg(target, "target")?;
        let v = evaluate(&self.expr, scope.as_ref(), target.as_ref()).map_err(|_| eval_failed())?;
        value_to_py(py, &v, semantics::current())
    }

    /// `simplify(scope=None, target=None)`: the value as an `ExprTree`.
    #[pyo3(signature = (scope=None, target=None))]
    fn simplify(
        &self,
        scope: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyExprTree> {
        let scope = scope_arg(scope, "scope")?;
        let target = scope_arg(target, "target")?;
        let v = evaluate(&self.expr, scope.as_ref(), target.as_ref()).map_err(|_| eval_failed())?;
        Ok(PyExprTree {
            expr: ExprRef::root_of(Arc::new(value_expr(&v))),
        })
    }
}
