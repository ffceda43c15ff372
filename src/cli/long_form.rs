//! Whole ads as `condor_status -long` (and `-json`, `-long:new`) prints them.
//!
//! HTCondor's tools print the attributes of an ad sorted by name, ignoring case
//! (`sGetAdAttrs` fills a `classad::References`, a case-insensitive set, in
//! `src/condor_utils/compat_classad.cpp`), leave out the private attributes that
//! hold claim ids and keys (`ClassAdAttributeIsPrivateAny`), and keep only the
//! names given with `-attributes`. Each form frames the ads as `condor_status`'s
//! `printVerbose`, `printJSON` and `printNewClassad` do
//! (`src/condor_status.V6/prettyPrint.cpp`): a blank line after every ad in long
//! form; `[`, `,` and `]` (or `{`, `,` and `}`) on lines of their own around and
//! between the ads otherwise, and nothing at all when no ad is printed.

use crate::ad::json::unparse_attrs_json;
use crate::ad::xml;
use crate::ad::ClassAd;
use crate::syntax::ast::ExprView;
use crate::syntax::unparse::{unparse_attrs, unparse_old_node, write_attr_name};
use classad_vm::Str;
use std::cmp::Ordering;
use std::io::Write;

/// Which form whole ads are printed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongForm {
    /// `Name = expr` lines in old syntax, a blank line after each ad (`-long`).
    Long,
    /// One-line new-syntax ads in a `{ ... }` list (`-long:new`).
    New,
    /// A JSON array of objects (`-json`).
    Json,
    /// XML ads between HTCondor's header and footer (`-long:xml`, `-xml`).
    Xml,
}

/// The attributes HTCondor's tools never print: they hold claim ids and keys
/// (`ClassAdPrivateAttrs`, and every name starting `_condor_priv`).
fn is_private(name: &str) -> bool {
    const PRIVATE: [&str; 6] = [
        "Capability",
        "ChildClaimIds",
        "ClaimId",
        "ClaimIdList",
        "ClaimIds",
        "TransferKey",
    ];
    PRIVATE.iter().any(|p| p.eq_ignore_ascii_case(name))
        || name
            .get(..12)
            .is_some_and(|p| p.eq_ignore_ascii_case("_condor_priv"))
}

/// `strcasecmp` order, which HTCondor's sets of attribute names use.
fn case_insensitive(a: &str, b: &str) -> Ordering {
    let lower = |s: &str| {
        s.bytes()
            .map(|c| c.to_ascii_lowercase())
            .collect::<Vec<_>>()
    };
    lower(a).cmp(&lower(b))
}

/// Prints ads one after another in one form, then closes the list.
pub struct LongWriter {
    form: LongForm,
    /// Only these names (ignoring case), when given (`-attributes`).
    only: Option<Vec<String>>,
    /// Ads printed so far.
    printed: usize,
}

impl LongWriter {
    /// A writer of `form`, keeping only the attributes `only` names when given.
    pub fn new(form: LongForm, only: Option<Vec<String>>) -> LongWriter {
        LongWriter {
            form,
            only,
            printed: 0,
        }
    }

    /// The attributes of `ad` to print, in printing order.
    fn attributes<'a>(&self, ad: &'a ClassAd) -> Vec<(&'a Str, ExprView<'a>)> {
        let mut attrs: Vec<_> = ad
            .iter()
            .filter(|(name, _)| !is_private(name))
            .filter(|(name, _)| {
                self.only
                    .as_ref()
                    .is_none_or(|only| only.iter().any(|o| o.eq_ignore_ascii_case(name)))
            })
            .collect();
        attrs.sort_by(|a, b| case_insensitive(a.0, b.0));
        attrs
    }

    /// Prints one ad.
    pub fn write_ad(&mut self, ad: &ClassAd, out: &mut dyn Write) -> std::io::Result<()> {
        let attrs = self.attributes(ad);
        let mut text = String::new();
        match self.form {
            LongForm::Long => {
                for (name, e) in &attrs {
                    write_attr_name(name, true, &mut text);
                    text.push_str(" = ");
                    unparse_old_node(e.tree, e.id, &mut text);
                    text.push('\n');
                }
                text.push('\n');
            }
            LongForm::Xml => {
                if self.printed == 0 {
                    text.push_str(xml::HEADER);
                }
                text.push_str(&xml::unparse_attrs_xml(
                    attrs.iter().map(|(n, e)| (n.as_str(), *e)),
                ));
            }
            LongForm::New | LongForm::Json => {
                let first = self.printed == 0;
                text.push_str(match (self.form, first) {
                    (LongForm::Json, true) => "[\n",
                    (LongForm::New, true) => "{\n",
                    _ => ",\n",
                });
                let items = attrs.iter().map(|(n, e)| (n.as_str(), *e));
                if self.form == LongForm::Json {
                    text.push_str(&unparse_attrs_json(items));
                } else {
                    text.push_str(&unparse_attrs(items));
                }
                text.push('\n');
            }
        }
        self.printed += 1;
        out.write_all(text.as_bytes())
    }

    /// Closes the list of ads, if any ad was printed.
    pub fn finish(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        match self.form {
            LongForm::Json if self.printed > 0 => out.write_all(b"]\n"),
            LongForm::New if self.printed > 0 => out.write_all(b"}\n"),
            // As `condor_q -xml`: the header and footer even around no ad.
            LongForm::Xml if self.printed == 0 => {
                out.write_all(format!("{}{}", xml::HEADER, xml::FOOTER).as_bytes())
            }
            LongForm::Xml => out.write_all(xml::FOOTER.as_bytes()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::parse_classad;

    fn print(form: LongForm, only: Option<&[&str]>, ads: &[&str]) -> String {
        let mut w = LongWriter::new(
            form,
            only.map(|o| o.iter().map(|s| s.to_string()).collect()),
        );
        let mut out = Vec::new();
        for a in ads {
            w.write_ad(&parse_classad(a).unwrap(), &mut out).unwrap();
        }
        w.finish(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn long_form_sorts_ignoring_case_and_hides_private_attributes() {
        let ad = "[ zeta = 1; Alpha = 2.5; b = \"x\"; ClaimId = \"secret\"; _condor_privKey = 1 ]";
        assert_eq!(
            print(LongForm::Long, None, &[ad, "[ A = 1 ]"]),
            "Alpha = 2.5\nb = \"x\"\nzeta = 1\n\nA = 1\n\n"
        );
        assert_eq!(
            print(LongForm::Long, Some(&["ZETA", "b", "nope"]), &[ad]),
            "b = \"x\"\nzeta = 1\n\n"
        );
    }

    #[test]
    fn new_and_json_frame_the_ads() {
        let ads = ["[ B = 1; a = 2 ]", "[ C = 3 ]"];
        assert_eq!(
            print(LongForm::New, None, &ads),
            "{\n[ a = 2; B = 1 ]\n,\n[ C = 3 ]\n}\n"
        );
        assert_eq!(
            print(LongForm::Json, None, &ads),
            "[\n{\n  \"a\": 2,\n  \"B\": 1\n}\n,\n{\n  \"C\": 3\n}\n]\n"
        );
        assert_eq!(print(LongForm::Json, None, &[]), "");
        assert_eq!(
            print(LongForm::Xml, Some(&["b", "a"]), &ads),
            format!(
                "{}<c>\n    <a n=\"a\"><i>2</i></a>\n    <a n=\"B\"><i>1</i></a>\n</c>\n<c>\n</c>\n{}",
                xml::HEADER,
                xml::FOOTER
            )
        );
        assert_eq!(
            print(LongForm::Xml, None, &[]),
            format!("{}{}", xml::HEADER, xml::FOOTER)
        );
        assert_eq!(print(LongForm::New, None, &[]), "");
    }
}
