//! An ad back to text, in each of HTCondor's forms (the expression printers are
//! [`mod@crate::syntax::unparse`]'s).

use super::ClassAd;
use crate::syntax::ast::{Expr, NodeId};
use crate::syntax::unparse::{unparse_long_form, unparse_record, AdStyle};

/// The ad's attributes as the printers take them.
fn items(ad: &ClassAd) -> Vec<(&str, &Expr, NodeId)> {
    ad.iter()
        .map(|(n, r)| (n.as_str(), &**r.tree, r.id))
        .collect()
}

/// One-line new-syntax ad: `[ a = 1; b = 2 ]` (`repr(ClassAd)`).
pub fn unparse_ad(ad: &ClassAd) -> String {
    unparse_record(&items(ad), AdStyle::New)
}

/// One-line new-syntax ad as [`unparse_ad`] prints it, but with every real
/// literal in 17 significant digits (see [`AdStyle::Exact`]).
pub fn unparse_ad_exact(ad: &ClassAd) -> String {
    unparse_record(&items(ad), AdStyle::Exact)
}

/// One-line old-syntax ad, `[ a = 1; b = "x" ]` (see [`AdStyle::InlineOld`]).
pub fn unparse_ad_inline_old(ad: &ClassAd) -> String {
    unparse_record(&items(ad), AdStyle::InlineOld)
}

/// The indented form `str(ClassAd)` prints.
pub fn unparse_ad_pretty(ad: &ClassAd) -> String {
    unparse_record(&items(ad), AdStyle::Pretty)
}

/// Old (long-form) syntax as `printOld` prints it: one `Name = expr` line per
/// attribute, each ending in a newline (an empty ad is a lone newline).
pub fn unparse_ad_old(ad: &ClassAd) -> String {
    unparse_long_form(&items(ad), false)
}

/// Old (long-form) syntax as [`unparse_ad_old`] prints it, but with every real
/// literal in 17 significant digits: text that the old syntax's fast reader
/// reads back to an ad that evaluates as this one does, bit for bit, for
/// shipping ads between processes.
pub fn unparse_ad_old_exact(ad: &ClassAd) -> String {
    unparse_long_form(&items(ad), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;
    use crate::syntax::{fmt_real_exact, fmt_real_new};
    use classad_vm::Value;

    /// Reals whose 16 digits (new syntax) lose bits read back exact from the
    /// exact form, at any depth of an ad; the rest of the text is new syntax's.
    #[test]
    fn exact_reals_read_back_to_the_same_bits() {
        let tricky = [
            0.1 + 0.2,
            1.0 / 3.0,
            -2.0 / 3.0,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            123_456_789.123_456_79,
            (1u64 << 53) as f64 + 2.0,
        ];
        let lossy = tricky
            .iter()
            .filter(|&&f| fmt_real_new(f).parse::<f64>().ok() != Some(f))
            .count();
        assert!(lossy > 0, "some of these need a 17th digit");
        for f in tricky {
            assert_eq!(
                fmt_real_exact(f).parse::<f64>().unwrap().to_bits(),
                f.to_bits()
            );
        }
        assert_eq!(fmt_real_exact(0.1), "1.0000000000000001E-01");
        assert_eq!(fmt_real_exact(-0.0), "-0.0");
        assert_eq!(fmt_real_exact(f64::NAN), "real(\"NaN\")");
        let mut ad = ClassAd::new();
        for (i, f) in tricky.iter().enumerate() {
            ad.insert_expr(
                format!("r{i}").as_str(),
                crate::syntax::ast::Expr::literal(Value::Real(*f)),
            );
        }
        let nested = parse_classad("[ l = { 1, [ x = 2 ] }; s = \"a\"; e = x * 2.5 ]").unwrap();
        for (n, e) in nested.iter() {
            ad.insert(n.as_str(), e.to_expr_ref());
        }
        let text = unparse_ad_exact(&ad);
        let back = std::sync::Arc::new(parse_classad(&text).unwrap());
        for (i, f) in tricky.iter().enumerate() {
            let name = format!("r{i}");
            let v = crate::eval::eval_attr(&back, &name, None, crate::eval::Semantics::Htcondor);
            assert!(
                matches!(v, Ok(Value::Real(r)) if r.to_bits() == f.to_bits()),
                "r{i}: {v:?}"
            );
        }
        assert!(text.contains("e = x * 2.5000000000000000E+00"), "{text}");
        assert_eq!(unparse_ad_exact(&back), text, "stable");
        // The old syntax's exact form reads back alike through the ad reader.
        let old = unparse_ad_old_exact(&ad);
        let read = crate::ad::read_ads(&format!("{old}\n{old}"), "old").unwrap();
        assert_eq!(read.len(), 2);
        let back_old = std::sync::Arc::new(read.into_iter().next().unwrap());
        for (i, f) in tricky.iter().enumerate() {
            let name = format!("r{i}");
            let v =
                crate::eval::eval_attr(&back_old, &name, None, crate::eval::Semantics::Htcondor);
            assert!(
                matches!(v, Ok(Value::Real(r)) if r.to_bits() == f.to_bits()),
                "old r{i}: {v:?}"
            );
        }
        assert_eq!(unparse_ad_exact(&back_old), text, "old and new exact agree");
        // New syntax's 16 digits take f64::MAX past the largest double.
        assert!(
            unparse_ad(&parse_classad(&unparse_ad(&ad)).unwrap()).contains("r5 = real(\"INF\")")
        );
    }

    // `repr`, `str` and `printOld` of this ad, from HTCondor 25.14.1.
    #[test]
    fn ads() {
        let ad = parse_classad(r#"[a=1; b={1,2,[x=1;y={}]}; c=[p=1;q=[r=2]]; dd="x"; e={}; f=[]]"#)
            .unwrap();
        assert_eq!(
            unparse_ad(&ad),
            r#"[ a = 1; b = { 1,2,[ x = 1; y = {  } ] }; c = [ p = 1; q = [ r = 2 ] ]; e = {  }; f = [  ]; dd = "x" ]"#
        );
        assert_eq!(
            unparse_ad_old(&ad),
            "a = 1\nb = { 1,2,[ x = 1; y = {  } ] }\nc = [ p = 1; q = [ r = 2 ] ]\ne = {  }\nf = [  ]\ndd = \"x\"\n"
        );
        assert_eq!(
            unparse_ad_pretty(&ad),
            "\n    [\n        a = 1; \n        b = \n           {\n              1,\n              2,\n              \n                  [\n                      x = 1; \n                      y = \n                         {\n                         }\n                  ]\n           }; \n        c = \n            [\n                p = 1; \n                q = \n                    [\n                        r = 2\n                    ]\n            ]; \n        e = \n           {\n           }; \n        f = \n            [\n            ]; \n        dd = \"x\"\n    ]"
        );
        let empty = parse_classad("[]").unwrap();
        assert_eq!(unparse_ad(&empty), "[  ]");
        assert_eq!(unparse_ad_old(&empty), "\n");
        assert_eq!(unparse_ad_pretty(&empty), "\n    [\n    ]");
        let ad = parse_classad("[a=(1+2)*-x; b=x?y:z; c=f(1,2,{3})]").unwrap();
        assert_eq!(
            unparse_ad_pretty(&ad),
            "\n    [\n        a = (1 + 2) *  -x; \n        b = x ? y : z; \n        c = f(1,2,\n           {\n              3\n           })\n    ]"
        );
    }
}
