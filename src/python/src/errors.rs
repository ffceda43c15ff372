//! The exception types: classad2's own `ClassAdException`, and helpers raising
//! each exception with the message classad2 gives for the same failure; for text
//! that does not parse, followed by where and why it failed (classad2 says
//! neither), with the place also as the exception's `line` and `column`.

use classad::syntax::ParseError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
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

/// Where a text failed to parse: the 1-based line and column (in characters)
/// in the text the caller gave, and what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub line: u32,
    pub column: u32,
    pub reason: String,
}

impl Failure {
    /// A failure at byte `offset` of `text`.
    pub fn at(text: &str, offset: usize, reason: impl Into<String>) -> Failure {
        let e = ParseError::at(text, offset, reason.into());
        Failure {
            line: e.line,
            column: e.column,
            reason: e.message,
        }
    }

    /// A failure at `line` and `column` of a part of `text` that starts at
    /// byte `start`, placed in the whole of `text`.
    pub fn within(text: &str, start: usize, line: u32, column: u32, reason: String) -> Failure {
        let base = ParseError::at(text, start, String::new());
        Failure {
            line: base.line + line.saturating_sub(1),
            column: if line <= 1 {
                base.column + column.saturating_sub(1)
            } else {
                column
            },
            reason,
        }
    }

    /// classad2's exception `err` with this failure: its message goes on after
    /// classad2's sentence with ` At line L, column C: reason` (so that a
    /// message classad2's callers test for still starts the same), and the
    /// exception carries `line` and `column`.
    fn raise(self, err: PyErr) -> PyErr {
        Python::attach(|py| {
            let message = format!(
                "{} At line {}, column {}: {}",
                err.value(py),
                self.line,
                self.column,
                self.reason
            );
            let err = PyErr::from_type(err.get_type(py), message);
            let value = err.value(py);
            // An attribute that cannot be set leaves the message, which says
            // the same.
            let _ = value.setattr("line", self.line);
            let _ = value.setattr("column", self.column);
            err
        })
    }
}

/// What classad2 raises for a string that is not a ClassAd, with where it
/// fails.
pub fn parse_failed_at(failure: Failure) -> PyErr {
    failure.raise(parse_failed())
}

/// What classad2 raises for a stream that holds no well-formed ad where one
/// starts, with where it fails.
pub fn stream_failed_at(failure: Failure) -> PyErr {
    failure.raise(stream_failed())
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
