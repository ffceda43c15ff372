//! How HTCondor's print mask lays a value into its column, for the table views
//! of `classad query` (`AttrListPrintMask::display` and `appendFieldofChar` in
//! `src/condor_utils/ad_printmask.cpp`): a column has a width, is aligned left or
//! right, and cuts what is wider unless it may not; a column with no value shows
//! its `OR` text; a column as wide as its values (`WIDTH AUTO`) widens to what
//! rendering measures of them (`calc_column_width`).

use crate::syntax::unparse::fmt_real_new;
use classad_vm::Value;

/// The layout of one column.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// The width (0: the text as it is).
    pub width: usize,
    /// Aligned left (`WIDTH -N`), else right.
    pub left: bool,
    /// Wider text is cut to the width (`WIDTH N` without `AUTO` or `FIT`).
    pub truncate: bool,
}

impl Column {
    /// A column `width` wide, aligned left (`left`) or right, cutting wider
    /// text (`truncate`) or not: HTCondor's print-mask `WIDTH` options.
    pub const fn new(width: usize, left: bool, truncate: bool) -> Column {
        Column {
            width,
            left,
            truncate,
        }
    }

    /// `text` laid into the column.
    pub fn lay(&self, text: &str) -> String {
        if self.width == 0 {
            return text.to_string();
        }
        if text.len() > self.width {
            if self.truncate {
                let mut end = self.width;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                return text[..end].to_string();
            }
            return text.to_string();
        }
        let fill = " ".repeat(self.width - text.len());
        if self.left {
            format!("{text}{fill}")
        } else {
            format!("{fill}{text}")
        }
    }

    /// The heading over the column: left-aligned in its width, never cut
    /// (`display_Headings`, `%-*s`).
    pub fn heading(&self, heading: &str) -> String {
        format!("{heading:<width$}", width = self.width)
    }
}

/// What a column shows for a missing value under `OR ??` (`appendFieldofChar`
/// with `AltWide`): `[???]` as wide as the column, a lone `?` below 3.
pub fn unknown(width: usize) -> String {
    match width {
        0 => String::new(),
        1 | 2 => "?".to_string(),
        w => format!("[{}]", "?".repeat(w - 2)),
    }
}

/// How wide rendering measures a `%v` value (`calc_column_width`): a string by
/// its length, an integer by its digits, a real by its new-syntax text
/// (`2.500000000000000E+00`, though it prints as `2.5`); other values not at
/// all, so they widen the column only as they print.
pub fn measured_width(v: &Value) -> Option<usize> {
    match v {
        Value::Str(s) => Some(s.as_str().len()),
        Value::Int(i) => Some(i.to_string().len()),
        Value::Real(r) => Some(fmt_real_new(*r).len()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_aligned_cut_or_left_whole() {
        let left = Column {
            width: 5,
            left: true,
            truncate: true,
        };
        assert_eq!(left.lay("ab"), "ab   ");
        assert_eq!(left.lay("abcdefg"), "abcde");
        let right = Column {
            width: 5,
            left: false,
            truncate: false,
        };
        assert_eq!(right.lay("ab"), "   ab");
        assert_eq!(right.lay("abcdefg"), "abcdefg");
        assert_eq!(right.heading("ID"), "ID   ");
        let none = Column {
            width: 0,
            left: false,
            truncate: true,
        };
        assert_eq!(none.lay("whatever"), "whatever");
    }

    #[test]
    fn unknown_values_fill_the_column() {
        assert_eq!(unknown(6), "[????]");
        assert_eq!(unknown(2), "?");
        assert_eq!(unknown(0), "");
    }
}
