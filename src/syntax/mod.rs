//! ClassAd syntax: the expression tree, lexer, parser and unparsers.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod same;
pub mod time;
pub mod unparse;

pub use parser::{
    parse_classad, parse_expr, parse_expr_old, parse_expr_old_into, ParseError, Parser,
};
pub use unparse::{
    fmt_abstime, fmt_real_exact, fmt_real_new, fmt_real_old, fmt_reltime, quote_string_new,
    quote_string_old, unparse, unparse_ad, unparse_ad_exact, unparse_ad_old, unparse_ad_old_exact,
    unparse_ad_pretty, unparse_node, unparse_old, unparse_old_node, write_scalar_value,
};
