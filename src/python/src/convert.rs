//! ClassAd values to Python objects and Python objects to ClassAd expressions,
//! as classad2 converts them: undefined and error are the `Value` enum's members,
//! absolute times `datetime`s in UTC, relative times floats, lists Python lists
//! (an element that is not a literal, list or record stays an `ExprTree`),
//! records `ClassAd`s; `None` is undefined, a `dict` (any mapping) a record and
//! any other iterable a list.
//!
//! Both directions stop at the parser's [`MAX_NESTING`] (165) lists and records
//! deep with a `ValueError`, rather than recursing until the stack overflows (a
//! list nested 20,000 deep, or one that holds itself): deeper has no text that
//! reads back, so no reader makes it; only evaluation can (a selection over a
//! list a level per reference).

use crate::ad::PyClassAd;
use crate::errors::classad_error;
use crate::expr::PyExprTree;
use classad::eval::{Evaluator, Semantics};
use classad::syntax::ast::{copy_into, Expr, ExprRef, Node, NodeId};
use classad::syntax::parser::MAX_NESTING;
use classad::values::compound::{ad_of_value, as_list, ListVal};
use classad::Value;
use classad_vm::AbsTime;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString};
use std::sync::Arc;

/// The pure-Python helpers (`classad_rs._support`): the enums, and classad2's
/// time conversions.
fn support<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let m = MODULE.get_or_try_init(py, || py.import("classad_rs._support").map(Bound::unbind))?;
    m.bind(py).getattr(name)
}

/// `Value.Undefined` or `Value.Error`.
fn special(py: Python<'_>, error: bool) -> PyResult<Py<PyAny>> {
    static UNDEFINED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static ERROR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let (cell, name) = if error {
        (&ERROR, "Error")
    } else {
        (&UNDEFINED, "Undefined")
    };
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(support(py, "Value")?.getattr(name)?.unbind())
    })
    .map(|v| v.clone_ref(py))
}

/// The error of a list or record nested deeper than [`MAX_NESTING`].
fn too_deep() -> PyErr {
    PyValueError::new_err(format!(
        "lists and records nested more than {MAX_NESTING} deep \
         (classad_rs.MAX_NESTING): the ClassAd language reads no deeper"
    ))
}

/// `depth` lists and records deep, or the error of one too many.
fn nested(depth: u32) -> PyResult<u32> {
    if depth > MAX_NESTING {
        Err(too_deep())
    } else {
        Ok(depth)
    }
}

/// A value as classad2 hands it to Python.
pub fn value_to_py(py: Python<'_>, v: &Value, sem: Semantics) -> PyResult<Py<PyAny>> {
    value_at(py, v, sem, 0)
}

/// [`value_to_py`] of a value inside `depth` lists.
fn value_at(py: Python<'_>, v: &Value, sem: Semantics, depth: u32) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Undefined => special(py, false)?,
        Value::Error => special(py, true)?,
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => PyInt::new(py, *i).into_any().unbind(),
        Value::Real(r) | Value::RelTime(r) => PyFloat::new(py, *r).into_any().unbind(),
        Value::Str(s) => PyString::new(py, s.as_str()).into_any().unbind(),
        Value::AbsTime(t) => support(py, "_from_timestamp")?.call1((t.secs,))?.unbind(),
        Value::List(_) => list_to_py(py, v, sem, nested(depth + 1)?)?,
        Value::Ad(_) => match ad_of_value(v) {
            Some(ad) => Py::new(py, PyClassAd::new(ad))?.into_any(),
            None => special(py, false)?,
        },
    })
}

/// A list value, `depth` lists deep counting itself: its elements converted,
/// except those that are not literals, lists or records, which stay
/// expressions.
fn list_to_py(py: Python<'_>, v: &Value, sem: Semantics, depth: u32) -> PyResult<Py<PyAny>> {
    let out = PyList::empty(py);
    match as_list(v) {
        Some(ListVal::Lazy { list, scope, .. }) => {
            if let Node::List(items) = list.node() {
                for &i in items {
                    let item = list.child(i);
                    if converts(item.node()) {
                        let v = Evaluator::new(sem == Semantics::Htcondor)
                            .eval(&item, scope.as_ref())
                            .map_err(|_| {
                                classad_error("Failed to evaluate convertible expression")
                            })?;
                        out.append(value_at(py, &v, sem, depth)?)?;
                    } else {
                        out.append(Py::new(py, PyExprTree::new(item))?)?;
                    }
                }
            }
        }
        Some(ListVal::Values(items)) | Some(ListVal::Projected(items)) => {
            for item in items {
                out.append(value_at(py, item, sem, depth)?)?;
            }
        }
        None => {}
    }
    Ok(out.into_any().unbind())
}

/// The expressions classad2 evaluates and converts rather than hand out as an
/// `ExprTree`: literals, lists and records.
pub fn converts(n: &Node) -> bool {
    matches!(n, Node::Lit(_) | Node::List(_) | Node::Record(_))
}

/// What `ad[name]` gives for the attribute's expression `e`: the converted value
/// of a literal, list or record, else the expression.
pub fn stored_to_py(py: Python<'_>, e: &ExprRef, sem: Semantics) -> PyResult<Py<PyAny>> {
    stored_at(py, e, sem, 0)
}

/// [`stored_to_py`] of an expression inside `depth` lists.
fn stored_at(py: Python<'_>, e: &ExprRef, sem: Semantics, depth: u32) -> PyResult<Py<PyAny>> {
    match e.node() {
        Node::Lit(Value::RelTime(r)) => Ok(PyFloat::new(py, *r).into_any().unbind()),
        Node::Lit(v) => value_to_py(py, v, sem),
        Node::Record(attrs) => {
            let ad = classad::ad::ClassAd::from_attrs(
                attrs
                    .iter()
                    .map(|(n, id)| (n.clone(), e.child(*id)))
                    .collect(),
            );
            Ok(Py::new(py, PyClassAd::new(ad))?.into_any())
        }
        Node::List(items) => {
            let depth = nested(depth + 1)?;
            let out = PyList::empty(py);
            for &i in items {
                let item = e.child(i);
                if converts(item.node()) {
                    out.append(stored_at(py, &item, sem, depth)?)?;
                } else {
                    out.append(Py::new(py, PyExprTree::new(item))?)?;
                }
            }
            Ok(out.into_any().unbind())
        }
        _ => Ok(Py::new(py, PyExprTree::new(e.clone()))?.into_any()),
    }
}

/// A Python value as the expression classad2 makes of it (an `ExprTree` as it
/// is).
pub fn py_to_expr(obj: &Bound<'_, PyAny>) -> PyResult<ExprRef> {
    if let Ok(e) = obj.cast::<PyExprTree>() {
        return Ok(e.get().expr.clone());
    }
    let mut nodes = Vec::new();
    let root = push_py(obj, &mut nodes, 0)?;
    Ok(ExprRef::root_of(Arc::new(Expr::from_parts(nodes, root))))
}

fn lit(nodes: &mut Vec<Node>, v: Value) -> NodeId {
    nodes.push(Node::Lit(v));
    (nodes.len() - 1) as NodeId
}

/// Adds the expression of `obj`, inside `depth` lists and records, to `nodes`,
/// in classad2's order of tests.
fn push_py(obj: &Bound<'_, PyAny>, nodes: &mut Vec<Node>, depth: u32) -> PyResult<NodeId> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(lit(nodes, Value::Undefined));
    }
    if let Ok(e) = obj.cast::<PyExprTree>() {
        let e = &e.get().expr;
        nested(depth + e.tree.nesting(e.id))?;
        return Ok(copy_into(&e.tree, e.id, nodes));
    }
    if let Ok(a) = obj.cast::<PyClassAd>() {
        let ad = PyClassAd::share(a)?;
        nested(depth + ad_nesting(&ad))?;
        return Ok(push_ad(&ad, nodes));
    }
    if obj.is_instance(&support(py, "Value")?)? {
        let v = match obj.extract::<i64>()? {
            1 => Value::Error,
            2 => Value::Undefined,
            _ => return Err(classad_error("Unknown ClassAd value type.")),
        };
        return Ok(lit(nodes, v));
    }
    if obj.is_instance(&support(py, "datetime")?)? {
        let secs: i64 = support(py, "_convert_local_datetime_to_utc_ts")?
            .call1((obj,))?
            .extract()?;
        return Ok(lit(nodes, Value::AbsTime(AbsTime { secs, offset: 0 })));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(lit(nodes, Value::Bool(b.is_true())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(lit(nodes, Value::str(&*s.to_cow()?)));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        // classad2 keeps the bytes as they are; a string here is UTF-8, so
        // bytes that are not fail now rather than when read.
        let s = match std::str::from_utf8(b.as_bytes()) {
            Ok(s) => s,
            Err(e) => {
                let exc = pyo3::exceptions::PyUnicodeDecodeError::new_utf8(py, b.as_bytes(), e)?;
                return Err(PyErr::from_value(exc.into_any()));
            }
        };
        return Ok(lit(nodes, Value::str(s)));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(lit(nodes, Value::Int(obj.extract::<i64>()?)));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(lit(nodes, Value::Real(f.value())));
    }
    if obj.hasattr("items")? {
        if let Ok(items) = obj.call_method0("items") {
            let depth = nested(depth + 1)?;
            let mut attrs = Vec::new();
            for item in items.try_iter()? {
                let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
                let key: String = key.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "argument 1 must be str, not {}",
                        key.get_type()
                            .name()
                            .map(|n| n.to_string())
                            .unwrap_or_default()
                    ))
                })?;
                attrs.push((key, push_py(&value, nodes, depth)?));
            }
            return Ok(push_record(attrs, nodes));
        }
    }
    if let Ok(iter) = obj.try_iter() {
        let depth = nested(depth + 1)?;
        let mut items = Vec::new();
        for item in iter {
            items.push(push_py(&item?, nodes, depth)?);
        }
        nodes.push(Node::List(items));
        return Ok((nodes.len() - 1) as NodeId);
    }
    Err(classad_error(
        "Unable to convert Python object to a ClassAd expression.",
    ))
}

/// A record of `attrs`, a repeated name (ignoring case) keeping its first
/// spelling and last value, as inserting into an ad does.
fn push_record(attrs: Vec<(String, NodeId)>, nodes: &mut Vec<Node>) -> NodeId {
    let mut ad_attrs: Vec<(classad_vm::Str, NodeId)> = Vec::new();
    for (name, id) in attrs {
        match ad_attrs
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            Some(slot) => slot.1 = id,
            None => ad_attrs.push((name.into(), id)),
        }
    }
    ad_attrs.sort_by(|a, b| classad::ad::classad::attr_order(&a.0, &b.0));
    nodes.push(Node::Record(ad_attrs));
    (nodes.len() - 1) as NodeId
}

/// How deep lists and records nest in `ad` as a record: 1 more than in its
/// deepest attribute.
fn ad_nesting(ad: &classad::ad::ClassAd) -> u32 {
    1 + ad
        .iter()
        .map(|(_, e)| e.tree.nesting(e.id))
        .max()
        .unwrap_or(0)
}

/// An ad as a record node of `nodes`.
pub fn push_ad(ad: &classad::ad::ClassAd, nodes: &mut Vec<Node>) -> NodeId {
    let attrs = ad
        .iter()
        .map(|(n, e)| (n.clone(), copy_into(e.tree, e.id, nodes)))
        .collect();
    nodes.push(Node::Record(attrs));
    (nodes.len() - 1) as NodeId
}
