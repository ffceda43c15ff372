//! `classad_rs._native`: the Python extension module of the `classad` crate, a
//! drop-in subset of HTCondor's `classad2` bindings (same names, same behaviour)
//! plus batch calls over whole pools that run on every core with the GIL
//! released.
//!
//! The modules, one concern each: [`errors`] (the exception types),
//! [`semantics`] (HTCondor's daemon semantics or the strict library's),
//! [`convert`] (ClassAd values to Python objects and back), [`expr`]
//! (`ExprTree`), [`ad`] (`ClassAd`), [`parse`] (`parseNext`, `quote`,
//! `unquote`, `version`), [`batch`] (`Pool` and `negotiate`), [`living`]
//! (`LivingPool`: a pool kept between cycles, each cycle working out only
//! what changed), [`shard`] (the cycle over a pool cut into shards, for Dask
//! or Ray, and the pool generator). The Python package `classad_rs` (in
//! `src/python/python`) re-exports them and adds what classad2 writes in
//! Python: the `Value` and `ParserType` enums and the `parseAds`, `parseOne`
//! and `parseNext` drivers; its modules `shard` and `dask` drive the sharded
//! cycle.

pub mod ad;
pub mod batch;
pub mod convert;
pub mod errors;
pub mod expr;
pub mod living;
pub mod parse;
pub mod semantics;
pub mod shard;

use pyo3::prelude::*;

/// The module `classad_rs._native`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ad::PyClassAd>()?;
    m.add_class::<expr::PyExprTree>()?;
    m.add_class::<batch::PyPool>()?;
    m.add_class::<living::PyLivingPool>()?;
    m.add_class::<shard::PyPreparedCycle>()?;
    m.add(
        "ClassAdException",
        m.py().get_type::<errors::ClassAdException>(),
    )?;
    m.add_function(wrap_pyfunction!(parse::parse_next, m)?)?;
    m.add_function(wrap_pyfunction!(parse::parse_from, m)?)?;
    m.add_function(wrap_pyfunction!(parse::parse_all, m)?)?;
    m.add_function(wrap_pyfunction!(parse::quote, m)?)?;
    m.add_function(wrap_pyfunction!(parse::unquote, m)?)?;
    m.add_function(wrap_pyfunction!(parse::version, m)?)?;
    m.add_function(wrap_pyfunction!(parse::last_error, m)?)?;
    m.add_function(wrap_pyfunction!(semantics::set_strict, m)?)?;
    m.add_function(wrap_pyfunction!(semantics::is_strict, m)?)?;
    m.add_function(wrap_pyfunction!(batch::negotiate, m)?)?;
    m.add_function(wrap_pyfunction!(shard::shard_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(shard::merge_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(shard::generate_pool, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_NESTING", classad::syntax::parser::MAX_NESTING)?;
    m.add("MAX_THREADS", classad::limits::MAX_THREADS)?;
    Ok(())
}
