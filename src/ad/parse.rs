//! New-syntax ads from text: the parser's records ([`crate::syntax::Parser`])
//! made into [`ClassAd`]s.

use super::ClassAd;
use crate::syntax::parser::{parse_record, PResult};
use crate::syntax::{ParseError, Parser};

/// Parses exactly one new-syntax `[ ... ]` ad; its attributes become the ad's.
pub fn parse_classad(src: &str) -> Result<ClassAd, ParseError> {
    let mut ad = ClassAd::new();
    parse_record(src, |name, e| ad.insert_expr(name, e))?;
    Ok(ad)
}

/// Reading ads with a [`Parser`].
pub trait ParseAds {
    /// Parses the next `[ ... ]` ad; `Ok(None)` when only white space and
    /// comments remain. Afterwards [`Parser::offset`] is just past the closing `]`.
    fn next_classad(&mut self) -> PResult<Option<ClassAd>>;

    /// Parses a whole input of the form `{ [ ... ], [ ... ] }`: ads inside a
    /// list, as HTCondor writes several new-syntax ads to one stream.
    fn classad_list(&mut self) -> PResult<Vec<ClassAd>>;
}

impl ParseAds for Parser<'_> {
    fn next_classad(&mut self) -> PResult<Option<ClassAd>> {
        let mut ad = ClassAd::new();
        let found = self.next_record(|name, e| ad.insert_expr(name, e))?;
        Ok(found.then_some(ad))
    }

    fn classad_list(&mut self) -> PResult<Vec<ClassAd>> {
        let ads = std::cell::RefCell::new(Vec::new());
        self.record_list(
            || ads.borrow_mut().push(ClassAd::new()),
            |name, e| {
                if let Some(ad) = ads.borrow_mut().last_mut() {
                    ad.insert_expr(name, e);
                }
            },
        )?;
        Ok(ads.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::print::unparse_ad;

    #[test]
    fn classads() {
        let ad = parse_classad("[A=1; a=2; 'b c' = x; ]").unwrap();
        assert_eq!(unparse_ad(&ad), "[ A = 2; 'b c' = x ]");
        assert!(parse_classad("[ true = 1 ]").is_err());
        assert!(parse_classad("[a=1] x").is_err());
        assert!(parse_classad("1").is_err());
    }

    #[test]
    fn several_ads_from_one_string() {
        let src = "[a=1] /* c */ [b=2]\n[c=3]  ";
        let mut p = Parser::new(src);
        let first = p.next_classad().unwrap().unwrap();
        assert_eq!(unparse_ad(&first), "[ a = 1 ]");
        assert_eq!(p.offset(), 5);
        let second = p.next_classad().unwrap().unwrap();
        assert_eq!(unparse_ad(&second), "[ b = 2 ]");
        assert_eq!(&src[..p.offset()], "[a=1] /* c */ [b=2]");
        assert!(p.next_classad().unwrap().is_some());
        assert!(p.next_classad().unwrap().is_none());
        assert!(p.next_classad().unwrap().is_none());
        let mut bad = Parser::new("[a=1] [b=]");
        assert!(bad.next_classad().unwrap().is_some());
        assert!(bad.next_classad().is_err());
    }

    #[test]
    fn a_list_of_ads_keeps_empty_ones_in_place() {
        let mut p = Parser::new("{ [a=1], [], [b=2] }");
        let ads = p.classad_list().unwrap();
        let text: Vec<String> = ads.iter().map(unparse_ad).collect();
        assert_eq!(text, ["[ a = 1 ]", "[  ]", "[ b = 2 ]"]);
        assert!(Parser::new("{ [a=1], 3 }").classad_list().is_err());
    }
}
