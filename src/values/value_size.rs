//! What a value counts towards the memory budget of an evaluation
//! ([`crate::limits`]): a string its bytes, a list a builtin or a selection
//! made [`LIST_ELEMENT_BYTES`] per element plus its elements, anything else
//! nothing; and the list builders that stop as soon as they pass the cap.

use super::compound::{as_list, values_list, ListVal};
use crate::limits::{too_big, Tally, LIST_ELEMENT_BYTES};
use classad_vm::Value;

/// What `v` counts towards the cap (see the module documentation).
pub fn value_size(v: &Value) -> usize {
    match v {
        Value::Str(s) => s.len(),
        Value::List(_) => match as_list(v) {
            Some(ListVal::Values(items) | ListVal::Projected(items)) => items_size(items),
            _ => 0,
        },
        _ => 0,
    }
}

/// What a list of `items` counts towards the cap.
pub fn items_size(items: &[Value]) -> usize {
    items.iter().fold(0usize, |n, v| {
        n.saturating_add(LIST_ELEMENT_BYTES + value_size(v))
    })
}

/// `v`, or error when it is larger than the cap allows.
pub fn capped(v: Value) -> Value {
    if too_big(value_size(&v)) {
        Value::Error
    } else {
        v
    }
}

/// A list of `items`, as a builtin makes it, or error as soon as it passes the cap
/// (the items after that are not made).
pub fn collect_list(items: impl Iterator<Item = Value>) -> Value {
    let mut tally = Tally::new();
    let mut out = Vec::new();
    for v in items {
        if !tally.add(LIST_ELEMENT_BYTES + value_size(&v)) {
            return Value::Error;
        }
        out.push(v);
    }
    values_list(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::with_max_value_bytes;

    #[test]
    fn sizes_count_bytes_and_list_elements() {
        assert_eq!(value_size(&Value::str("abc")), 3);
        assert_eq!(value_size(&Value::Int(7)), 0);
        let inner = values_list(vec![Value::str("ab")]);
        let outer = values_list(vec![inner, Value::Int(1)]);
        assert_eq!(value_size(&outer), 3 * LIST_ELEMENT_BYTES + 2);
    }

    #[test]
    fn a_value_past_the_thread_cap_is_error() {
        with_max_value_bytes(4, || {
            assert!(capped(Value::str("abcde")).is_error());
            assert_eq!(capped(Value::str("abcd")).type_name(), "string");
        });
    }
}
