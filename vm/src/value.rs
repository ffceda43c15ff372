//! ClassAd run-time values: what an evaluation produces and what registers hold.

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable, cheaply cloned string value.
///
/// The representation is hidden so that it can become a thin pointer without changing
/// the API.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Str(Arc<str>);

impl Str {
    /// Makes a string value from anything that converts into an `Arc<str>`.
    pub fn new(s: impl Into<Arc<str>>) -> Str {
        Str(s.into())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when both are the same shared string (not merely equal text).
    pub fn ptr_eq(&self, other: &Str) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

// `Str`'s hash and equality are its text's, so maps keyed by `Str` can be
// searched with a `&str`.
impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        Str(s.into())
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        Str(s.into())
    }
}

/// An absolute time: seconds since the Unix epoch plus the time-zone offset (seconds
/// east of UTC) it is shown in, as HTCondor's `abstime_t` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AbsTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Offset of the time zone it is written in, seconds east of UTC.
    pub offset: i32,
}

/// A compound value owned by the front end: a list or a nested ad together with the
/// scope its elements are evaluated in.
///
/// The machine never looks inside; it only carries and clones these. The host
/// recovers its own type with [`Host::downcast`].
#[derive(Clone)]
pub struct Host(Arc<dyn Any + Send + Sync>);

impl Host {
    /// Wraps a front-end object.
    pub fn new<T: Any + Send + Sync>(obj: T) -> Host {
        Host(Arc::new(obj))
    }

    /// The front-end object, if it is a `T`.
    pub fn downcast<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }

    /// The address of the object: the same for every handle of it, and no
    /// other object's while it lives.
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }

    /// True when both handles point at the same object.
    pub fn ptr_eq(&self, other: &Host) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<host object>")
    }
}

/// A ClassAd value.
///
/// Integers are 64-bit with two's-complement wrap-around, reals are IEEE doubles, and
/// strings compare case-insensitively under `==` but case-sensitively under `=?=`, as
/// in HTCondor.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// The value of a missing attribute or an unknowable result.
    #[default]
    Undefined,
    /// The result of a type error or an impossible operation.
    Error,
    /// `true` or `false`.
    Bool(bool),
    /// A 64-bit signed integer.
    Int(i64),
    /// A double-precision real.
    Real(f64),
    /// A string.
    Str(Str),
    /// An absolute time.
    AbsTime(AbsTime),
    /// A relative time (a duration), in seconds.
    RelTime(f64),
    /// A list; the front end owns its representation.
    List(Host),
    /// A nested ClassAd (record); the front end owns its representation.
    Ad(Host),
}

impl Value {
    /// Makes a string value.
    pub fn str(s: impl Into<Str>) -> Value {
        Value::Str(s.into())
    }

    /// True for `Undefined`.
    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    /// True for `Error`.
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }

    /// True for integers and reals (not booleans).
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Real(_))
    }

    /// The value as a number, with booleans as 0 and 1: HTCondor's promotion for
    /// arithmetic and ordinary comparisons.
    pub fn as_f64_promoted(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            Value::Bool(b) => Some(b as i64 as f64),
            _ => None,
        }
    }

    /// True for a value that is all it says: undefined, error, a boolean, a
    /// number or a string (not a list, a record or a time).
    pub fn is_scalar(&self) -> bool {
        matches!(
            self,
            Value::Undefined
                | Value::Error
                | Value::Bool(_)
                | Value::Int(_)
                | Value::Real(_)
                | Value::Str(_)
        )
    }

    /// HTCondor's "boolean equivalent": booleans, and numbers compared with zero.
    /// `None` for every other type (strings, lists, times, undefined, error).
    pub fn as_bool_equiv(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            Value::Int(i) => Some(i != 0),
            Value::Real(r) => Some(r != 0.0),
            _ => None,
        }
    }

    /// The name HTCondor's type tests use for this value's type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined => "undefined",
            Value::Error => "error",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Real(_) => "real",
            Value::Str(_) => "string",
            Value::AbsTime(_) => "absolute time",
            Value::RelTime(_) => "relative time",
            Value::List(_) => "list",
            Value::Ad(_) => "classad",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_and_truth() {
        assert_eq!(Value::Bool(true).as_f64_promoted(), Some(1.0));
        assert_eq!(Value::Int(0).as_bool_equiv(), Some(false));
        assert_eq!(Value::Real(0.5).as_bool_equiv(), Some(true));
        assert_eq!(Value::str("true").as_bool_equiv(), None);
        assert_eq!(Value::Undefined.as_bool_equiv(), None);
    }

    #[test]
    fn host_objects_downcast_to_their_own_type_only() {
        let h = Host::new(42u32);
        assert_eq!(h.downcast::<u32>(), Some(&42));
        assert!(h.downcast::<i64>().is_none());
        assert!(h.ptr_eq(&h.clone()));
    }

    #[test]
    fn value_stays_small() {
        // A register is a tag plus a 16-byte payload today (fat `Arc`s for strings and
        // compounds); the VM issue narrows it to 16 bytes. Guard against growth.
        assert!(std::mem::size_of::<Value>() <= 24);
    }

    #[test]
    fn scalars_are_all_they_say() {
        for v in [
            Value::Undefined,
            Value::Error,
            Value::Bool(false),
            Value::Int(1),
            Value::Real(-0.0),
            Value::str("x"),
        ] {
            assert!(v.is_scalar(), "{v:?}");
        }
        let list = Value::List(Host::new(0u8));
        let time = Value::AbsTime(AbsTime { secs: 0, offset: 0 });
        for v in [list, time, Value::RelTime(1.0)] {
            assert!(!v.is_scalar(), "{v:?}");
        }
    }
}
