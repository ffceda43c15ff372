//! `classad query -sort EXPR`: the order `condor_status -sort` prints ads in.
//!
//! `condor_status` turns each ad into one key (`ClassadSortSpecs::RenderKey` in
//! `src/condor_status.V6/status.cpp`): for every `-sort` expression in order, its
//! value in the ad as text followed by a newline, then the ad's ordinal as
//! `%08X`; and it keeps the ads in a map ordered by HTCondor's `natural_cmp` of
//! those keys (`ROD_MAP_BY_KEY`, with `naturalSort` on by default). So:
//!
//! - integers and booleans print as `%lld` and compare as numbers, digit run
//!   against digit run (`slot2` before `slot10`);
//! - a real prints as the integer of its bits (`%lld` of the double's bytes), so
//!   positive reals sort by value, and a negative real (a negative integer's
//!   text starts with `-`) sorts as its text does;
//! - a string is itself; every other value is its new-syntax text: `undefined`
//!   sorts as that word among the strings, after the numbers; a value the
//!   evaluation cannot give at all (too deep) is an empty field, first;
//! - ties keep the order the ads were read in.

use crate::ad::ClassAd;
use crate::eval::{eval_in, Semantics};
use crate::functions::version::natural_cmp;
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use crate::values::display::unparse_value;
use classad_vm::Value;
use std::cmp::Ordering;
use std::sync::Arc;

/// The `-sort` expressions of a command line, in order.
#[derive(Debug, Default)]
pub struct SortKeys {
    exprs: Vec<ExprRef>,
}

impl SortKeys {
    /// No keys: the ads keep the order they are read in.
    pub fn new() -> SortKeys {
        SortKeys::default()
    }

    /// Whether any `-sort` expression was given.
    pub fn is_empty(&self) -> bool {
        self.exprs.is_empty()
    }

    /// Adds the expression of `-sort ARG`; `option` is the option as written.
    /// `false`, `0`, `no` and `none` (any case) add nothing: to `condor_status`
    /// they turn off its default order, which `classad query` does not have.
    pub fn add(&mut self, option: &str, arg: &str) -> Result<(), String> {
        if ["false", "0", "no", "none"]
            .iter()
            .any(|off| arg.eq_ignore_ascii_case(off))
        {
            return Ok(());
        }
        let expr = parse_expr(arg).map_err(|e| {
            format!(
                "{option} `{arg}`: not an attribute name or a ClassAd expression: {e} (quote \
                 the expression as one argument)"
            )
        })?;
        self.exprs.push(ExprRef::root_of(Arc::new(expr)));
        Ok(())
    }

    /// The key of `ad`, the `ordinal`-th ad selected (`RenderKey`).
    pub fn key(&self, ad: &Arc<ClassAd>, ordinal: u32) -> String {
        let mut key = String::new();
        for expr in &self.exprs {
            if let Ok(v) = eval_in(expr, ad, None, Semantics::Htcondor) {
                match v {
                    // The bits of the double, as a long long.
                    Value::Real(r) => key.push_str(&(r.to_bits() as i64).to_string()),
                    Value::Int(i) => key.push_str(&i.to_string()),
                    Value::Bool(b) => key.push_str(if b { "1" } else { "0" }),
                    Value::Str(s) => key.push_str(s.as_str()),
                    other => key.push_str(&unparse_value(&other)),
                }
            }
            key.push('\n');
        }
        key.push_str(&format!("{ordinal:08X}"));
        key
    }
}

/// The order of two keys (`natural_cmp`).
pub fn compare(a: &str, b: &str) -> Ordering {
    natural_cmp(a, b).cmp(&0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn sorted(keys: &[&str], ads: &[&str]) -> Vec<usize> {
        let mut s = SortKeys::new();
        for k in keys {
            s.add("-sort", k).unwrap();
        }
        let mut rows: Vec<(String, usize)> = ads
            .iter()
            .enumerate()
            .map(|(i, src)| {
                let ad = Arc::new(parse_classad(src).unwrap());
                (s.key(&ad, i as u32), i)
            })
            .collect();
        rows.sort_by(|a, b| compare(&a.0, &b.0));
        rows.into_iter().map(|(_, i)| i).collect()
    }

    // `ClassadSortSpecs::RenderKey` and the `natural_cmp` order of
    // `ROD_MAP_BY_KEY` (HTCondor's status.cpp).
    #[test]
    fn keys_sort_naturally_with_undefined_after_numbers() {
        let ads = [
            "[ Name = \"slot10\"; Cpus = 2 ]",
            "[ Name = \"slot2\"; Cpus = 10 ]",
            "[ Name = \"slot1\" ]",
            "[ Name = \"slot3\"; Cpus = 2 ]",
        ];
        assert_eq!(sorted(&["Name"], &ads), [2, 1, 3, 0]);
        // Numbers by value, undefined after them; ties in reading order.
        assert_eq!(sorted(&["Cpus"], &ads), [0, 3, 1, 2]);
        // A second key orders the ties of the first.
        assert_eq!(sorted(&["Cpus", "Name"], &ads), [3, 0, 1, 2]);
        assert_eq!(sorted(&["-Cpus"], &ads)[3], 2);
    }

    #[test]
    fn reals_sort_by_their_bits() {
        let ads = ["[ L = 1.5 ]", "[ L = 0.25 ]", "[ L = 10.0 ]", "[ L = 2 ]"];
        // Positive reals by value; the integer 2 prints as `2`, far below the
        // bits of any real.
        assert_eq!(sorted(&["L"], &ads), [3, 1, 0, 2]);
    }

    #[test]
    fn keys_hold_each_value_then_the_ordinal() {
        let mut s = SortKeys::new();
        s.add("-sort", "Name").unwrap();
        s.add("-sort", "Missing").unwrap();
        s.add("-sort", "B").unwrap();
        let ad = Arc::new(parse_classad("[ Name = \"a\"; B = true ]").unwrap());
        assert_eq!(s.key(&ad, 26), "a\nundefined\n1\n0000001A");
        s.add("-sort", "none").unwrap();
        assert_eq!(s.exprs.len(), 3);
        let e = s.add("-sort", "Name +").unwrap_err();
        assert!(
            e.starts_with("-sort `Name +`: not an attribute name"),
            "{e}"
        );
    }
}
