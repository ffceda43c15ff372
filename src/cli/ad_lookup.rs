//! An attribute of an ad read as HTCondor's `ClassAd::LookupInteger`,
//! `LookupFloat`, `LookupString` and `LookupBool` read it
//! (`src/classad/classad.cpp`, `EvaluateAttrInt` and friends): evaluated in the
//! ad, and found only when its value has the type asked for; and a value read as
//! a number as `Value::IsNumber` reads it. The table views and `-format` of
//! `classad query` (HTCondor's print masks and renderers) read ads this way.

use crate::ad::ClassAd;
use crate::eval::{eval_attr, Semantics};
use crate::functions::text::f64_to_i64_x86;
use classad_vm::Value;
use std::sync::Arc;

fn value(ad: &Arc<ClassAd>, name: &str) -> Option<Value> {
    eval_attr(ad, name, None, Semantics::Htcondor).ok()
}

/// `LookupInteger`: an integer value (`EvaluateAttrInt`: `IsIntegerValue`, so
/// not a real nor a boolean).
pub fn integer(ad: &Arc<ClassAd>, name: &str) -> Option<i64> {
    match value(ad, name)? {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

/// `LookupFloat` (`EvaluateAttrNumber`): any number, a boolean as 0 or 1.
pub fn float(ad: &Arc<ClassAd>, name: &str) -> Option<f64> {
    match value(ad, name)? {
        Value::Int(i) => Some(i as f64),
        Value::Real(r) => Some(r),
        Value::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    }
}

/// `LookupString`: a string value.
pub fn string(ad: &Arc<ClassAd>, name: &str) -> Option<String> {
    match value(ad, name)? {
        Value::Str(s) => Some(s.as_str().to_string()),
        _ => None,
    }
}

/// `LookupBool` (`EvaluateAttrBoolEquiv`): a boolean, or a number as true when
/// it is not zero.
pub fn boolean(ad: &Arc<ClassAd>, name: &str) -> Option<bool> {
    match value(ad, name)? {
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        Value::Real(r) => Some(r != 0.0),
        _ => None,
    }
}

/// `Value::IsNumber(long long &)`: an integer, a real truncated as x86-64
/// truncates it, a boolean as 0 or 1.
pub fn number_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Real(r) => Some(f64_to_i64_x86(*r)),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// `Value::IsNumber(double &)`.
pub fn number_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    #[test]
    fn each_lookup_finds_only_its_type() {
        let ad =
            Arc::new(parse_classad("[ I = 3; R = 2.5; B = true; S = \"x\"; E = I + 1 ]").unwrap());
        assert_eq!(integer(&ad, "I"), Some(3));
        assert_eq!(integer(&ad, "e"), Some(4));
        assert_eq!(integer(&ad, "R"), None);
        assert_eq!(integer(&ad, "B"), None);
        assert_eq!(float(&ad, "I"), Some(3.0));
        assert_eq!(float(&ad, "B"), Some(1.0));
        assert_eq!(float(&ad, "S"), None);
        assert_eq!(string(&ad, "S").as_deref(), Some("x"));
        assert_eq!(string(&ad, "I"), None);
        assert_eq!(boolean(&ad, "B"), Some(true));
        assert_eq!(boolean(&ad, "I"), Some(true));
        assert_eq!(boolean(&ad, "Missing"), None);
        assert_eq!(number_i64(&Value::Real(-2.9)), Some(-2));
        assert_eq!(number_i64(&Value::Real(1e30)), Some(i64::MIN));
        assert_eq!(number_f64(&Value::Bool(true)), Some(1.0));
        assert_eq!(number_i64(&Value::Undefined), None);
    }
}
