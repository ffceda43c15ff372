//! `classad`: HTCondor's ClassAd language, parsed, unparsed, evaluated and matched
//! exactly as HTCondor 25 does.
//!
//! ```
//! use classad::ad::read_ads;
//! use classad::values::display::unparse_value;
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
//!
//! # Architecture
//!
//! The modules, lowest first: the leaves `src/calendar.rs` (dates and the local
//! time zone), `src/c_number.rs` (C's `strtod`) and `src/limits.rs` (the memory
//! budget and the thread cap), which name no other module;
//! `src/syntax` (lexer, parser, printers of expressions), `src/ad` (ads and ad
//! files, built from the parser's records), `src/values` (the scopes names are
//! looked up in, ads and lists as values, their sizes and text, a failed
//! evaluation), `src/functions` (every builtin, which sees the evaluator only
//! through `functions::Evaluating`), `src/eval` (the reference evaluator: a plain
//! tree walk, the executable specification), `src/compile` (AST to bytecode, per
//! ad), `src/engine` (the choice between the machine and the reference
//! evaluator, above both),
//! `src/matching` (symmetric match, rank, compiled pools, autoclusters, the batch
//! matcher, and `analysis`: `analyze_jobs` and `analyze_slots`, the match
//! analysis of `classad analyze` as a library), `src/negotiate` (the negotiation cycle), `src/generate` (the pool
//! generator, and `generate::shapes`, pools of one expression shape each for
//! measuring and testing the matcher shape by shape), `src/cli` (the `classad` command, with the
//! default `cli` feature that brings clap, indicatif and mimalloc; the Python
//! module and the C ABI build without it); `vm/` is the machine crate:
//! values, HTCondor's operator semantics, the instruction set (one table,
//! `vm/src/instr/table.rs`, from which its code is generated), compiled ads and
//! the dispatch loop. Every reference between modules points down, and
//! `tests/commands/layers.rs` fails on one that does not.
//!
//! # The pipelines
//!
//! Front ends (the command, the Python module, the C ABI, Dask's shards) hold
//! one of two objects and never assemble their parts: a
//! [`negotiate::Pool`] (slots, configuration and priorities, compiled once)
//! negotiates a [`negotiate::Queue`] read or built against it; a
//! [`matching::SlotSet`] (slots compiled once) matches the queue a
//! [`matching::QueueReader`] clusters, from ads in memory or from a file read in
//! parts on every core, holding a job per class.
//!
//! # How the VM stays exact
//!
//! A program is compiled for the ad it belongs to, so names
//! resolve at compile time to a slot of MY or of TARGET, and MY's constant attributes
//! fold away; attribute values are computed lazily, once per evaluation; anything the
//! compiler does not handle natively (nested records, `parent`, `eval()`, ...), and any
//! evaluation that could reach HTCondor's depth or step limits, is handed whole to the
//! reference evaluator, unless the compiler can prove the failure from MY alone: a MY
//! attribute that every evaluation of it must spend more than HTCondor's 10,000,000
//! steps on (`A0 = A1 + A1; ... A30 = 1`) compiles to `Fail`, so a job like that fails
//! against every slot without the work being done per slot. Subexpressions that
//! depend only on the other ad are computed once per ad and cached. MY's small pure attributes are compiled into the expressions that
//! use them (guarded, so a circular reference is still found as a load finds it).
//! `CompiledPool::all_pairs` evaluates one ad's Requirements against a block of up to 64
//! ads of the other side at once, so each instruction is decoded once per block: the
//! block's attributes are read once into typed columns (numbers sorted, strings as
//! identities), registers hold each lane's logical class as bit masks, and a comparison
//! with a constant is a binary search (`vm/src/verdicts.rs`, `vm/src/columns.rs`).
//! Whatever the masks cannot hold exactly goes to the value lanes (`vm/src/lanes.rs`),
//! then to the pair-by-pair machine.
//!
//! # Tests
//!
//! In the repository, beside the crate:
//! `tests/agreement/conformance.rs` (HTCondor's answers, on both engines),
//! `tests/agreement/differential.rs` (a seeded generator of expressions and ad pairs, VM against
//! reference, and compiled pools against brute force; `DIFF_SEED`, `DIFF_CASES` to
//! explore; arguments and operands include values known at compile time, such as
//! undefined, error, empty strings and lists and MY's constant or missing attributes,
//! and a test checks on the compiled programs that every specialised instruction
//! meets them), `tests/commands/cli.rs` (the command-line contract), `tests/engine/no_allocation.rs` (a
//! counting allocator: matching a warm pool allocates nothing),
//! `tests/pipeline/negotiation.rs` (the cycle against a plain serial negotiator that follows
//! the negotiation rules line by line, pair by pair on the reference evaluator, on
//! seeded pools, and a case for each rule), `tests/pipeline/analysis.rs` (every count of
//! the match analysis against brute force), `tests/engine/shape_families.rs` (every
//! shape family's pool matched on both engines, pair for pair), `tests/agreement/fuzz_regressions.rs` (every fuzz
//! finding, replayed); `fuzz/` holds the cargo-fuzz targets (see `fuzz/README.md`),
//! which CI runs for 30 seconds each.
//! `tests/htcondor_diff.py` holds the same generated cases against HTCondor's own
//! library (it needs `pip install htcondor`; see `tests/conformance/README.md`):
//! 1,035,000 cases run with no disagreement left but the deviations
//! `docs/compatibility.md` documents.

pub mod ad;
pub mod c_number;
pub mod calendar;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compile;
pub mod engine;
pub mod eval;
pub mod functions;
pub mod generate;
pub mod limits;
pub mod matching;
pub mod negotiate;
pub(crate) mod prefetch;
pub mod syntax;
#[cfg(test)]
mod test_rng;
pub mod values;

pub use classad_vm::Value;
