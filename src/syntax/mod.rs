//! ClassAd syntax: the expression tree, lexer, parser and unparsers.

pub mod ast;
