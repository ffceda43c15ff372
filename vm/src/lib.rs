//! `classad-vm`: the ClassAd machine. It holds the value type that registers carry; it
//! knows nothing of ClassAd syntax.

pub mod value;

pub use value::{AbsTime, Host, Str, Value};
