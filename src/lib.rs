//! `classad`: HTCondor's ClassAd language, parsed, unparsed, evaluated and matched
//! exactly as HTCondor 25 does.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::eval::display::unparse_value;
//! use classad::eval::{eval_attr, Semantics};
//! use classad::matching::{rank, symmetric_match};
//! use std::sync::Arc;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let jobs = read_ads("Requirements = TARGET.Cpus >= 2\nRank = TARGET.Cpus\n", "jobs")?;
//! let slots = read_ads("[ Cpus = 4; Requirements = true ]", "slots")?;
//! let (job, slot) = (Arc::new(jobs[0].clone()), Arc::new(slots[0].clone()));
//! assert!(symmetric_match(&job, &slot, Semantics::Htcondor));
//! assert_eq!(rank(&job, &slot, Semantics::Htcondor), 4.0);
//! let v = eval_attr(&job, "Rank", Some(&slot), Semantics::Htcondor)?;
//! assert_eq!(unparse_value(&v), "4");
//! # Ok(())
//! # }
//! ```

pub mod ad;
pub mod calendar;
pub mod cli;
pub mod compile;
pub mod eval;
pub mod functions;
pub mod generate;
pub mod limits;
pub mod matching;
pub mod negotiate;
pub(crate) mod prefetch;
pub mod syntax;

pub use classad_vm::Value;
