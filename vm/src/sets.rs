//! Membership of a value in a constant collection, prepared once at compile time:
//! the run-time half of HTCondor's `stringListMember` and `member` families when
//! their list argument is a constant.

use crate::ops::{self, Cmp};
use crate::value::{Str, Value};

/// A constant collection, prepared for membership tests.
#[derive(Clone, Debug)]
pub enum ConstSet {
    /// The items of a constant string list (already split and trimmed, empty items
    /// dropped): `stringListMember` (`ignore_case` false) or `stringListIMember`.
    Strings {
        /// The items.
        items: Vec<Str>,
        /// Compare ignoring ASCII case.
        ignore_case: bool,
        /// The list argument was undefined (its items are then none). HTCondor's
        /// string-list builtins give undefined when their first two arguments
        /// both are, so an undefined value is undefined in this set, where in any
        /// other it counts as the empty string, which no item is.
        list_undefined: bool,
    },
    /// The element values of a constant list: `member` (`identical` false, `==`)
    /// or `identicalMember` (`=?=`).
    Values {
        /// The elements.
        items: Vec<Value>,
        /// Compare with `=?=` instead of `==`.
        identical: bool,
    },
}

impl ConstSet {
    /// Whether `x` is in the collection, as the builtin answers with this
    /// collection as its list argument.
    pub fn contains(&self, x: &Value) -> Value {
        match self {
            ConstSet::Strings {
                items,
                ignore_case,
                list_undefined,
            } => {
                // The string-list builtins read undefined as the empty string, which
                // no item is, unless the list was undefined too; anything else but a
                // string is an error.
                let x = match x {
                    Value::Str(s) => s,
                    Value::Undefined if *list_undefined => return Value::Undefined,
                    Value::Undefined => return Value::Bool(false),
                    _ => return Value::Error,
                };
                Value::Bool(items.iter().any(|i| {
                    if *ignore_case {
                        i.len() == x.len() && i.eq_ignore_ascii_case(x)
                    } else {
                        i.as_str() == x.as_str()
                    }
                }))
            }
            ConstSet::Values { items, identical } => {
                if !identical && x.is_undefined() {
                    return Value::Undefined;
                }
                if matches!(x, Value::List(_) | Value::Ad(_)) || (!identical && x.is_error()) {
                    return Value::Error;
                }
                let op = if *identical { Cmp::Is } else { Cmp::Eq };
                let found = items
                    .iter()
                    .any(|item| matches!(ops::compare(op, item, x), Value::Bool(true)));
                Value::Bool(found)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_lists_read_undefined_as_empty() {
        let set = ConstSet::Strings {
            items: vec![Str::new("a"), Str::new("B")],
            ignore_case: false,
            list_undefined: false,
        };
        assert!(matches!(set.contains(&Value::str("a")), Value::Bool(true)));
        assert!(matches!(set.contains(&Value::str("b")), Value::Bool(false)));
        assert!(matches!(
            set.contains(&Value::Undefined),
            Value::Bool(false)
        ));
        assert!(set.contains(&Value::Int(1)).is_error());
        let set = ConstSet::Strings {
            items: vec![Str::new("a"), Str::new("B")],
            ignore_case: true,
            list_undefined: false,
        };
        assert!(matches!(set.contains(&Value::str("b")), Value::Bool(true)));
    }

    #[test]
    fn an_undefined_list_keeps_an_undefined_value_undefined() {
        // `stringListMember(x, undefined)`: undefined for an undefined `x` (both
        // undefined), false for a string (the list is empty), error otherwise.
        for ignore_case in [false, true] {
            let set = ConstSet::Strings {
                items: vec![],
                ignore_case,
                list_undefined: true,
            };
            assert!(set.contains(&Value::Undefined).is_undefined());
            assert!(matches!(set.contains(&Value::str("")), Value::Bool(false)));
            assert!(matches!(set.contains(&Value::str("a")), Value::Bool(false)));
            assert!(set.contains(&Value::Int(1)).is_error());
            assert!(set.contains(&Value::Error).is_error());
        }
    }

    #[test]
    fn value_lists_compare_as_their_operator() {
        let set = ConstSet::Values {
            items: vec![Value::Int(1), Value::str("x")],
            identical: false,
        };
        assert!(matches!(set.contains(&Value::Real(1.0)), Value::Bool(true)));
        assert!(matches!(set.contains(&Value::str("X")), Value::Bool(true)));
        assert!(set.contains(&Value::Undefined).is_undefined());
        assert!(set.contains(&Value::Error).is_error());
        let set = ConstSet::Values {
            items: vec![Value::Int(1), Value::Undefined],
            identical: true,
        };
        assert!(matches!(
            set.contains(&Value::Real(1.0)),
            Value::Bool(false)
        ));
        assert!(matches!(set.contains(&Value::Undefined), Value::Bool(true)));
    }
}
