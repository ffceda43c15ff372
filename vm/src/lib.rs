//! `classad-vm`: the ClassAd machine. It holds the value type that registers carry and
//! HTCondor's operator semantics on those values; it knows nothing of ClassAd syntax.

pub mod ops;
pub mod value;

pub use value::{AbsTime, Host, Str, Value};
