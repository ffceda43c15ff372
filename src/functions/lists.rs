//! List builtins: `member`, `identicalMember`, `sum`, `avg`, `min`, `max`,
//! `anyCompare`, `allCompare`, `evalInEachContext`, `countMatches`.

use super::{add, arity, list_len, Builtin, Call};
use crate::syntax::ast::Node;
use crate::values::compound::{ad_value, values_list};
use crate::values::scope::Found;
use crate::values::Fail;
use classad_vm::ops::{self, Arith, Cmp};
use classad_vm::Value;

pub(super) fn register(t: &mut Vec<Builtin>) {
    add(t, "member", |c| member(c, false));
    add(t, "identicalMember", |c| member(c, true));
    add(t, "sum", |c| sum_avg(c, false));
    add(t, "avg", |c| sum_avg(c, true));
    add(t, "min", |c| min_max(c, Cmp::Lt));
    add(t, "max", |c| min_max(c, Cmp::Gt));
    add(t, "anyCompare", |c| list_compare(c, false));
    add(t, "allCompare", |c| list_compare(c, true));
    add(t, "evalInEachContext", |c| in_each(c, false));
    add(t, "countMatches", |c| in_each(c, true));
}

/// `member(x, list)` with `==`, `identicalMember(x, list)` with `=?=`.
fn member(c: &mut dyn Call, identical: bool) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    let (x, l) = (c.arg(0)?, c.arg(1)?);
    if l.is_undefined() || (!identical && x.is_undefined()) {
        return Ok(Value::Undefined);
    }
    if matches!(x, Value::List(_) | Value::Ad(_)) || (!identical && x.is_error()) {
        return Ok(Value::Error);
    }
    let Some(n) = list_len(&l) else {
        return Ok(Value::Error);
    };
    let op = if identical { Cmp::Is } else { Cmp::Eq };
    // Elements are evaluated in turn up to the first that matches.
    for i in 0..n {
        if matches!(
            ops::compare(op, &c.list_item(&l, i)?, &x),
            Value::Bool(true)
        ) {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// The list argument `i` and its length, or the result to give instead
/// (undefined for undefined, error for a non-list). Its elements are read one at
/// a time (see [`Call::list_item`]).
fn list_arg(c: &mut dyn Call, i: usize) -> Result<Result<(Value, usize), Value>, Fail> {
    let v = c.arg(i)?;
    if v.is_undefined() {
        return Ok(Err(Value::Undefined));
    }
    Ok(match list_len(&v) {
        Some(n) => Ok((v, n)),
        None => Err(Value::Error),
    })
}

/// `sum(list)` and `avg(list)`: numbers only (a non-number is error); the empty
/// list sums to integer 0 and averages to integer 0. Booleans count as 0 and 1 once
/// added to something (`sum({true, true})` is 2), but a lone element is returned as
/// it is (`sum({true})` is true), as in HTCondor 25.14.1.
fn sum_avg(c: &mut dyn Call, avg: bool) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let (l, n) = match list_arg(c, 0)? {
        Ok(l) => l,
        Err(v) => return Ok(v),
    };
    let mut total: Option<Value> = None;
    let mut count = 0usize;
    for i in 0..n {
        let item = c.list_item(&l, i)?;
        if item.is_undefined() {
            continue;
        }
        count += 1;
        if !is_numeric(&item) {
            return Ok(Value::Error);
        }
        total = Some(match total {
            None => item,
            Some(t) => ops::arith(Arith::Add, &bool_as_int(&t), &bool_as_int(&item)),
        });
    }
    let total = total.unwrap_or(Value::Int(0));
    if avg && count > 0 {
        return Ok(ops::arith(
            Arith::Div,
            &bool_as_int(&total),
            &Value::Real(count as f64),
        ));
    }
    Ok(total)
}

/// What these list functions accept: numbers and, as HTCondor's arithmetic does,
/// booleans.
fn is_numeric(v: &Value) -> bool {
    v.is_number() || matches!(v, Value::Bool(_))
}

/// A boolean as the integer HTCondor's arithmetic on list elements uses.
fn bool_as_int(v: &Value) -> Value {
    match v {
        Value::Bool(b) => Value::Int(i64::from(*b)),
        _ => v.clone(),
    }
}

/// `min(list)`/`max(list)`: numbers only; the empty list gives undefined. A lone
/// element comes back as it is; otherwise the answer takes the list's common numeric
/// type: real if any element is real, else integer (`max({3, 1, 2.5})` is 3.0,
/// `min({true, false})` is 0), as HTCondor 25.14.1 gives it.
fn min_max(c: &mut dyn Call, op: Cmp) -> Result<Value, Fail> {
    if !arity(c, 1, 1) {
        return Ok(Value::Error);
    }
    let (l, n) = match list_arg(c, 0)? {
        Ok(l) => l,
        Err(v) => return Ok(v),
    };
    let mut best: Option<Value> = None;
    let mut count = 0usize;
    let mut any_real = false;
    for i in 0..n {
        let item = c.list_item(&l, i)?;
        if item.is_undefined() {
            continue;
        }
        if !is_numeric(&item) {
            return Ok(Value::Error);
        }
        count += 1;
        any_real |= matches!(item, Value::Real(_));
        best = Some(match best {
            None => item,
            Some(b) if matches!(ops::compare(op, &item, &b), Value::Bool(true)) => item,
            Some(b) => b,
        });
    }
    Ok(match best {
        None => Value::Undefined,
        Some(b) if count == 1 => b,
        Some(b) => match (bool_as_int(&b), any_real) {
            (Value::Int(i), true) => Value::Real(i as f64),
            (v, _) => v,
        },
    })
}

/// The comparison named by `anyCompare`'s first argument.
fn cmp_op(s: &str) -> Option<Cmp> {
    Some(match s {
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        "!=" => Cmp::Ne,
        "==" => Cmp::Eq,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        "is" => Cmp::Is,
        "isnt" => Cmp::Isnt,
        _ => return None,
    })
}

/// `anyCompare(op, list, x)` / `allCompare(op, list, x)`.
fn list_compare(c: &mut dyn Call, all: bool) -> Result<Value, Fail> {
    if !arity(c, 3, 3) {
        return Ok(Value::Error);
    }
    let op = match c.arg(0)? {
        Value::Undefined => return Ok(Value::Undefined),
        Value::Str(s) => match cmp_op(&s) {
            Some(op) => op,
            None => return Ok(Value::Error),
        },
        _ => return Ok(Value::Error),
    };
    let (l, n) = match list_arg(c, 1)? {
        Ok(l) => l,
        Err(v) => return Ok(v),
    };
    let x = c.arg(2)?;
    for i in 0..n {
        let item = c.list_item(&l, i)?;
        let r = match op {
            Cmp::Is | Cmp::Isnt => crate::values::compound::identity(op, &item, &x),
            _ => ops::compare(op, &item, &x),
        };
        match r {
            Value::Bool(b) if b != all => return Ok(Value::Bool(b)),
            Value::Bool(_) => {}
            // HTCondor stops at the first non-boolean: undefined ends the scan with
            // the default answer for `any`, false for `all`.
            Value::Undefined => return Ok(Value::Bool(false)),
            _ => return Ok(Value::Error),
        }
    }
    Ok(Value::Bool(all))
}

/// `evalInEachContext(expr, list of ads)` and `countMatches(expr, list of ads)`,
/// as HTCondor's one function for both does it:
///
/// - when `expr` is an attribute reference that resolves where the call is, the
///   expression it refers to is what gets evaluated in each ad;
/// - the list is evaluated with its failure ignored (see [`Call::arg_lenient`]);
///   undefined gives undefined (countMatches: 0), anything else but a list error;
/// - each element is evaluated (a failure counts as error); in an ad, `expr` is
///   evaluated in a fresh evaluation rooted at the ad, a failure giving error; an
///   undefined element gives undefined and anything else error.
///
/// `evalInEachContext` lists the values; `countMatches` counts those that are
/// true (or a non-zero number).
fn in_each(c: &mut dyn Call, count: bool) -> Result<Value, Fail> {
    if !arity(c, 2, 2) {
        return Ok(Value::Error);
    }
    // HTCondor's lookup of the reference leaves its evaluation state in the ad
    // where the name was found, or, for a name found nowhere, in the outermost
    // ad of the walk (the match ad in a match); the list is then evaluated there,
    // when it is not a list literal.
    // A name that is an ad (`MY`, `TARGET`, `self`, ...) stands for that ad in
    // every context.
    let mut the_ad = None;
    let (expr, home, list_scope) = match c.referenced(0) {
        Ok((Some(Found::Expr(e, home)), state)) => (e, Some(home), state),
        Ok((Some(Found::Ad(ad)), state)) => {
            the_ad = Some(ad_value(ad));
            (c.arg_expr(0), c.scope(), state)
        }
        Ok((Some(Found::Value(v)), state)) => {
            the_ad = Some(v);
            (c.arg_expr(0), c.scope(), state)
        }
        Ok((None, state)) => (c.arg_expr(0), c.scope(), state),
        Err(_) => (c.arg_expr(0), c.scope(), None),
    };
    let literal = matches!(c.arg_expr(1).node(), Node::List(_));
    let l = c.arg_lenient(1, if literal { None } else { list_scope });
    let Some(n) = list_len(&l) else {
        return Ok(match l {
            Value::Undefined if count => Value::Int(0),
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        });
    };
    // Counting keeps no values; listing drops them once the list passes the memory
    // budget (the rest are still evaluated, as they would be without it).
    let mut out = Vec::with_capacity(if count { 0 } else { n });
    let mut matched = 0;
    let mut tally = crate::limits::Tally::new();
    for i in 0..n {
        let v = match c.list_item(&l, i) {
            Ok(Value::Ad(_)) if the_ad.is_some() => the_ad.clone().expect("checked"),
            Ok(ad @ Value::Ad(_)) => c
                .eval_in_ad(&expr, &ad, home.clone())
                .unwrap_or(Value::Error),
            Ok(Value::Undefined) => Value::Undefined,
            Ok(_) | Err(Fail) => Value::Error,
        };
        if count {
            matched += i64::from(v.as_bool_equiv() == Some(true));
        } else if tally
            .add(crate::limits::LIST_ELEMENT_BYTES + crate::values::value_size::value_size(&v))
        {
            out.push(v);
        } else {
            out = Vec::new();
        }
    }
    if count {
        return Ok(Value::Int(matched));
    }
    Ok(if tally.over() {
        Value::Error
    } else {
        values_list(out)
    })
}

#[cfg(test)]
mod tests {
    use crate::eval::testing::{eval, list, s};
    use classad_vm::Value;

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn membership() {
        let ab = || list(vec![s("a"), s("b")]);
        assert_eq!(eval("member", vec![s("A"), ab()]), "true");
        assert_eq!(eval("identicalMember", vec![s("A"), ab()]), "false");
        let l12 = || list(vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(eval("member", vec![Value::Real(1.0), l12()]), "true");
        assert_eq!(
            eval("identicalMember", vec![Value::Real(1.0), l12()]),
            "false"
        );
        assert_eq!(
            eval(
                "identicalMember",
                vec![
                    Value::Undefined,
                    list(vec![Value::Int(1), Value::Undefined])
                ]
            ),
            "true"
        );
        assert_eq!(eval("member", vec![Value::Undefined, l12()]), "undefined");
        assert_eq!(eval("member", vec![Value::Int(1), Value::Int(1)]), "error");
    }

    #[test]
    fn aggregates() {
        let i = Value::Int;
        assert_eq!(eval("sum", vec![list(vec![])]), "0");
        assert_eq!(eval("avg", vec![list(vec![])]), "0");
        assert_eq!(eval("min", vec![list(vec![])]), "undefined");
        assert_eq!(eval("sum", vec![list(vec![i(1), s("a")])]), "error");
        assert_eq!(
            eval("avg", vec![list(vec![i(1), i(2)])]),
            "1.500000000000000E+00"
        );
        assert_eq!(
            eval("max", vec![list(vec![i(1), Value::Real(2.5)])]),
            "2.500000000000000E+00"
        );
        assert_eq!(
            eval(
                "anyCompare",
                vec![s("is"), list(vec![s("A"), s("b")]), s("a")]
            ),
            "false"
        );
        assert_eq!(
            eval("anyCompare", vec![s("=?="), list(vec![i(1)]), i(1)]),
            "error"
        );
        assert_eq!(
            eval("allCompare", vec![s("<"), list(vec![i(1), i(2)]), i(3)]),
            "true"
        );
    }

    // Expected results from HTCondor 25.14.1.
    #[test]
    fn boolean_sums_and_numeric_promotion() {
        let (t, f) = (Value::Bool(true), Value::Bool(false));
        assert_eq!(eval("sum", vec![list(vec![t.clone(), t.clone()])]), "2");
        assert_eq!(eval("sum", vec![list(vec![t.clone()])]), "true");
        assert_eq!(
            eval("sum", vec![list(vec![t.clone(), Value::Real(1.5)])]),
            "2.500000000000000E+00"
        );
        assert_eq!(
            eval("avg", vec![list(vec![t.clone()])]),
            "1.000000000000000E+00"
        );
        assert_eq!(
            eval(
                "max",
                vec![list(vec![Value::Int(3), Value::Int(1), Value::Real(2.5)])]
            ),
            "3.000000000000000E+00"
        );
        assert_eq!(
            eval("min", vec![list(vec![Value::Int(1), Value::Real(2.5)])]),
            "1.000000000000000E+00"
        );
        assert_eq!(eval("min", vec![list(vec![t.clone(), f])]), "0");
        assert_eq!(eval("max", vec![list(vec![t.clone()])]), "true");
        assert_eq!(
            eval("max", vec![list(vec![Value::Int(3), Value::Int(1)])]),
            "3"
        );
    }

    #[test]
    fn count_matches_in_undefined_list() {
        assert_eq!(
            eval("countMatches", vec![Value::Bool(true), Value::Undefined]),
            "0"
        );
        assert_eq!(
            eval("countMatches", vec![Value::Bool(true), Value::Error]),
            "error"
        );
        assert_eq!(
            eval(
                "evalInEachContext",
                vec![Value::Bool(true), Value::Undefined]
            ),
            "undefined"
        );
    }
}
