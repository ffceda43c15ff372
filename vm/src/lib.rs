//! `classad-vm`: the ClassAd machine. Values and HTCondor's operator semantics on
//! them, a register bytecode (`instr`, `program`), ads compiled to slot-indexed
//! attributes (`ad`, `slots`), and the dispatch loop (`machine`); for matchers, one
//! program against a block of ads: as bit masks over typed columns (`verdicts`,
//! `columns`, `logic`), or as values (`lanes`). It knows nothing of
//! ClassAd syntax: the front end compiles to it and supplies builtins through
//! [`machine::Host`].

pub mod ad;
mod call_memo;
mod closed;
pub mod columns;
pub mod inline;
pub mod instr;
pub mod interner;
pub mod lanes;
pub mod limits;
pub mod logic;
pub mod machine;
pub mod ops;
pub mod program;
pub mod sets;
pub mod slots;
pub mod value;
pub mod verdicts;

pub use ad::{Attr, CompiledAd};
pub use columns::{ColumnStore, TargetBlock};
pub use inline::Placement;
pub use instr::{Instr, Op};
pub use logic::{Logic, Verdicts};
pub use machine::{Halt, Host, Machine, Sides};
pub use program::{Program, TargetOnly};
pub use sets::ConstSet;
pub use slots::SlotTable;
pub use value::{AbsTime, Host as HostObject, Str, Value};
