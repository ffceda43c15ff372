//! ClassAd syntax: the expression tree, lexer, parser and unparsers.

pub mod ast;
pub mod lexer;
pub mod names;
pub mod parser;
pub mod same;
pub mod time;
pub mod unparse;

pub use names::attr_order;
pub use parser::{
    parse_expr, parse_expr_old, parse_expr_old_into, parse_record, ParseError, Parser,
};
pub use unparse::{
    fmt_abstime, fmt_real_exact, fmt_real_new, fmt_real_old, fmt_reltime, quote_string_new,
    quote_string_old, unparse, unparse_node, unparse_old, unparse_old_node, write_scalar_value,
};
