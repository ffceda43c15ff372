//! What compiled code asks of the front end: builtins on values, and subscripts.

use crate::eval::values_call::ValuesCall;
use crate::eval::{Evaluator, Fail};
use crate::functions::by_index;
use classad_vm::{Halt, Value};
use std::sync::Arc;

/// The front end's side of [`classad_vm::Host`].
#[derive(Default)]
pub struct VmHost;

impl classad_vm::Host for VmHost {
    fn call(&mut self, native: u32, args: &[Value]) -> Result<Value, Halt> {
        let Some(b) = by_index(native) else {
            return Ok(Value::Error);
        };
        // A fresh evaluator each time: its budget and depth are per evaluation, and
        // it only ever evaluates literal list elements here.
        let mut ev = Evaluator::new(true);
        let mut call = ValuesCall::new(args, &mut ev);
        // A builtin that fails here may be one HTCondor never calls, or calls with
        // fewer arguments evaluated (builtins stop at an undefined or error
        // argument, but the machine evaluates them all first): let the reference
        // evaluator decide.
        let r = crate::functions::run_builtin(b, &mut call).map_err(|Fail| Halt::NeedReference);
        if call.needs_scope {
            return Err(Halt::NeedReference);
        }
        r
    }

    fn shared_by_block(&self, native: u32) -> bool {
        by_index(native).is_some_and(|b| b.name == "time")
    }

    fn pure_call(&self, native: u32) -> bool {
        // By builtin, worked out once: asked at every call.
        static PURE: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
        let pure = PURE.get_or_init(|| {
            let listed =
                |list: &[&str], name: &str| list.iter().any(|s| s.eq_ignore_ascii_case(name));
            (0..)
                .map_while(by_index)
                .map(|b| {
                    !listed(&crate::functions::IMPURE_BUILTINS, b.name)
                        && !listed(&crate::functions::SCOPED_BUILTINS, b.name)
                })
                .collect()
        });
        pure.get(native as usize).copied().unwrap_or(false)
    }

    fn identity(&self, v: &Value) -> Option<[u64; 2]> {
        use crate::values::compound::ListVal;
        match crate::values::compound::as_list(v)? {
            // A list literal evaluated with no ad (an attribute's list of
            // literals): its value is its tree's node, shared by every ad of
            // a file that spells the list alike.
            ListVal::Lazy {
                list,
                scope: None,
                copied,
            } => Some([
                Arc::as_ptr(&list.tree) as u64,
                u64::from(list.id) << 1 | u64::from(*copied),
            ]),
            // A list of values never changes: the object is its identity
            // (the machine's memo makes one object of equal lists it builds).
            ListVal::Values(_) => match v {
                Value::List(h) => Some([h.addr() as u64, u64::MAX]),
                _ => None,
            },
            _ => None,
        }
    }

    fn list_bytes(&self, v: &Value) -> Option<usize> {
        use crate::values::compound::ListVal;
        match crate::values::compound::as_list(v)? {
            ListVal::Values(items) => items
                .iter()
                .map(|x| match x {
                    Value::Str(s) => Some(8 + s.as_str().len()),
                    Value::List(_) | Value::Ad(_) => None,
                    _ => Some(8),
                })
                .sum(),
            _ => None,
        }
    }

    fn list(&mut self, items: &[Value]) -> Result<Value, Halt> {
        // As `evalInEachContext` lists its values: error past the memory budget.
        Ok(crate::values::compound::values_list(items.to_vec()))
    }

    fn index(&mut self, a: &Value, b: &Value) -> Result<Value, Halt> {
        Evaluator::new(true)
            .subscript(a, b)
            .map_err(|Fail| Halt::NeedReference)
    }
}

/// The element values of list value `v`; `None` when it is not a list or an
/// element fails to evaluate.
pub(crate) fn list_values(v: &Value) -> Option<Vec<Value>> {
    let l = crate::values::compound::as_list(v)?;
    Evaluator::new(true).list_items(l).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::compound::values_list;
    use classad_vm::Host;

    /// The memo keeps a builtin's list only when its size is known: lists of
    /// scalars, by their text and a word per item.
    #[test]
    fn list_bytes_counts_lists_of_scalars_only() {
        let host = VmHost;
        let split = values_list(vec![Value::str("ab"), Value::Int(1)]);
        assert_eq!(host.list_bytes(&split), Some(8 + 2 + 8));
        let nested = values_list(vec![split.clone()]);
        assert_eq!(host.list_bytes(&nested), None);
        assert_eq!(host.list_bytes(&Value::str("ab")), None);
        let e = crate::syntax::parser::parse_expr("{ 1, 2 }").unwrap();
        let literal = crate::eval::eval_alone(&e, crate::eval::Semantics::Htcondor).unwrap();
        assert!(matches!(literal, Value::List(_)));
        assert_eq!(
            host.list_bytes(&literal),
            None,
            "a literal's size is its tree's"
        );
    }
}
