//! The exception types: classad2's own `ClassAdException`, and helpers raising
//! each exception with the message classad2 gives for the same failure.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::PyErr;

create_exception!(
    classad_rs,
    ClassAdException,
    PyException,
    "What classad2 raises when a string does not parse, an evaluation fails or a \
     Python value cannot become a ClassAd expression."
);

/// `ClassAdException(message)`.
pub fn classad_error(message: &str) -> PyErr {
    ClassAdException::new_err(message.to_string())
}

/// What classad2 raises for a string that is not a ClassAd.
pub fn parse_failed() -> PyErr {
    classad_error("Unable to parse string into a ClassAd.")
}

/// What classad2 raises when an evaluation fails (too deep, or out of steps).
pub fn eval_failed() -> PyErr {
    classad_error("failed to evaluate expression")
}

/// What classad2 raises for a stream that holds no well-formed ad where one starts.
pub fn stream_failed() -> PyErr {
    PyValueError::new_err("Unable to parse input stream into a ClassAd.")
}

/// `TypeError("ClassAd keys are strings")`.
pub fn key_not_str() -> PyErr {
    PyTypeError::new_err("ClassAd keys are strings")
}
