//! The ClassAd lexer: `logos` raw tokens plus HTCondor's context-dependent fix-ups.

use classad_vm::Str;
use logos::Logos;

/// Which string-literal rules apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StrMode {
    /// New syntax: C escapes and octal `\ooo`; adjacent literals join.
    #[default]
    New,
    /// Old (long-form) syntax: only `\"` is an escape, and not even that when the
    /// quote ends the line or the input.
    Old,
}

/// A lexing failure at a byte offset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LexError {
    /// Byte offset of the offending text.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(extras = StrMode, skip r"[ \t\n\r\x0b\x0c]+")]
enum Raw {
    #[token("/*", block_comment)]
    // A `//` comment runs to the end of the line or of the input. (HTCondor's lexer
    // fails on one that reaches the end of the input; in an ad it is always followed
    // by a newline, and accepting it loses nothing.)
    #[regex(r"//[^\n]*", logos::skip)]
    _Comment,
    #[regex("[0-9]+")]
    Int,
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    Real,
    #[regex(r"[0-9]+\.")]
    BadReal,
    #[regex("0[xX][0-9a-fA-F]*")]
    Hex,
    #[regex("[a-zA-Z_][a-zA-Z0-9_]*")]
    Ident,
    #[token("\"", |lex| scan_quoted(lex, b'"'))]
    Str,
    #[token("'", |lex| scan_quoted(lex, b'\''))]
    QName,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token(">>>")]
    UShr,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("=?=")]
    MetaEq,
    #[token("=!=")]
    MetaNe,
    #[token("=")]
    Assign,
    #[token("&")]
    Amp,
    #[token("&&")]
    AndAnd,
    #[token("|")]
    Pipe,
    #[token("||")]
    OrOr,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    /// `true` for an elvis `?:`: HTCondor's lexer fuses `?` and `:` separated only
    /// by white space into one high-precedence token.
    #[token("?", question_or_elvis)]
    Question(bool),
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
}

/// Skips a `/* ... */` comment; an unterminated one is an error.
fn block_comment(lex: &mut logos::Lexer<Raw>) -> logos::FilterResult<(), ()> {
    // HTCondor's scan starts at the `*` of `/*`, so `/*/` is a whole comment.
    if lex.remainder().starts_with('/') {
        lex.bump(1);
        return logos::FilterResult::Skip;
    }
    match lex.remainder().find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            logos::FilterResult::Skip
        }
        None => logos::FilterResult::Error(()),
    }
}

fn question_or_elvis(lex: &mut logos::Lexer<Raw>) -> bool {
    let rest = lex.remainder().as_bytes();
    let ws = rest.iter().take_while(|c| is_c_space(**c)).count();
    if rest.get(ws) == Some(&b':') {
        lex.bump(ws + 1);
        true
    } else {
        false
    }
}

/// Finds the end of a quoted literal; `Err` when it is unterminated.
fn scan_quoted(lex: &mut logos::Lexer<Raw>, delim: u8) -> Result<(), ()> {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    match lex.extras {
        StrMode::New => {
            let mut odd_backslash = false;
            while i < rest.len() {
                let c = rest[i];
                if c == 0 {
                    return Err(());
                }
                if c == delim && !odd_backslash {
                    lex.bump(i + 1);
                    return Ok(());
                }
                odd_backslash = !odd_backslash && c == b'\\';
                i += 1;
            }
            Err(())
        }
        StrMode::Old => {
            while i < rest.len() {
                let c = rest[i];
                if c == 0 {
                    return Err(());
                }
                if c == delim {
                    let escaped = i > 0 && rest[i - 1] == b'\\';
                    let next = rest.get(i + 1).copied();
                    // A backslash-quote is literal unless the quote ends the line or
                    // the input; then the value simply ends with a backslash.
                    if !escaped || matches!(next, None | Some(b'\n')) {
                        lex.bump(i + 1);
                        return Ok(());
                    }
                }
                i += 1;
            }
            Err(())
        }
    }
}

/// A token of the ClassAd language.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An integer literal (overflow gives 0, as in HTCondor).
    Int(i64),
    /// A real literal.
    Real(f64),
    /// A string literal, escapes processed, adjacent literals joined.
    Str(Str),
    /// A bare identifier.
    Name(Str),
    /// A `'quoted'` attribute name.
    QName(Str),
    /// `true`
    True,
    /// `false`
    False,
    /// `undefined`
    Undefined,
    /// `error`
    Error,
    /// `is` and `=?=`
    Is,
    /// `isnt` and `=!=`
    Isnt,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `>>>`
    UShr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    EqEq,
    /// `!=`
    Ne,
    /// `=`
    Assign,
    /// `&`
    Amp,
    /// `&&`
    AndAnd,
    /// `|`
    Pipe,
    /// `||`
    OrOr,
    /// `^`
    Caret,
    /// `~`
    Tilde,
    /// `!`
    Bang,
    /// `?`
    Question,
    /// `?:`
    Elvis,
    /// `:`
    Colon,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `.`
    Dot,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// The end of the input.
    Eof,
}

impl Tok {
    /// A short description for error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Int(i) => format!("integer {i}"),
            Tok::Real(r) => format!("real {r}"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Name(n) => format!("name '{n}'"),
            Tok::QName(n) => format!("quoted name '{n}'"),
            Tok::True => "'true'".into(),
            Tok::False => "'false'".into(),
            Tok::Undefined => "'undefined'".into(),
            Tok::Error => "'error'".into(),
            Tok::Is => "'is'".into(),
            Tok::Isnt => "'isnt'".into(),
            Tok::Eof => "end of input".into(),
            other => format!("'{}'", other.punct()),
        }
    }

    fn punct(&self) -> &'static str {
        match self {
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::UShr => ">>>",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Assign => "=",
            Tok::Amp => "&",
            Tok::AndAnd => "&&",
            Tok::Pipe => "|",
            Tok::OrOr => "||",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Bang => "!",
            Tok::Question => "?",
            Tok::Elvis => "?:",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            _ => "?",
        }
    }

    /// True for tokens after which HTCondor reads `-` as an operator, not as the sign
    /// of a number.
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Int(_)
                | Tok::Real(_)
                | Tok::Str(_)
                | Tok::Name(_)
                | Tok::QName(_)
                | Tok::True
                | Tok::False
                | Tok::Undefined
                | Tok::Error
                | Tok::Dot
                | Tok::RBracket
                | Tok::RParen
                | Tok::RBrace
        )
    }
}

/// A token with its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
}

type RawItem = (Result<Raw, ()>, std::ops::Range<usize>);

/// Turns source text into [`Token`]s on demand, so that a caller can stop in the
/// middle of a multi-ad input.
pub struct Lexer<'s> {
    src: &'s str,
    inner: logos::Lexer<'s, Raw>,
    pending: Option<RawItem>,
    /// Whether the previous token ends an operand (all that `-` needs to know of
    /// it; keeping the token itself cost a copy of every name).
    prev_ends_operand: bool,
}

impl<'s> Lexer<'s> {
    /// A lexer over `src` with the given string rules.
    pub fn new(src: &'s str, mode: StrMode) -> Lexer<'s> {
        Lexer {
            src,
            inner: Raw::lexer_with_extras(src, mode),
            pending: None,
            prev_ends_operand: false,
        }
    }

    fn raw(&mut self) -> Option<RawItem> {
        if let Some(p) = self.pending.take() {
            return Some(p);
        }
        let r = self.inner.next()?;
        Some((r, self.inner.span()))
    }

    fn peek_raw(&mut self) -> Option<&RawItem> {
        if self.pending.is_none() {
            self.pending = self.raw();
        }
        self.pending.as_ref()
    }

    /// The next token; `Tok::Eof` at the end, and again after it.
    pub fn next_token(&mut self) -> Result<Token, LexError> {
        let t = self.lex_one()?;
        self.prev_ends_operand = t.tok.ends_operand();
        Ok(t)
    }

    fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            offset,
            message: message.into(),
        })
    }

    fn lex_one(&mut self) -> Result<Token, LexError> {
        let Some((raw, span)) = self.raw() else {
            let n = self.src.len();
            return Ok(Token {
                tok: Tok::Eof,
                start: n,
                end: n,
            });
        };
        let text = &self.src[span.clone()];
        let raw = match raw {
            Ok(r) => r,
            Err(()) => {
                let c = text.chars().next().unwrap_or(' ');
                return if c == '"' || c == '\'' {
                    Self::err(span.start, format!("unterminated {c}...{c} literal"))
                } else if text.starts_with("/*") {
                    Self::err(span.start, "unterminated /* comment")
                } else {
                    Self::err(span.start, format!("unexpected character {c:?}"))
                };
            }
        };
        let mk = |tok| Token {
            tok,
            start: span.start,
            end: span.end,
        };
        let tok = match raw {
            Raw::_Comment => return self.lex_one(),
            Raw::Int => Tok::Int(int_literal(text, span.start)?),
            Raw::Real => Tok::Real(real_literal(text)),
            Raw::BadReal => return Self::err(span.start, "expected digits after '.' in number"),
            Raw::Hex => return Self::err(span.start, "hexadecimal integers are not allowed"),
            Raw::Ident => keyword_or_name(text),
            Raw::Str | Raw::QName => return self.quoted(raw, span),
            Raw::Minus => return self.minus(span),
            Raw::Plus => Tok::Plus,
            Raw::Star => Tok::Star,
            Raw::Slash => Tok::Slash,
            Raw::Percent => Tok::Percent,
            Raw::Shl => Tok::Shl,
            Raw::Shr => Tok::Shr,
            Raw::UShr => Tok::UShr,
            Raw::Lt => Tok::Lt,
            Raw::Le => Tok::Le,
            Raw::Gt => Tok::Gt,
            Raw::Ge => Tok::Ge,
            Raw::EqEq => Tok::EqEq,
            Raw::Ne => Tok::Ne,
            Raw::MetaEq => Tok::Is,
            Raw::MetaNe => Tok::Isnt,
            Raw::Assign => Tok::Assign,
            Raw::Amp => Tok::Amp,
            Raw::AndAnd => Tok::AndAnd,
            Raw::Pipe => Tok::Pipe,
            Raw::OrOr => Tok::OrOr,
            Raw::Caret => Tok::Caret,
            Raw::Tilde => Tok::Tilde,
            Raw::Bang => Tok::Bang,
            Raw::Question(false) => Tok::Question,
            Raw::Question(true) => Tok::Elvis,
            Raw::Colon => Tok::Colon,
            Raw::Semi => Tok::Semi,
            Raw::Comma => Tok::Comma,
            Raw::Dot => Tok::Dot,
            Raw::LParen => Tok::LParen,
            Raw::RParen => Tok::RParen,
            Raw::LBracket => Tok::LBracket,
            Raw::RBracket => Tok::RBracket,
            Raw::LBrace => Tok::LBrace,
            Raw::RBrace => Tok::RBrace,
        };
        Ok(mk(tok))
    }

    /// HTCondor lexes `-` glued to a number as a negative literal, unless the previous
    /// token ends an operand (then it is subtraction).
    fn minus(&mut self, span: std::ops::Range<usize>) -> Result<Token, LexError> {
        let operator = Token {
            tok: Tok::Minus,
            start: span.start,
            end: span.end,
        };
        if self.prev_ends_operand {
            return Ok(operator);
        }
        let glued = match self.peek_raw() {
            Some((Ok(r @ (Raw::Int | Raw::Real | Raw::BadReal | Raw::Hex)), s))
                if s.start == span.end =>
            {
                Some((*r, s.clone()))
            }
            _ => None,
        };
        let Some((r, s)) = glued else {
            return Ok(operator);
        };
        self.pending = None;
        let digits = &self.src[s.clone()];
        let tok = match r {
            Raw::Int => Tok::Int(negative_int_literal(digits, span.start)?),
            Raw::Real => Tok::Real(-real_literal(digits)),
            Raw::BadReal => return Self::err(s.start, "expected digits after '.' in number"),
            _ => return Self::err(s.start, "hexadecimal integers are not allowed"),
        };
        Ok(Token {
            tok,
            start: span.start,
            end: s.end,
        })
    }

    fn quoted(&mut self, raw: Raw, span: std::ops::Range<usize>) -> Result<Token, LexError> {
        let mode = self.inner.extras;
        let mut body: Vec<u8> = self.src.as_bytes()[span.start + 1..span.end - 1].to_vec();
        let mut end = span.end;
        let src = self.src;
        if mode == StrMode::New {
            // Adjacent literals separated only by white space are one literal; the
            // escapes are processed on the joined text, as HTCondor does. (Old syntax
            // does not join: HTCondor keeps the first literal and silently drops the
            // rest of the line, which we reject instead.)
            loop {
                let joined = match self.peek_raw() {
                    Some((Ok(r), s)) if *r == raw => {
                        let gap = &src.as_bytes()[end..s.start];
                        gap.iter().all(|c| is_c_space(*c)).then(|| s.clone())
                    }
                    _ => None,
                };
                let Some(s) = joined else { break };
                self.pending = None;
                body.extend_from_slice(&self.src.as_bytes()[s.start + 1..s.end - 1]);
                end = s.end;
            }
        }
        let bytes = match mode {
            StrMode::New => convert_escapes(&body).ok_or_else(|| LexError {
                offset: span.start,
                message: "'\\0' is not allowed in a string".into(),
            })?,
            StrMode::Old => old_unescape(&body),
        };
        let text = String::from_utf8(bytes).map_err(|_| LexError {
            offset: span.start,
            message: "escapes in the literal do not form valid UTF-8".into(),
        })?;
        let tok = if raw == Raw::Str {
            Tok::Str(Str::from(text))
        } else {
            Tok::QName(Str::from(text))
        };
        Ok(Token {
            tok,
            start: span.start,
            end,
        })
    }
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn keyword_or_name(text: &str) -> Tok {
    let kw = |k: &str| text.eq_ignore_ascii_case(k);
    if kw("true") {
        Tok::True
    } else if kw("false") {
        Tok::False
    } else if kw("undefined") {
        Tok::Undefined
    } else if kw("error") {
        Tok::Error
    } else if kw("is") {
        Tok::Is
    } else if kw("isnt") {
        Tok::Isnt
    } else {
        // Made once, as the value the tree keeps.
        Tok::Name(Str::from(text))
    }
}

/// An unsigned integer literal. HTCondor (with old semantics on, as its daemons run)
/// rejects a leading zero and turns an out-of-range value into 0.
fn int_literal(text: &str, offset: usize) -> Result<i64, LexError> {
    if text.len() > 1 && text.starts_with('0') {
        return Err(LexError {
            offset,
            message: format!("integer {text} has a leading zero"),
        });
    }
    Ok(text.parse::<i64>().unwrap_or(0))
}

/// `-digits`: HTCondor's leading-zero check looks at the `-`, so `-010` is -10, but a
/// zero-led run with an 8 or 9 is still a malformed octal constant.
fn negative_int_literal(digits: &str, offset: usize) -> Result<i64, LexError> {
    if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|c| c > b'7') {
        return Err(LexError {
            offset,
            message: format!("malformed number -{digits}"),
        });
    }
    Ok(format!("-{digits}").parse::<i64>().unwrap_or(0))
}

fn real_literal(text: &str) -> f64 {
    // The regexes only admit forms `str::parse` accepts; overflow gives infinity as
    // `strtod` does.
    text.parse::<f64>().unwrap_or(0.0)
}

/// HTCondor's `convert_escapes`: C escapes, up to three octal digits (three only when
/// the first is 0-3), unknown escapes lose the backslash. `None` when a NUL results.
pub fn convert_escapes(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' || i + 1 == raw.len() {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let e = raw[i];
        let ch = match e {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'0'..=b'7' => {
                let mut n = u32::from(e - b'0');
                if let Some(d @ b'0'..=b'7') = raw.get(i + 1).copied() {
                    i += 1;
                    n = (n << 3) + u32::from(d - b'0');
                    if n < 0x20 {
                        if let Some(d @ b'0'..=b'7') = raw.get(i + 1).copied() {
                            i += 1;
                            n = (n << 3) + u32::from(d - b'0');
                        }
                    }
                }
                let b = (n & 0xff) as u8;
                if b == 0 {
                    return None;
                }
                b
            }
            other => other,
        };
        out.push(ch);
        i += 1;
    }
    Some(out)
}

fn old_unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && matches!(raw.get(i + 1), Some(b'"' | b'\'')) {
            i += 1;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Result<Vec<Tok>, LexError> {
        let mut lx = Lexer::new(src, StrMode::New);
        let mut v = Vec::new();
        loop {
            let t = lx.next_token()?;
            if t.tok == Tok::Eof {
                return Ok(v);
            }
            v.push(t.tok);
        }
    }

    #[test]
    fn numbers_and_signs() {
        assert_eq!(toks("-5").unwrap(), [Tok::Int(-5)]);
        assert_eq!(toks("- 5").unwrap(), [Tok::Minus, Tok::Int(5)]);
        assert_eq!(toks("3-5").unwrap(), [Tok::Int(3), Tok::Minus, Tok::Int(5)]);
        assert_eq!(toks("a*-5").unwrap()[2], Tok::Int(-5));
        assert_eq!(toks("-010").unwrap(), [Tok::Int(-10)]);
        assert_eq!(toks("99999999999999999999").unwrap(), [Tok::Int(0)]);
        assert_eq!(toks("-9223372036854775808").unwrap(), [Tok::Int(i64::MIN)]);
        assert_eq!(toks(".5").unwrap(), [Tok::Real(0.5)]);
        assert_eq!(toks("-.5e-3").unwrap(), [Tok::Real(-0.0005)]);
        assert_eq!(toks("1e309").unwrap(), [Tok::Real(f64::INFINITY)]);
        for bad in ["010", "0x10", "5.", "1.e3", "-08", "-0x1"] {
            assert!(toks(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_and_names() {
        assert_eq!(toks(r#""a" "b""#).unwrap(), [Tok::Str("ab".into())]);
        assert_eq!(toks("\"a\\1\" \"23\"").unwrap(), [Tok::Str("aS".into())]);
        assert_eq!(toks(r#""\777""#).unwrap(), [Tok::Str("?7".into())]);
        assert_eq!(toks(r#""\x41""#).unwrap(), [Tok::Str("x41".into())]);
        assert_eq!(toks(r#""\400""#).unwrap(), [Tok::Str(" 0".into())]);
        assert_eq!(toks(r#""\303\251""#).unwrap(), [Tok::Str("é".into())]);
        assert!(toks(r#""\0""#).is_err());
        assert!(toks(r#""\08""#).is_err());
        assert!(toks(r#""abc\""#).is_err());
        assert!(toks(r#""\377""#).is_err());
        assert_eq!(toks("'a' 'b'").unwrap(), [Tok::QName("ab".into())]);
        assert_eq!(
            toks("TRUE Is isNT x_1").unwrap(),
            [Tok::True, Tok::Is, Tok::Isnt, Tok::Name("x_1".into())]
        );
    }

    #[test]
    fn old_strings() {
        let old = |s: &str| {
            let mut lx = Lexer::new(s, StrMode::Old);
            lx.next_token().map(|t| t.tok)
        };
        assert_eq!(
            old(r#""C:\dir\x.exe""#).unwrap(),
            Tok::Str(r"C:\dir\x.exe".into())
        );
        assert_eq!(old(r#""x\"y""#).unwrap(), Tok::Str("x\"y".into()));
        assert_eq!(old(r#""C:\""#).unwrap(), Tok::Str(r"C:\".into()));
        assert_eq!(old("\"a\\\"\n").unwrap(), Tok::Str("a\\".into()));
        assert!(old(r#""C:\" x"#).is_err());
    }

    #[test]
    fn comments_and_elvis() {
        assert_eq!(toks("/* c */ 1").unwrap(), [Tok::Int(1)]);
        assert_eq!(toks("1 // c\n").unwrap(), [Tok::Int(1)]);
        assert_eq!(toks("1 // c").unwrap(), [Tok::Int(1)]);
        assert!(toks("1 /* c").is_err());
        assert_eq!(toks("a ? \n : b").unwrap()[1], Tok::Elvis);
        assert_eq!(toks("a ?/**/: b").unwrap()[1], Tok::Question);
    }

    #[test]
    fn junk_never_panics() {
        for s in [
            "\u{0}",
            "é",
            "\"",
            "'",
            "\\",
            "@",
            "\"\u{0}\"",
            "-",
            "-.",
            "..5",
        ] {
            let _ = toks(s);
        }
    }
}
