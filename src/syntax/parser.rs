//! The ClassAd parser: recursive descent over HTCondor's precedence levels.

use super::ast::{BinOp, Expr, Node, NodeId, UnOp};
use super::lexer::{LexError, Lexer, StrMode, Tok, Token};
use super::names::attr_order;
use super::time;
use classad_vm::{Str, Value};
use std::fmt;

/// Deepest nesting accepted, in HTCondor's units: each expression level (a unary
/// operator, a `? :` or `?:` branch, an argument, an element) costs 1 and each bracket
/// (`( )`, `{ }`, `[ ]`, a call, a subscript) 2 more. HTCondor 25 accepts 497 unary
/// operators or 165 parentheses and no more; so do we.
pub const MAX_DEPTH: u32 = 498;
/// The extra depth a bracket costs.
const BRACKET_DEPTH: u32 = 2;
/// The deepest brackets nest (lists, records, parentheses, calls, subscripts):
/// 165, each one costing an expression level and 2 more (`BRACKET_DEPTH`) of
/// [`MAX_DEPTH`], as in HTCondor 25. A list or record nested deeper has no text
/// that reads back, so the readers that build values without text (XML, the
/// Python module's conversions) refuse one too.
pub const MAX_NESTING: u32 = (MAX_DEPTH - 1) / (1 + BRACKET_DEPTH);

/// A parse failure with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// Byte offset into the source.
    pub offset: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// An error at byte `offset` of `src`, with its line and column computed.
    pub fn at(src: &str, offset: usize, message: String) -> ParseError {
        let mut offset = offset.min(src.len());
        while !src.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &src[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() as u32 + 1;
        ParseError {
            line,
            column,
            offset,
            message,
        }
    }
}

/// A parser over one source string; it can read one expression, or several ads one
/// after another.
pub struct Parser<'s> {
    src: &'s str,
    lexer: Lexer<'s>,
    tok: Token,
    consumed_end: usize,
    nodes: Vec<Node>,
    depth: u32,
    started: bool,
}

/// A parse's result.
pub type PResult<T> = Result<T, ParseError>;

impl<'s> Parser<'s> {
    /// A new-syntax parser.
    pub fn new(src: &'s str) -> Parser<'s> {
        Parser::with_mode(src, StrMode::New)
    }

    /// An old-syntax (right-hand side) parser: old string escapes.
    pub fn new_old(src: &'s str) -> Parser<'s> {
        Parser::with_mode(src, StrMode::Old)
    }

    fn with_mode(src: &'s str, mode: StrMode) -> Parser<'s> {
        Parser {
            src,
            lexer: Lexer::new(src, mode),
            // Placeholder until the first `advance`; `Eof` at offset 0 is harmless.
            tok: Token {
                tok: Tok::Eof,
                start: 0,
                end: 0,
            },
            consumed_end: 0,
            nodes: Vec::new(),
            depth: 0,
            started: false,
        }
    }

    /// Byte offset just past the last token consumed: where a multi-ad reader resumes.
    pub fn offset(&self) -> usize {
        self.consumed_end
    }

    fn lex_err(&self, e: LexError) -> ParseError {
        ParseError::at(self.src, e.offset, e.message)
    }

    fn error_here(&self, message: String) -> ParseError {
        ParseError::at(self.src, self.tok.start, message)
    }

    fn expected(&self, what: &str) -> ParseError {
        self.error_here(format!(
            "expected {what}, found {}",
            self.tok.tok.describe()
        ))
    }

    fn start(&mut self) -> PResult<()> {
        self.started = true;
        self.tok = self.lexer.next_token().map_err(|e| self.lex_err(e))?;
        Ok(())
    }

    fn advance(&mut self) -> PResult<Tok> {
        let next = self.lexer.next_token().map_err(|e| self.lex_err(e))?;
        self.consumed_end = self.tok.end;
        Ok(std::mem::replace(&mut self.tok, next).tok)
    }

    fn expect(&mut self, t: Tok, what: &str) -> PResult<()> {
        if self.tok.tok == t {
            self.advance()?;
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    fn enter(&mut self) -> PResult<()> {
        self.enter_by(1)
    }

    fn enter_by(&mut self, cost: u32) -> PResult<()> {
        self.depth += cost;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here(format!(
                "expression nested more than {MAX_DEPTH} levels deep"
            )));
        }
        Ok(())
    }

    fn finish(&mut self, root: NodeId) -> Expr {
        Expr::from_parts(std::mem::take(&mut self.nodes), root)
    }

    /// Parses the whole input as one expression; anything after it is an error.
    pub fn parse_whole_expr(&mut self) -> PResult<Expr> {
        let root = self.parse_whole_root()?;
        Ok(self.finish(root))
    }

    fn parse_whole_root(&mut self) -> PResult<NodeId> {
        self.start()?;
        if self.tok.tok == Tok::Eof {
            return Err(self.expected("an expression"));
        }
        let root = self.expr()?;
        if self.tok.tok != Tok::Eof {
            return Err(self.expected("an operator or the end of the expression"));
        }
        Ok(root)
    }

    /// Parses the next `[ ... ]` ad, handing each attribute to `attr` in the
    /// order written (the ad's builder keeps the last of a repeated name); false
    /// when only white space and comments remain. Afterwards [`Parser::offset`]
    /// is just past the closing `]`.
    pub fn next_record(&mut self, mut attr: impl FnMut(Str, Expr)) -> PResult<bool> {
        if !self.started {
            self.start()?;
        }
        if self.tok.tok == Tok::Eof {
            return Ok(false);
        }
        if self.tok.tok != Tok::LBracket {
            return Err(self.expected("'[' to start a ClassAd"));
        }
        self.advance()?;
        self.record_body(|p, name, root| {
            let e = p.finish(root);
            attr(name, e);
        })?;
        Ok(true)
    }

    /// Parses a whole input of the form `{ [ ... ], [ ... ] }`: ads inside a list, as
    /// HTCondor writes several new-syntax ads to one stream. `start` is called
    /// as each ad begins, and `attr` with each of its attributes; the number of ads.
    pub fn record_list(
        &mut self,
        mut start: impl FnMut(),
        mut attr: impl FnMut(Str, Expr),
    ) -> PResult<usize> {
        self.start()?;
        self.expect(Tok::LBrace, "'{' to start a list of ClassAds")?;
        let mut ads = 0;
        if self.tok.tok == Tok::RBrace {
            self.advance()?;
        } else {
            loop {
                start();
                if !self.next_record(&mut attr)? {
                    return Err(self.expected("'[' to start a ClassAd"));
                }
                ads += 1;
                match self.advance()? {
                    Tok::Comma => continue,
                    Tok::RBrace => break,
                    _ => {
                        return Err(ParseError::at(
                            self.src,
                            self.consumed_end,
                            "expected ',' or '}' after a ClassAd in a list".into(),
                        ))
                    }
                }
            }
        }
        if self.tok.tok != Tok::Eof {
            return Err(self.expected("the end of the input after the list of ClassAds"));
        }
        Ok(ads)
    }

    /// Parses the inside of a record after `[`, through `]`; `store` receives each
    /// attribute with the id of its value's root in the current arena.
    fn record_body(&mut self, mut store: impl FnMut(&mut Self, Str, NodeId)) -> PResult<()> {
        let mut attrs = 0;
        loop {
            // HTCondor tolerates empty attributes (`[;a=1;;b=2;]`), but not a record
            // of nothing but them (`[;]`).
            let mut semis = false;
            while self.tok.tok == Tok::Semi {
                semis = true;
                self.advance()?;
            }
            let name = match &self.tok.tok {
                Tok::RBracket if semis && attrs == 0 => {
                    return Err(self.expected("an attribute name"));
                }
                Tok::RBracket => {
                    self.advance()?;
                    return Ok(());
                }
                Tok::Name(n) | Tok::QName(n) => n.clone(),
                _ => return Err(self.expected("an attribute name or ']'")),
            };
            attrs += 1;
            self.advance()?;
            if self.tok.tok != Tok::Assign {
                return Err(self.expected(&format!("'=' after attribute name '{}'", name.as_str())));
            }
            self.advance()?;
            let root = self.expr()?;
            store(self, name.clone(), root);
            match self.tok.tok {
                Tok::Semi | Tok::RBracket => {}
                _ => {
                    return Err(self.expected(&format!(
                        "';' or ']' after the value of attribute '{}'",
                        name.as_str()
                    )))
                }
            }
        }
    }

    // expr := or ( '?' expr ':' expr )?
    fn expr(&mut self) -> PResult<NodeId> {
        self.enter()?;
        let cond = self.binary(0)?;
        let r = if self.tok.tok == Tok::Question {
            self.advance()?;
            if self.tok.tok == Tok::Colon {
                return Err(self.expected("an expression between '?' and ':'"));
            }
            let a = self.expr()?;
            self.expect(Tok::Colon, "':' in conditional expression")?;
            let b = self.expr()?;
            self.push(Node::Ternary(cond, a, b))
        } else {
            cond
        };
        self.depth -= 1;
        Ok(r)
    }

    /// The binary operator of the current token, with its precedence
    /// ([`BinOp::precedence`]).
    fn binop(&self) -> Option<(u8, BinOp)> {
        let op = match self.tok.tok {
            Tok::OrOr => BinOp::Or,
            Tok::AndAnd => BinOp::And,
            Tok::Pipe => BinOp::BitOr,
            Tok::Caret => BinOp::BitXor,
            Tok::Amp => BinOp::BitAnd,
            Tok::EqEq => BinOp::Eq,
            Tok::Ne => BinOp::Ne,
            Tok::Is => BinOp::Is,
            Tok::Isnt => BinOp::Isnt,
            Tok::Lt => BinOp::Lt,
            Tok::Le => BinOp::Le,
            Tok::Gt => BinOp::Gt,
            Tok::Ge => BinOp::Ge,
            Tok::Shl => BinOp::Shl,
            Tok::Shr => BinOp::Shr,
            Tok::UShr => BinOp::UShr,
            Tok::Plus => BinOp::Add,
            Tok::Minus => BinOp::Sub,
            Tok::Star => BinOp::Mul,
            Tok::Slash => BinOp::Div,
            Tok::Percent => BinOp::Mod,
            _ => return None,
        };
        Some((op.precedence()?, op))
    }

    // Precedence climbing keeps the Rust stack shallow: one frame per precedence
    // increase, not one per level per operand. All levels are left-associative.
    fn binary(&mut self, min: u8) -> PResult<NodeId> {
        let mut lhs = self.unary()?;
        while let Some((prec, op)) = self.binop() {
            if prec < min {
                break;
            }
            self.advance()?;
            let rhs = self.binary(prec + 1)?;
            lhs = self.push(Node::Binary(op, lhs, rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<NodeId> {
        let op = match self.tok.tok {
            Tok::Minus => UnOp::Neg,
            Tok::Plus => UnOp::Plus,
            Tok::Bang => UnOp::Not,
            Tok::Tilde => UnOp::BitNot,
            _ => return self.postfix(),
        };
        self.enter()?;
        self.advance()?;
        let e = self.unary()?;
        self.depth -= 1;
        Ok(self.push(Node::Unary(op, e)))
    }

    fn postfix(&mut self) -> PResult<NodeId> {
        let mut e = self.primary()?;
        loop {
            match self.tok.tok {
                Tok::LBracket => {
                    self.advance()?;
                    self.enter_by(BRACKET_DEPTH)?;
                    let i = self.expr()?;
                    self.depth -= BRACKET_DEPTH;
                    self.expect(Tok::RBracket, "']' after subscript")?;
                    e = self.push(Node::Binary(BinOp::Subscript, e, i));
                }
                Tok::Dot => {
                    self.advance()?;
                    let name = self.attr_name_after_dot()?;
                    e = self.push(Node::Attr {
                        scope: Some(e),
                        name,
                        absolute: false,
                    });
                }
                Tok::Elvis => {
                    // HTCondor's `?:` token binds tighter than any other operator; its
                    // right operand is a postfix expression.
                    self.advance()?;
                    self.enter()?;
                    let r = self.postfix()?;
                    self.depth -= 1;
                    e = self.push(Node::Binary(BinOp::Elvis, e, r));
                }
                _ => return Ok(e),
            }
        }
    }

    fn attr_name_after_dot(&mut self) -> PResult<Str> {
        match &self.tok.tok {
            Tok::Name(_) | Tok::QName(_) => match self.advance()? {
                Tok::Name(n) | Tok::QName(n) => Ok(n),
                _ => Err(self.expected("an attribute name after '.'")),
            },
            _ => Err(self.expected("an attribute name after '.'")),
        }
    }

    fn primary(&mut self) -> PResult<NodeId> {
        let lit = match &self.tok.tok {
            Tok::Int(i) => Value::Int(*i),
            Tok::Real(r) => Value::Real(*r),
            Tok::Str(s) => Value::Str(s.clone()),
            Tok::True => Value::Bool(true),
            Tok::False => Value::Bool(false),
            Tok::Undefined => Value::Undefined,
            Tok::Error => Value::Error,
            Tok::Name(_) | Tok::QName(_) => return self.name_or_call(),
            Tok::Dot => {
                self.advance()?;
                let name = self.attr_name_after_dot()?;
                return Ok(self.push(Node::Attr {
                    scope: None,
                    name,
                    absolute: true,
                }));
            }
            Tok::LParen => {
                self.advance()?;
                self.enter_by(BRACKET_DEPTH)?;
                let e = self.expr()?;
                self.depth -= BRACKET_DEPTH;
                self.expect(Tok::RParen, "')' to close '('")?;
                return Ok(self.push(Node::Paren(e)));
            }
            Tok::LBrace => {
                self.enter_by(BRACKET_DEPTH)?;
                let l = self.list();
                self.depth -= BRACKET_DEPTH;
                return l;
            }
            Tok::LBracket => {
                self.enter_by(BRACKET_DEPTH)?;
                let r = self.record();
                self.depth -= BRACKET_DEPTH;
                return r;
            }
            _ => return Err(self.expected("an expression")),
        };
        self.advance()?;
        Ok(self.push(Node::Lit(lit)))
    }

    fn name_or_call(&mut self) -> PResult<NodeId> {
        let start = self.tok.start;
        let name = match self.advance()? {
            Tok::Name(n) | Tok::QName(n) => n,
            _ => return Err(self.expected("a name")),
        };
        if self.tok.tok != Tok::LParen {
            return Ok(self.push(Node::Attr {
                scope: None,
                name,
                absolute: false,
            }));
        }
        self.advance()?;
        self.enter_by(BRACKET_DEPTH)?;
        let mut args = Vec::new();
        while self.tok.tok != Tok::RParen {
            args.push(self.expr()?);
            match self.tok.tok {
                // With old semantics on (as in HTCondor's daemons) `;` separates
                // arguments too.
                Tok::Comma | Tok::Semi => {
                    self.advance()?;
                    if self.tok.tok == Tok::RParen {
                        return Err(self.expected("an argument after ','"));
                    }
                }
                Tok::RParen => {}
                _ => return Err(self.expected(&format!("',' or ')' in call of {name}"))),
            }
        }
        self.advance()?;
        self.depth -= BRACKET_DEPTH;
        if let Some(folded) = self.fold_time(&name, &args, start)? {
            return Ok(folded);
        }
        Ok(self.push(Node::Call { name, args }))
    }

    /// `absTime("...")` and `relTime("...")` with one string literal become time
    /// literals at parse time; a bad literal is a parse error, as in HTCondor.
    fn fold_time(&mut self, name: &str, args: &[NodeId], start: usize) -> PResult<Option<NodeId>> {
        let abs = name.eq_ignore_ascii_case("absTime");
        if !(abs || name.eq_ignore_ascii_case("relTime")) || args.len() != 1 {
            return Ok(None);
        }
        let Node::Lit(Value::Str(s)) = &self.nodes[args[0] as usize] else {
            return Ok(None);
        };
        let v = if abs {
            time::parse_abstime(s).map(Value::AbsTime)
        } else {
            // An infinite duration (digits past f64's range) would print as text that
            // does not parse back: reject it here.
            time::parse_reltime(s)
                .filter(|r| r.is_finite())
                .map(Value::RelTime)
        };
        let Some(v) = v else {
            return Err(ParseError::at(
                self.src,
                start,
                format!("invalid {name} literal {:?}", s.as_str()),
            ));
        };
        let id = args[0];
        // The argument literal is the newest node; reuse its slot.
        self.nodes[id as usize] = Node::Lit(v);
        Ok(Some(id))
    }

    fn list(&mut self) -> PResult<NodeId> {
        self.advance()?;
        let mut items = Vec::new();
        while self.tok.tok != Tok::RBrace {
            items.push(self.expr()?);
            match self.tok.tok {
                Tok::Comma => {
                    self.advance()?;
                    if self.tok.tok == Tok::RBrace {
                        return Err(self.expected("a list element after ','"));
                    }
                }
                Tok::RBrace => {}
                _ => return Err(self.expected("',' or '}' in list")),
            }
        }
        self.advance()?;
        Ok(self.push(Node::List(items)))
    }

    fn record(&mut self) -> PResult<NodeId> {
        self.advance()?;
        // A nested record is a ClassAd in HTCondor: sorted like one, and a repeated
        // name replaces the value but keeps its first spelling.
        let mut attrs: Vec<(Str, NodeId)> = Vec::new();
        self.record_body(|_, name, root| {
            match attrs.binary_search_by(|(n, _)| attr_order(n, &name)) {
                Ok(i) => attrs[i].1 = root,
                Err(i) => attrs.insert(i, (name, root)),
            }
        })?;
        Ok(self.push(Node::Record(attrs)))
    }
}

/// Parses `src` as one new-syntax expression; trailing text is an error.
pub fn parse_expr(src: &str) -> Result<Expr, ParseError> {
    Parser::new(src).parse_whole_expr()
}

/// Parses `src` as one old-syntax right-hand side, appending its nodes to `nodes`
/// (so that all the attributes of an ad can share one arena); returns its root.
pub fn parse_expr_old_into(src: &str, nodes: &mut Vec<Node>) -> Result<NodeId, ParseError> {
    let mut p = Parser::new_old(src);
    p.nodes = std::mem::take(nodes);
    let r = p.parse_whole_root();
    *nodes = std::mem::take(&mut p.nodes);
    r
}

/// Parses `src` as one old-syntax right-hand side (old string escapes).
pub fn parse_expr_old(src: &str) -> Result<Expr, ParseError> {
    Parser::new_old(src).parse_whole_expr()
}

/// Parses exactly one new-syntax `[ ... ]` ad, handing its attributes to `attr`
/// (see [`Parser::next_record`]).
pub fn parse_record(src: &str, attr: impl FnMut(Str, Expr)) -> Result<(), ParseError> {
    let mut p = Parser::new(src);
    if !p.next_record(attr)? {
        return Err(p.expected("'[' to start a ClassAd"));
    }
    if p.tok.tok != Tok::Eof {
        return Err(p.expected("the end of the input after the ClassAd"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::unparse::unparse;

    #[test]
    fn error_positions_and_messages() {
        let e = parse_expr("[\n  a = 1;\n  b = (2 +\n  ]").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (4, 3, 24));
        assert_eq!(
            e.to_string(),
            "line 4, column 3: expected an expression, found ']'"
        );
        let e = parse_expr("é + (1").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        let e = parse_expr("\"é\" + (1").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9));
        assert!(e.message.contains("')'"), "{e}");
        let e = parse_expr("[a=1 b=2]").unwrap_err();
        assert!(e.message.contains("';' or ']'"), "{e}");
        let e = parse_expr("absTime(\"x\")").unwrap_err();
        assert!(e.message.contains("absTime"), "{e}");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn depth_is_bounded() {
        // HTCondor 25.14.1 parses 165 parentheses and 497 unary operators, no more.
        let ok = format!("{}1{}", "(".repeat(165), ")".repeat(165));
        assert!(parse_expr(&ok).is_ok());
        assert!(parse_expr(&format!("{}1", "- ".repeat(497))).is_ok());
        assert!(parse_expr(&format!("{}1", "- ".repeat(498))).is_err());
        let deep = format!("{}1{}", "(".repeat(166), ")".repeat(166));
        assert!(parse_expr(&deep).unwrap_err().message.contains("nested"));
        // MAX_NESTING brackets of every kind, and no more.
        assert_eq!(MAX_NESTING, 165);
        let n = MAX_NESTING as usize;
        for (open, close) in [("(", ")"), ("{", "}"), ("[a=", "]"), ("f(", ")")] {
            let at_limit = format!("{}1{}", open.repeat(n), close.repeat(n));
            assert!(parse_expr(&at_limit).is_ok(), "{open}");
            let past = format!("{}1{}", open.repeat(n + 1), close.repeat(n + 1));
            assert!(parse_expr(&past).is_err(), "{open}");
        }
        let mb = "(".repeat(1 << 20);
        let t = std::time::Instant::now();
        assert!(parse_expr(&mb).is_err());
        let recs = format!("{}1{}", "[a=".repeat(150), "]".repeat(150));
        assert!(parse_expr(&recs).is_ok());
        assert!(t.elapsed().as_secs() < 2);
        for s in [
            "-".repeat(1 << 20),
            "!".repeat(1 << 20),
            "[a=".repeat(5000),
            "{".repeat(5000),
        ] {
            assert!(parse_expr(&s).is_err());
        }
        let elvis = format!("a{}", " ?: a".repeat(5000));
        assert!(parse_expr(&elvis).is_err());
    }

    #[test]
    fn junk_is_an_error_not_a_panic() {
        let junk: &[&[u8]] = &[
            b"",
            b" ",
            b"\x00",
            b"\"abc",
            b"'abc",
            b"\xff\xfe",
            b"[",
            b"]",
            b"{",
            b"a.",
            b"..5",
            b"?",
            b":",
            b"f(",
            b"a[",
            b"1 ?",
            b"1 ? 2",
            b"[a",
            b"[a=",
            b"'\\0'",
        ];
        for j in junk {
            let s = String::from_utf8_lossy(j);
            assert!(parse_expr(&s).is_err(), "{s:?}");
            assert!(parse_record(&s, |_, _| {}).is_err(), "{s:?}");
        }
        // A cheap deterministic fuzz over a small alphabet.
        let alphabet = [
            "a", "1", "-", "?", ":", "(", ")", "[", "]", "{", "}", ".", "\"", "'", "\\", ";", "=",
            ",", " ", "é", "/", "*",
        ];
        let mut x: u64 = 12345;
        for _ in 0..20000 {
            let mut s = String::new();
            for _ in 0..(x % 12) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                s.push_str(alphabet[(x >> 33) as usize % alphabet.len()]);
            }
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            if let Ok(e) = parse_expr(&s) {
                let _ = parse_expr(&unparse(&e));
            }
            let _ = parse_expr_old(&s);
            let _ = parse_record(&s, |_, _| {});
        }
    }

    #[test]
    fn records() {
        let mut names = Vec::new();
        parse_record("[A=1; a=2; 'b c' = x; ]", |n, e| {
            names.push(format!("{n}={}", unparse(&e)))
        })
        .unwrap();
        assert_eq!(names, ["A=1", "a=2", "b c=x"]);
        assert!(parse_record("[ true = 1 ]", |_, _| {}).is_err());
        assert!(parse_record("[a=1] x", |_, _| {}).is_err());
        assert!(parse_record("1", |_, _| {}).is_err());
        let e = parse_expr("[a=1;A=2;b=3].a").unwrap();
        assert_eq!(unparse(&e), "[ a = 2; b = 3 ].a");
    }

    #[test]
    fn tree_shapes() {
        // `?:` binds tighter than `*` (HTCondor evaluates `10 ?: 2 * 3` to 30) and
        // than unary minus (`-undefined ?: 3` is -3).
        let e = parse_expr("10 ?: 2 * 3").unwrap();
        assert!(matches!(e.node(e.root()), Node::Binary(BinOp::Mul, _, _)));
        let e = parse_expr("-u ?: 3").unwrap();
        assert!(matches!(e.node(e.root()), Node::Unary(UnOp::Neg, _)));
        let e = parse_expr("1 - 2 - 3").unwrap();
        let Node::Binary(BinOp::Sub, l, _) = e.node(e.root()) else {
            panic!()
        };
        assert!(matches!(e.node(*l), Node::Binary(BinOp::Sub, _, _)));
        let e = parse_expr("a ? b : c ? d : e").unwrap();
        let Node::Ternary(_, _, r) = e.node(e.root()) else {
            panic!()
        };
        assert!(matches!(e.node(*r), Node::Ternary(..)));
        let e = parse_expr("relTime(\"1:30\")").unwrap();
        assert!(matches!(e.node(e.root()), Node::Lit(Value::RelTime(r)) if *r == 90.0));
        assert_eq!(e.nodes().len(), 1);
    }
}
