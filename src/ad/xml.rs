//! ClassAds as XML, the form `condor_q -xml` and `condor_status -xml` print: what
//! HTCondor's `xmlSink.cpp` writes and its `xmlSource.cpp`/`xmlLexer.cpp` read.
//!
//! ```text
//! <?xml version="1.0"?>
//! <!DOCTYPE classads SYSTEM "classads.dtd">
//! <classads>
//! <c>
//!     <a n="Owner"><s>alice</s></a>
//!     <a n="Requirements"><e>TARGET.Memory &gt;= 1024</e></a>
//! </c>
//! </classads>
//! ```
//!
//! An ad is `<c>`, each attribute `<a n="Name">` holding one value: `<i>` an
//! integer, `<r>` a real, `<s>` a string, `<b v="t"/>` or `<b v="f"/>` a boolean,
//! `<un/>` undefined, `<er/>` error, `<at>`/`<rt>` an absolute/relative time,
//! `<l>` a list of values, `<c>` a nested ad, and `<e>` any other expression as
//! its new-syntax text. Texts escape `&`, `<` and `>` as entities, and strings and
//! names also carry the new syntax's backslash escapes.
//!
//! The XML is read with `quick-xml`'s event reader; what the elements mean is read
//! as HTCondor reads it, except where HTCondor drops input without a word (text
//! after a number or an expression, unknown elements, everything after an empty
//! ad), misreads it (`<b v="true"/>` as false) or hangs: those are errors here,
//! each naming the file, line and column (`tests/conformance/xml.jsonl` has
//! HTCondor's reading of each case, `deviations.jsonl` the differences).

mod read;
mod text;
mod write;

pub(super) use read::check_xml_prefix;
pub use read::parse_xml_ads;
pub use write::{unparse_ad_xml, unparse_attrs_xml, write_ads_xml, FOOTER, HEADER};

/// The deepest nesting of lists and nested ads (`<l>`, `<c>`) an attribute's value
/// may have: the parser's [`crate::syntax::parser::MAX_NESTING`], 165 (HTCondor's
/// new-syntax parser, and ours, hold no more), so an ad read from XML always
/// prints in new syntax as text that reads back.
pub const MAX_NESTING: u32 = crate::syntax::parser::MAX_NESTING;
