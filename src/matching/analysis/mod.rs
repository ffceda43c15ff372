//! Match analysis, as `condor_q -better-analyze` does it (see the modules).

pub mod steps;
pub mod truth;
