//! `ClassAd`: a mutable mapping of attribute names to expressions, with
//! classad2's conversions, printing, evaluation, references, flattening and
//! matching.
//!
//! The ad inside a `ClassAd` is borrowed (PyO3's run-time borrow) only around
//! Rust code that runs no Python: names are read from their `str`s, values
//! converted from and to Python objects, and errors made, outside any borrow
//! (`PyClassAd::share`, `PyClassAd::attr` and `PyClassAd::edit` take it
//! for a moment). Python code can run inside a conversion (a generator, a
//! mapping's `items`, a garbage collection's finalisers) and PyO3 lets go of
//! the GIL while it normalises an exception, so a borrow held across either
//! would let another thread, or the same code, find the ad borrowed
//! (`RuntimeError: Already borrowed`, or a panic) where classad2 works.

use crate::convert::{py_to_expr, stored_to_py, value_to_py};
use crate::errors::{classad_error, eval_failed, key_not_str, parse_failed_at, Failure};
use crate::expr::{evaluate, PyExprTree};
use crate::semantics;
use classad::ad::json::unparse_ad_json;
use classad::ad::same_ads;
use classad::ad::ClassAd;
use classad::ad::ParseAds;
use classad::ad::{unparse_ad, unparse_ad_old, unparse_ad_pretty};
use classad::eval::flatten::{flatten, Flattened};
use classad::matching::refs::References;
use classad::syntax::ast::ExprRef;
use classad::syntax::Parser;
use classad::Value;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::sync::Arc;

/// A ClassAd: a mutable mapping from attribute names (ignoring case) to
/// expressions, iterated in HTCondor's order.
#[pyclass(module = "classad_rs", name = "ClassAd", mapping)]
pub struct PyClassAd {
    /// The ad (copied on write when shared).
    pub ad: Arc<ClassAd>,
}

impl PyClassAd {
    /// Wraps an ad.
    pub fn new(ad: ClassAd) -> PyClassAd {
        PyClassAd { ad: Arc::new(ad) }
    }

    /// The ad as it is now, shared (copied on the next write while shared).
    pub fn share(slf: &Bound<'_, Self>) -> PyResult<Arc<ClassAd>> {
        Ok(slf.try_borrow()?.ad.clone())
    }

    /// The expression of attribute `name`, if the ad has one.
    fn attr(slf: &Bound<'_, Self>, name: &str) -> PyResult<Option<ExprRef>> {
        Ok(slf.try_borrow()?.ad.get(name).map(|e| e.to_expr_ref()))
    }

    /// The expression of attribute `name`, or `KeyError(name)`.
    fn attr_or_key_error(slf: &Bound<'_, Self>, name: &str) -> PyResult<ExprRef> {
        Self::attr(slf, name)?.ok_or_else(|| PyKeyError::new_err(name.to_owned()))
    }

    /// Changes the ad with `change`, which must run no Python (the module's
    /// documentation says why).
    fn edit<T>(slf: &Bound<'_, Self>, change: impl FnOnce(&mut ClassAd) -> T) -> PyResult<T> {
        Ok(change(Arc::make_mut(&mut slf.try_borrow_mut()?.ad)))
    }

    /// Sets attribute `name` to `value` converted, as classad2 does; the value
    /// is converted before the ad is borrowed.
    fn set(slf: &Bound<'_, Self>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let e = expr_to_set(name, value)?;
        Self::edit(slf, |ad| ad.insert(name, e))
    }
}

/// The expression `ad[name] = value` stores: `value` converted, or classad2's
/// error for an empty name.
fn expr_to_set(name: &str, value: &Bound<'_, PyAny>) -> PyResult<ExprRef> {
    if name.is_empty() {
        return Err(classad_error("Insert(key, v) failed"));
    }
    py_to_expr(value)
}

/// An attribute name given as a key: a `str`, or `TypeError`.
fn key_name<'a>(key: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, str>> {
    key.cast::<PyString>().map_err(|_| key_not_str())?.to_cow()
}

/// classad2's `"a,b".split(",")` of a reference set: `['']` when empty.
fn ref_list(names: Vec<String>) -> Vec<String> {
    if names.is_empty() {
        vec![String::new()]
    } else {
        names
    }
}

/// The `ExprTree` argument of `externalRefs`, `internalRefs` and `flatten`.
fn expr_arg(expr: &Bound<'_, PyAny>) -> PyResult<ExprRef> {
    expr.cast::<PyExprTree>()
        .map(|e| e.get().expr.clone())
        .map_err(|_| PyTypeError::new_err("expr must be an ExprTree"))
}

/// `requirements` of `ad` evaluated with `ad` as MY and `target` as TARGET,
/// counted as classad2's `matches` counts it: true for `true` and for a nonzero
/// number, false for anything else or when `ad` has no `requirements`.
fn matches(ad: &Bound<'_, PyClassAd>, target: &Bound<'_, PyClassAd>) -> PyResult<bool> {
    let Some(req) = PyClassAd::attr(ad, "requirements")? else {
        return Ok(false);
    };
    let v = evaluate(&req, Some(ad), Some(target)).map_err(|_| eval_failed())?;
    Ok(match v {
        Value::Bool(b) => b,
        Value::Int(i) => i != 0,
        Value::Real(r) => r != 0.0,
        _ => false,
    })
}

fn ad_arg<'py>(ad: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyClassAd>> {
    ad.cast::<PyClassAd>()
        .cloned()
        .map_err(|_| PyTypeError::new_err("ad must be a ClassAd"))
}

#[pymethods]
impl PyClassAd {
    /// `ClassAd(input=None)`: empty, from new-syntax text, or from a `dict`.
    #[new]
    #[pyo3(signature = (input=None))]
    fn py_new(input: Option<&Bound<'_, PyAny>>) -> PyResult<PyClassAd> {
        let Some(input) = input.filter(|i| !i.is_none()) else {
            return Ok(PyClassAd::new(ClassAd::new()));
        };
        if input.is_instance_of::<PyDict>() {
            let mut ad = ClassAd::new();
            for (k, v) in input.cast::<PyDict>()?.iter() {
                let key: String = k.extract()?;
                ad.insert(key.as_str(), expr_to_set(&key, &v)?);
            }
            return Ok(PyClassAd::new(ad));
        }
        if let Ok(s) = input.cast::<PyString>() {
            let text = s.to_cow()?;
            let ad = match Parser::new(&text).next_classad() {
                Ok(Some(ad)) => ad,
                Ok(None) => {
                    let end = Failure::at(&text, text.len(), "the text holds no ad ([ ... ])");
                    return Err(parse_failed_at(end));
                }
                Err(e) => return Err(parse_failed_at(Failure::at(&text, e.offset, e.message))),
            };
            return Ok(PyClassAd::new(ad));
        }
        Err(PyTypeError::new_err("input must be None, str, or dict"))
    }

    fn __repr__(&self) -> String {
        unparse_ad(&self.ad)
    }

    fn __str__(&self) -> String {
        unparse_ad_pretty(&self.ad)
    }

    /// Pickles as the constructor called with the ad's text.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let text = unparse_ad(&*Self::share(slf)?);
        PyTuple::new(
            slf.py(),
            [
                slf.get_type().into_any(),
                PyTuple::new(slf.py(), [text])?.into_any(),
            ],
        )
    }

    fn __len__(&self) -> usize {
        self.ad.len()
    }

    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let e = Self::attr_or_key_error(slf, &key_name(key)?)?;
        stored_to_py(slf.py(), &e, semantics::current())
    }

    fn __setitem__(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        Self::set(slf, &key_name(key)?, value)
    }

    fn __delitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let name = key_name(key)?;
        if Self::edit(slf, |ad| ad.remove(&name))? {
            Ok(())
        } else {
            Err(PyKeyError::new_err(name.into_owned()))
        }
    }

    fn __contains__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let name = key_name(key)?;
        Ok(slf.try_borrow()?.ad.contains(&name))
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let names: Vec<String> = Self::share(slf)?
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        PyList::new(slf.py(), names)?
            .as_any()
            .try_iter()
            .map(|i| i.into_any())
    }

    /// Equal to another `ClassAd` with the same attributes (HTCondor's `SameAs`);
    /// anything else is left to Python.
    fn __richcmp__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(o) = other.cast::<PyClassAd>() else {
            return Ok(py.NotImplemented());
        };
        let same = same_ads(&*Self::share(slf)?, &*Self::share(o)?);
        Ok(match op {
            CompareOp::Eq => same.into_pyobject(py)?.to_owned().into_any().unbind(),
            CompareOp::Ne => (!same).into_pyobject(py)?.to_owned().into_any().unbind(),
            _ => py.NotImplemented(),
        })
    }

    /// `keys()`: a view of the names, in HTCondor's order.
    fn keys<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "KeysView")
    }

    /// `items()`: a view of (name, value) pairs.
    fn items<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "ItemsView")
    }

    /// `values()`: a view of the values.
    fn values<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "ValuesView")
    }

    /// `get(key, default=None)`.
    #[pyo3(signature = (key, default=None))]
    fn get(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        match Self::attr(slf, &key_name(key)?)? {
            Some(e) => stored_to_py(py, &e, semantics::current()),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }

    /// `update(other=(), **kwargs)`, as `MutableMapping.update` does it: each
    /// value read from `other` as Python reads it, then set.
    #[pyo3(signature = (other=None, **kwargs))]
    fn update(
        slf: &Bound<'_, Self>,
        other: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let mut pairs: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = Vec::new();
        if let Some(other) = other {
            if other.hasattr("keys")? {
                for k in other.call_method0("keys")?.try_iter()? {
                    let k = k?;
                    let v = other.get_item(&k)?;
                    pairs.push((k, v));
                }
            } else {
                for item in other.try_iter()? {
                    let (k, v) = item?.extract()?;
                    pairs.push((k, v));
                }
            }
        }
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                pairs.push((k, v));
            }
        }
        for (k, v) in pairs {
            Self::set(slf, &key_name(&k)?, &v)?;
        }
        Ok(())
    }

    /// `pop(key[, default])`, as `MutableMapping.pop` does it: the value read,
    /// then the attribute deleted.
    #[pyo3(signature = (key, *default))]
    fn pop(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        default: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<PyAny>> {
        let name = key_name(key)?;
        match Self::attr(slf, &name)? {
            Some(e) => {
                let v = stored_to_py(slf.py(), &e, semantics::current())?;
                Self::edit(slf, |ad| ad.remove(&name))?;
                Ok(v)
            }
            None if !default.is_empty() => Ok(default.get_item(0)?.unbind()),
            None => Err(PyKeyError::new_err(name.into_owned())),
        }
    }

    /// `popitem()`: the first (name, value) pair, removed.
    fn popitem<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let first = slf
            .try_borrow()?
            .ad
            .iter()
            .next()
            .map(|(n, e)| (n.to_string(), e.to_expr_ref()));
        let Some((name, e)) = first else {
            return Err(PyKeyError::new_err(()));
        };
        let v = stored_to_py(py, &e, semantics::current())?;
        Self::edit(slf, |ad| ad.remove(&name))?;
        PyTuple::new(py, [PyString::new(py, &name).into_any(), v.into_bound(py)])
    }

    /// `setdefault(key, default=None)`.
    #[pyo3(signature = (key, default=None))]
    fn setdefault(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        default: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let name = key_name(key)?;
        if let Some(e) = Self::attr(slf, &name)? {
            return stored_to_py(py, &e, semantics::current());
        }
        let none = py.None().into_bound(py);
        let d = default.unwrap_or(&none);
        Self::set(slf, &name, d)?;
        Ok(d.clone().unbind())
    }

    /// `clear()`.
    fn clear(&mut self) {
        self.ad = Arc::new(ClassAd::new());
    }

    /// `eval(attr)`: the attribute evaluated in this ad.
    fn eval(slf: &Bound<'_, Self>, attr: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let e = Self::attr_or_key_error(slf, &key_name(attr)?)?;
        let v = evaluate(&e, Some(slf), None).map_err(|_| eval_failed())?;
        value_to_py(slf.py(), &v, semantics::current())
    }

    /// `lookup(attr)`: the attribute's expression.
    fn lookup(slf: &Bound<'_, Self>, attr: &Bound<'_, PyAny>) -> PyResult<PyExprTree> {
        Ok(PyExprTree::new(Self::attr_or_key_error(
            slf,
            &key_name(attr)?,
        )?))
    }

    /// `externalRefs(expr)`: the names `expr` reads that this ad does not define.
    #[pyo3(name = "externalRefs")]
    fn external_refs(slf: &Bound<'_, Self>, expr: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let e = expr_arg(expr)?;
        let r = References::of(&*Self::share(slf)?, &e.tree, e.id);
        if r.gave_up {
            return Err(PyValueError::new_err(
                "Unable to determine external references.",
            ));
        }
        Ok(ref_list(
            r.external_full.iter().map(|n| n.to_string()).collect(),
        ))
    }

    /// `internalRefs(expr)`: the names `expr` reads that this ad defines.
    #[pyo3(name = "internalRefs")]
    fn internal_refs(slf: &Bound<'_, Self>, expr: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let e = expr_arg(expr)?;
        let r = References::of(&*Self::share(slf)?, &e.tree, e.id);
        if r.gave_up {
            return Err(PyValueError::new_err(
                "Unable to determine internal references.",
            ));
        }
        Ok(ref_list(r.internal.iter().map(|n| n.to_string()).collect()))
    }

    /// `flatten(expr)`: `expr` partially evaluated in this ad: a value when it
    /// folds to one, else an `ExprTree`.
    fn flatten(slf: &Bound<'_, Self>, expr: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let e = expr_arg(expr)?;
        let sem = semantics::current();
        match flatten(&Self::share(slf)?, &e, sem) {
            Ok(Flattened::Value(v)) => value_to_py(py, &v, sem),
            Ok(Flattened::Expr(x)) => {
                Ok(Py::new(py, PyExprTree::new(ExprRef::root_of(Arc::new(x))))?.into_any())
            }
            Err(_) => Err(PyValueError::new_err("Unable to flatten expression.")),
        }
    }

    /// `matches(ad)`: `ad`'s `requirements`, evaluated against this ad, is true.
    fn matches(slf: &Bound<'_, Self>, ad: &Bound<'_, PyAny>) -> PyResult<bool> {
        let ad = ad_arg(ad)?;
        matches(&ad, slf)
    }

    /// `symmetricMatch(ad)`: `self.matches(ad) and ad.matches(self)`.
    #[pyo3(name = "symmetricMatch")]
    fn symmetric_match(slf: &Bound<'_, Self>, ad: &Bound<'_, PyAny>) -> PyResult<bool> {
        let ad = ad_arg(ad)?;
        Ok(matches(&ad, slf)? && matches(slf, &ad)?)
    }

    /// `printOld()`: the ad in old (long) syntax, a line per attribute.
    #[pyo3(name = "printOld")]
    fn print_old(&self) -> String {
        unparse_ad_old(&self.ad)
    }

    /// `formatOld()`: the same as `printOld()`.
    #[pyo3(name = "formatOld")]
    fn format_old(&self) -> String {
        unparse_ad_old(&self.ad)
    }

    /// `printJson()`: the ad as a JSON object.
    #[pyo3(name = "printJson")]
    fn print_json(&self) -> String {
        unparse_ad_json(&self.ad)
    }

    /// `formatJson()`: the same as `printJson()`.
    #[pyo3(name = "formatJson")]
    fn format_json(&self) -> String {
        unparse_ad_json(&self.ad)
    }
}

/// `collections.abc.<kind>(ad)`.
fn view<'py>(slf: &Bound<'py, PyClassAd>, kind: &str) -> PyResult<Bound<'py, PyAny>> {
    slf.py()
        .import("collections.abc")?
        .getattr(kind)?
        .call1((slf,))
}
