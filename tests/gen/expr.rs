//! Expression texts: every operator, every literal type, attribute references of
//! every form, and calls to the builtins, bounded in depth and size.
//!
//! The text is built directly (not printed from a tree) so that it exercises the
//! spellings a person writes: `=?=` and `is`, mixed-case keywords and names,
//! optional parentheses left to the parser's precedence rules.

use super::builtins::{Arg, Builtin, BUILTINS, CLOCK_WRAPPERS, NONDETERMINISTIC};
use super::rng::Rng;
use super::shell_quote;
use classad::syntax::parse_expr;
use std::fmt;

/// The kind of value a position would like: a hint that makes most operations get
/// past their type checks, never a promise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Anything.
    Any,
    /// A number (integer or real).
    Num,
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// A string.
    Str,
}

/// Bounds on one generated expression.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of operations.
    pub max_depth: u32,
    /// Most sub-expressions.
    pub max_nodes: u32,
}

/// Limits for standalone expressions.
pub const EXPR_LIMITS: Limits = Limits {
    max_depth: 6,
    max_nodes: 40,
};

/// The names a standalone expression refers to; none exists, so they are all
/// undefined (or, for the special names, whatever an ad-less scope gives).
pub const ALONE_NAMES: &[&str] = &["x", "y", "Memory", "lst", "rec", "a"];

/// Scope prefixes for `prefix.name`.
const SCOPES: &[&str] = &[
    "MY", "TARGET", "my", "target", "My", "Target", "other", "self", "parent", "toplevel", "root",
    "ad", "LEFT", "RIGHT",
];

/// Names that are special (or live in the match ad) when used bare.
pub const SPECIAL_NAMES: &[&str] = &[
    "self",
    "parent",
    "toplevel",
    "root",
    "other",
    "my",
    "target",
    "MY",
    "TARGET",
    "ad",
    "LEFT",
    "RIGHT",
    "lCtx",
    "rCtx",
    "symmetricMatch",
    "leftMatchesRight",
    "rightMatchesLeft",
    "leftRankValue",
    "rightRankValue",
];

/// Field names of generated record literals.
const FIELDS: &[&str] = &["a", "b", "p", "q", "r", "k", "x", "Name", "'odd name'"];

/// Binary operators, grouped by the operands they want.
const ARITH: &[&str] = &["*", "/", "%", "+", "-"];
const BITS: &[&str] = &["<<", ">>", ">>>", "&", "^", "|"];
const COMPARE: &[&str] = &["<", "<=", ">", ">=", "==", "!="];
const META: &[&str] = &["=?=", "=!=", "is", "isnt"];
const LOGIC: &[&str] = &["&&", "||"];

/// Every binary operator spelling the generator writes (for coverage checks).
pub const BINARY_SPELLINGS: &[&[&str]] = &[ARITH, BITS, COMPARE, META, LOGIC];

const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "10",
    "63",
    "64",
    "65",
    "100",
    "1024",
    "2147483647",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775807",
    "(-9223372036854775807 - 1)",
    "1000000007",
];

const REALS: &[&str] = &[
    "0.0",
    "-0.0",
    "0.5",
    "1.5",
    "2.5",
    "-2.5",
    "3.5",
    "1.0",
    "100.0",
    "0.1",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1.0e400",
    "-1.0e400",
    "5e-324",
    "2.2250738585072014e-308",
    "1e-300",
    "1e20",
    "3.141592653589793",
    "123456789.123456789",
    r#"real("NaN")"#,
    r#"real("INF")"#,
    r#"real("-INF")"#,
    r#"-real("NaN")"#,
];

/// String literal texts, escapes included.
const STRINGS: &[&str] = &[
    r#""""#,
    r#""a""#,
    r#""abc""#,
    r#""ABC""#,
    r#""MiXeD Case""#,
    r#""a\"b""#,
    r#""tab\there""#,
    r#""new\nline""#,
    r#""back\\slash""#,
    r#""\101\102""#,
    r#""bell\a\b\f\v\r""#,
    r#""héllo wörld""#,
    r#""1,2,3""#,
    r#""  12""#,
    r#""12abc""#,
    r#""1e3""#,
    r#""0x10""#,
    r#""-0x1A""#,
    r#""2.5""#,
    r#""true""#,
    r#""TRUE""#,
    r#""false""#,
    r#""NaN""#,
    r#""INF""#,
    r#""x""#,
    r#""X""#,
    r#""p""#,
    r#""P""#,
    r#""zz""#,
    r#""slot1@host""#,
    r#""joe@wisc.edu""#,
    r#""a" "b""#,
];

const ABS_TIMES: &[&str] = &[
    r#"absTime("2020-03-04T05:06:07Z")"#,
    r#"absTime("2020-03-04T05:06:07+01:00")"#,
    r#"absTime("2020-02-29T23:59:59-05:30")"#,
    r#"absTime("1970-01-01T00:00:00Z")"#,
    r#"absTime("2038-01-19T03:14:08Z")"#,
    r#"absTime("2001-09-09")"#,
    "absTime(0)",
    "absTime(1700000000)",
    "absTime(1700000000, 3600)",
    "absTime(-1)",
];

const REL_TIMES: &[&str] = &[
    r#"relTime("1d")"#,
    r#"relTime("01:30")"#,
    r#"relTime("-5")"#,
    r#"relTime("1+02:03:04")"#,
    r#"relTime("2h30m")"#,
    r#"relTime("59.5")"#,
    "relTime(90)",
    "relTime(1.5)",
    "relTime(-3600)",
];

const REGEXES: &[&str] = &[
    "^a.c$",
    "a",
    r"(\w+)@(\w+)",
    "(",
    "[0-9]+",
    "^$",
    ".*",
    "b+",
    "^slot1",
    "(?i)abc",
    r"\d",
    "A|b",
];
const REGEX_OPTS: &[&str] = &["i", "m", "s", "x", "I", "g", "f", "gi", "", "z"];
const SUBSTS: &[&str] = &["X", r"\1", r"\2:\1", "", r"<\0>"];
const VERSIONS: &[&str] = &[
    "1.2.3",
    "1.10",
    "1.9",
    "8.9.1-rc2",
    "",
    "a",
    "10.0.0",
    "1.2.3.4",
    "01.2",
    "1.2.3",
];
const DELIM_LISTS: &[&str] = &[
    "a, b,c",
    "1,2,3",
    "1 2.5 3",
    "",
    "  ",
    "x;y;z",
    "A,b,C",
    "10, 20, 5",
    "a,,b",
    "-1,7",
];
const DELIMS: &[&str] = &[",", " ", ";", ", ", "", ",;"];
const ABS_TEXTS: &[&str] = &[
    "2020-03-04T05:06:07Z",
    "2020-03-04 05:06:07",
    "1999-12-31T23:59:59+0100",
    "2021-06-01",
];
const REL_TEXTS: &[&str] = &["1d", "01:30", "-5", "1+02:03:04", "2h", "90s", "1:2:3:4"];
const TIME_FORMATS: &[&str] = &[
    "%Y-%m-%d %H:%M:%S",
    "%c",
    "%A %B %d",
    "%j %U %w",
    "%%",
    "",
    "%y%m%d-%I%p",
];
const OFFSETS: &[&str] = &["0", "3600", "-18000", "172800", "37", "-1.5"];
const CMP_OPS: &[&str] = &[
    "<", "<=", "==", "!=", ">", ">=", "is", "isnt", "=?=", "bogus", "IS",
];
const EXPR_TEXTS: &[&str] = &["1 + 2", "x +", "x", "{1, 2}[1]", "[a = 1].a", ""];
const ENVS: &[&str] = &[
    "A=1;B=2",
    "A=1 B=2",
    "A=1 B='x y'",
    "",
    "=bad",
    "A=1;A=2",
    "PATH=/bin:/usr/bin",
];
const ARGS: &[&str] = &["a b 'c d'", "\"a\" b", r"a\ b", "", "'unterminated", "one"];
const AT_NAMES: &[&str] = &["joe@wisc.edu", "slot1@host", "joe", "@host", "a@b@c", ""];

/// Values known when an expression is compiled, which the VM specialises on
/// (constant sets for `Member`, constants of `CmpK` and `CmpTK`, folding): the
/// literal undefined and error, the empty string, empty and constant lists.
const KNOWN_VALUES: &[&str] = &[
    "undefined",
    "error",
    "UNDEFINED",
    "Error",
    "\"\"",
    "{}",
    "{ \"a\", \"B\" }",
    "{ \"\" }",
    "{ undefined }",
    "{ \"a\", 1, undefined, error }",
    "{ 2.5, \"b\", true }",
];

/// Where the lists of [`KNOWN_VALUES`] start.
const KNOWN_LISTS: usize = 5;

/// Constant expressions that fold at compile time to undefined, error, the empty
/// string or a list (so the folded value, not the literal, reaches the
/// specialised instruction).
const KNOWN_FOLDS: &[&str] = &[
    "(undefined)",
    "undefined + 1",
    "error && true",
    "strcat(\"\", \"\")",
    "ifThenElse(true, undefined, 1)",
    "undefined ?: \"a, b\"",
    "-undefined",
];

/// Names no ad defines: `MY.` of one is undefined at compile time.
const MISSING_NAMES: &[&str] = &["Missing", "nothere", "MISSING"];

/// Writes `s` as a new-syntax string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An expression generator over a set of attribute names.
pub struct Gen<'a> {
    rng: &'a mut Rng,
    names: &'a [&'a str],
    /// Names bound by enclosing record literals (and `evalInEachContext` elements).
    local: Vec<&'static str>,
    nodes_left: u32,
    max_depth: u32,
}

impl<'a> Gen<'a> {
    /// A generator referring to `names`, within `limits`.
    pub fn new(rng: &'a mut Rng, names: &'a [&'a str], limits: Limits) -> Gen<'a> {
        Gen {
            rng,
            names,
            local: Vec::new(),
            nodes_left: limits.max_nodes,
            max_depth: limits.max_depth,
        }
    }

    /// A generator for the value of an ad's attribute.
    pub fn for_attribute(rng: &'a mut Rng, names: &'a [&'a str], limits: Limits) -> Gen<'a> {
        Gen::new(rng, names, limits)
    }

    /// One expression text (which usually, but not always, parses).
    pub fn top(&mut self, want: Want) -> String {
        if self.rng.one_in(3) {
            self.compound(0, want)
        } else {
            self.expr(0, want)
        }
    }

    fn expr(&mut self, depth: u32, want: Want) -> String {
        if depth >= self.max_depth || self.nodes_left == 0 || self.rng.one_in(4) {
            self.nodes_left = self.nodes_left.saturating_sub(1);
            return self.leaf(want);
        }
        self.compound(depth, want)
    }

    /// An operand of an operator: parenthesised half the time, so precedence and
    /// the `Paren` node both get exercised.
    fn operand(&mut self, depth: u32, want: Want) -> String {
        let e = self.expr(depth + 1, want);
        if e.contains(' ') && self.rng.one_in(2) {
            format!("({e})")
        } else {
            e
        }
    }

    fn compound(&mut self, depth: u32, want: Want) -> String {
        self.nodes_left = self.nodes_left.saturating_sub(1);
        // unary, binary, ternary, elvis, subscript, select, paren, list, record,
        // call, clock/random wrapper, call with compile-time arguments
        let weights: [u32; 12] = match want {
            Want::Bool => [4, 34, 4, 3, 3, 4, 3, 0, 0, 20, 1, 4],
            Want::Num | Want::Int => [8, 30, 4, 3, 4, 4, 3, 0, 0, 16, 0, 2],
            Want::Str => [0, 4, 3, 3, 4, 4, 2, 0, 0, 30, 0, 4],
            Want::Any => [6, 26, 4, 4, 5, 6, 3, 5, 4, 24, 1, 4],
        };
        match self.rng.weighted(&weights) {
            0 => self.unary(depth, want),
            1 => self.binary(depth, want),
            2 => {
                let c = self.operand(depth, Want::Bool);
                let a = self.expr(depth + 1, want);
                let b = self.expr(depth + 1, want);
                format!("{c} ? {a} : {b}")
            }
            3 => {
                let a = self.postfix_base(depth);
                let b = self.postfix_base(depth);
                format!("{a} ?: {b}")
            }
            4 => self.subscript(depth),
            5 => self.select(depth),
            6 => format!("({})", self.expr(depth + 1, want)),
            7 => self.list(depth, Want::Any),
            8 => self.record(depth),
            9 => self.call(depth),
            10 => self.clock_wrapper(),
            _ => self.known_call(depth),
        }
    }

    fn unary(&mut self, depth: u32, want: Want) -> String {
        let op = match want {
            Want::Bool => *self.rng.pick(&["!", "!", "-", "~"]),
            Want::Int => *self.rng.pick(&["-", "~", "+"]),
            _ => *self.rng.pick(&["-", "+", "!", "~"]),
        };
        let inner_want = if op == "!" { Want::Bool } else { want };
        let e = self.operand(depth, inner_want);
        // A space keeps `- -1` from being read as something else, and tests that
        // white space between an operator and its operand is insignificant.
        if e.starts_with(['-', '+', '!', '~']) || self.rng.one_in(3) {
            format!("{op} {e}")
        } else {
            format!("{op}{e}")
        }
    }

    fn binary(&mut self, depth: u32, want: Want) -> String {
        let group = match want {
            Want::Bool => *self.rng.pick(&[COMPARE, COMPARE, META, LOGIC, LOGIC]),
            Want::Num => *self.rng.pick(&[ARITH, ARITH, ARITH, BITS]),
            Want::Int => *self.rng.pick(&[ARITH, BITS, BITS]),
            Want::Str | Want::Any => *self.rng.pick(BINARY_SPELLINGS),
        };
        let op = *self.rng.pick(group);
        let operand_want = if self.rng.one_in(8) {
            Want::Any
        } else if group == ARITH {
            *self.rng.pick(&[Want::Num, Want::Int])
        } else if group == BITS {
            Want::Int
        } else if group == COMPARE {
            *self.rng.pick(&[Want::Num, Want::Num, Want::Str])
        } else if group == LOGIC {
            Want::Bool
        } else {
            Want::Any
        };
        if (group == COMPARE || group == META) && self.rng.one_in(4) {
            // A run-time value against one known at compile time: `CmpK`, or
            // `CmpTK` for a TARGET attribute, with the constant on either side.
            let (x, k) = (self.runtime_ref(), self.known(Arg::Any));
            return if self.rng.one_in(2) {
                format!("{x} {op} {k}")
            } else {
                format!("{k} {op} {x}")
            };
        }
        let l = self.operand(depth, operand_want);
        let r = self.operand(depth, operand_want);
        format!("{l} {op} {r}")
    }

    /// An expression that can be followed by `[..]`, `.name` or `?:` without
    /// parentheses changing its meaning.
    fn postfix_base(&mut self, depth: u32) -> String {
        match self.rng.below(6) {
            0 => self.list(depth, Want::Any),
            1 => self.record(depth),
            2 | 3 => self.reference(),
            4 => self.call(depth),
            _ => format!("({})", self.expr(depth + 1, Want::Any)),
        }
    }

    fn subscript(&mut self, depth: u32) -> String {
        let base = self.postfix_base(depth);
        let index = match self.rng.below(6) {
            0 | 1 => self.rng.range_i64(-2, 4).to_string(),
            2 => "1.7".to_string(),
            3 => self
                .rng
                .pick(&[r#""p""#, r#""P""#, r#""zz""#, r#""a""#, r#""x""#])
                .to_string(),
            _ => self.expr(depth + 1, Want::Any),
        };
        format!("{base}[{index}]")
    }

    fn select(&mut self, depth: u32) -> String {
        let base = match self.rng.below(7) {
            0 => self.record(depth),
            1 => {
                let n = self.rng.range(1, 3);
                let items: Vec<String> = (0..n).map(|_| self.record(depth + 1)).collect();
                format!("{{ {} }}", items.join(", "))
            }
            2 => format!("{}.{}", self.rng.pick(SCOPES), self.name()),
            3 => self.rng.pick(SCOPES).to_string(),
            4 => self.name(),
            _ => self.postfix_base(depth),
        };
        let field = if self.rng.one_in(2) {
            self.rng.pick(FIELDS).to_string()
        } else {
            self.name()
        };
        format!("{base}.{field}")
    }

    fn list(&mut self, depth: u32, want: Want) -> String {
        let n = self.rng.range(0, 4);
        if n == 0 {
            return "{}".to_string();
        }
        let items: Vec<String> = (0..n).map(|_| self.expr(depth + 1, want)).collect();
        format!("{{ {} }}", items.join(", "))
    }

    fn record(&mut self, depth: u32) -> String {
        let n = self.rng.range(0, 4);
        if n == 0 {
            return "[]".to_string();
        }
        let mut fields: Vec<&'static str> = Vec::new();
        while fields.len() < n {
            let f = *self.rng.pick(FIELDS);
            if !fields.iter().any(|g| g.eq_ignore_ascii_case(f)) {
                fields.push(f);
            }
        }
        let mark = self.local.len();
        self.local.extend(fields.iter().copied());
        let body: Vec<String> = fields
            .iter()
            .map(|f| format!("{f} = {}", self.expr(depth + 1, Want::Any)))
            .collect();
        self.local.truncate(mark);
        format!("[ {} ]", body.join("; "))
    }

    fn clock_wrapper(&mut self) -> String {
        let text = if self.rng.one_in(3) {
            *self.rng.pick(CLOCK_WRAPPERS)
        } else {
            let (_, _, wrappers) = self.rng.pick(NONDETERMINISTIC);
            *self.rng.pick(wrappers)
        };
        format!("({text})")
    }

    /// An attribute name to refer to: one of the generator's names, a name bound by
    /// an enclosing record, sometimes in another case (lookups ignore case).
    fn name(&mut self) -> String {
        let n = if !self.local.is_empty() && self.rng.one_in(3) {
            self.rng.pick(&self.local).to_string()
        } else {
            self.rng.pick(self.names).to_string()
        };
        if n.starts_with('\'') {
            return n;
        }
        match self.rng.below(8) {
            0 => n.to_ascii_uppercase(),
            1 => n.to_ascii_lowercase(),
            _ => n,
        }
    }

    fn reference(&mut self) -> String {
        if self.local.contains(&"k") && self.rng.one_in(4) {
            // A record's string naming TARGET's attribute (the compiler loads it).
            return "TARGET[k]".to_string();
        }
        // Absolute `.name` is rare: with no ad around it the whole evaluation fails,
        // which would hide everything else in the expression.
        match self.rng.below(30) {
            0..=15 => self.name(),
            16..=24 => format!("{}.{}", self.rng.pick(SCOPES), self.name()),
            25 => format!(".{}", self.name()),
            _ => self.rng.pick(SPECIAL_NAMES).to_string(),
        }
    }

    /// A reference whose value is only known at run time in a match: TARGET's
    /// attribute, a bare name (MY's, else TARGET's), or MY's attribute.
    fn runtime_ref(&mut self) -> String {
        let name = self.name();
        match self.rng.below(4) {
            0 | 1 => format!("TARGET.{name}"),
            2 => name,
            _ => format!("MY.{name}"),
        }
    }

    /// An argument or operand known when the expression is compiled: a literal
    /// (undefined, error, the empty string, an empty or constant list), a constant
    /// that folds, MY's attribute (a constant when the attribute is one) or a
    /// missing one, or a constant of the kind the position wants (a delimited
    /// list, delimiters).
    fn known(&mut self, kind: Arg) -> String {
        match self.rng.below(7) {
            0 | 1 => self.rng.pick(KNOWN_VALUES).to_string(),
            2 => self.rng.pick(KNOWN_FOLDS).to_string(),
            3 => format!("MY.{}", self.name()),
            4 => {
                let scope = self.rng.pick(&["MY", "my", "self"]);
                format!("{scope}.{}", self.rng.pick(MISSING_NAMES))
            }
            5 => match kind {
                Arg::DelimList => quote(self.rng.pick_copy(DELIM_LISTS)),
                Arg::Delims => quote(self.rng.pick_copy(DELIMS)),
                Arg::List | Arg::StrListValue | Arg::NumList => {
                    self.rng.pick(&KNOWN_VALUES[KNOWN_LISTS..]).to_string()
                }
                _ => "\"\"".to_string(),
            },
            _ => self.leaf(Want::Any),
        }
    }

    fn leaf(&mut self, want: Want) -> String {
        let reference_odds = match want {
            Want::Any => 3,
            _ => 5,
        };
        if self.rng.one_in(reference_odds) {
            return self.reference();
        }
        let want = if self.rng.one_in(8) { Want::Any } else { want };
        match want {
            Want::Num => {
                if self.rng.one_in(2) {
                    self.int_lit()
                } else {
                    self.real_lit()
                }
            }
            Want::Int => self.int_lit(),
            Want::Bool => self
                .rng
                .pick(&["true", "false", "TRUE", "False"])
                .to_string(),
            Want::Str => self.str_lit(),
            Want::Any => match self.rng.weighted(&[5, 4, 5, 2, 2, 1, 2, 2]) {
                0 => self.int_lit(),
                1 => self.real_lit(),
                2 => self.str_lit(),
                3 => self
                    .rng
                    .pick(&["true", "false", "TRUE", "False"])
                    .to_string(),
                4 => self
                    .rng
                    .pick(&["undefined", "error", "UNDEFINED", "Error"])
                    .to_string(),
                5 => "{}".to_string(),
                6 => self.rng.pick(ABS_TIMES).to_string(),
                _ => self.rng.pick(REL_TIMES).to_string(),
            },
        }
    }

    fn int_lit(&mut self) -> String {
        match self.rng.below(6) {
            0 | 1 => self.rng.range_i64(-3, 12).to_string(),
            2 | 3 => self.rng.pick(INTS).to_string(),
            4 => (self.rng.next_u64() as i64).to_string(),
            _ => (self.rng.next_u64() >> 40).to_string(),
        }
    }

    fn real_lit(&mut self) -> String {
        match self.rng.below(4) {
            0 | 1 => self.rng.pick(REALS).to_string(),
            2 => {
                let x = self.rng.range_i64(-100_000, 100_000) as f64 / 1000.0;
                format!("{x:?}")
            }
            _ => loop {
                let x = f64::from_bits(self.rng.next_u64());
                if x.is_finite() {
                    break format!("{x:e}");
                }
            },
        }
    }

    fn str_lit(&mut self) -> String {
        if self.rng.one_in(2) {
            return self.rng.pick(STRINGS).to_string();
        }
        const PIECES: &[&str] = &[
            "a", "B", "z", "0", "9", " ", ",", ".", "@", "-", "_", "é", r"\n", r"\t", r"\\",
            r#"\""#, r"\101", "%", "$", "'",
        ];
        let n = self.rng.range(0, 8);
        let body: String = (0..n).map(|_| *self.rng.pick(PIECES)).collect();
        format!("\"{body}\"")
    }

    fn call(&mut self, depth: u32) -> String {
        let b: &Builtin = self.rng.pick(BUILTINS);
        let max = b.args.len();
        let mut argc = if b.variadic {
            self.rng.range(b.min, b.min + 3)
        } else {
            self.rng.range(b.min, max)
        };
        if self.rng.one_in(12) {
            // A wrong arity: one too few when that does not make a clock reading.
            argc = if b.min > 1 || (b.min == 1 && !b.clock_when_empty) {
                b.min - 1
            } else if b.variadic {
                argc
            } else {
                max + 1
            };
        }
        let name = match self.rng.below(10) {
            0 => b.name.to_ascii_lowercase(),
            1 => b.name.to_ascii_uppercase(),
            _ => b.name.to_string(),
        };
        let binds_record_fields = matches!(b.name, "evalInEachContext" | "countMatches");
        let mark = self.local.len();
        if binds_record_fields {
            self.local.extend(["a", "b", "k"]);
        }
        let args: Vec<String> = (0..argc)
            .map(|i| {
                let kind = b.args.get(i).or(b.args.last()).copied().unwrap_or(Arg::Any);
                self.arg(kind, depth)
            })
            .collect();
        self.local.truncate(mark);
        format!("{name}({})", args.join(", "))
    }

    /// A call whose first argument is only known at run time and whose others
    /// are mostly known at compile time: the shapes the VM specialises (a
    /// membership test in a constant collection, a call cached per TARGET, a
    /// folded argument), with undefined, error, empty strings and lists among the
    /// compile-time values. Half are the membership builtins, whose list argument
    /// makes a constant set.
    fn known_call(&mut self, depth: u32) -> String {
        const MEMBERSHIP: &[&str] = &[
            "stringListMember",
            "stringListIMember",
            "member",
            "identicalMember",
        ];
        let b: &Builtin = if self.rng.one_in(2) {
            let name = *self.rng.pick(MEMBERSHIP);
            BUILTINS
                .iter()
                .find(|b| b.name == name)
                .expect("the membership builtins are in the table")
        } else {
            self.rng.pick(BUILTINS)
        };
        let argc = if b.variadic {
            self.rng.range(b.min.max(1), b.min + 3)
        } else {
            self.rng.range(b.min, b.args.len())
        };
        let args: Vec<String> = (0..argc)
            .map(|i| {
                let kind = b.args.get(i).or(b.args.last()).copied().unwrap_or(Arg::Any);
                match (i, self.rng.below(3)) {
                    (0, 0 | 1) => self.runtime_ref(),
                    (_, 0 | 1) => self.known(kind),
                    _ => self.arg(kind, depth),
                }
            })
            .collect();
        format!("{}({})", b.name, args.join(", "))
    }

    fn arg(&mut self, kind: Arg, depth: u32) -> String {
        if kind != Arg::AttrRef {
            // Any builtin's argument may be known at compile time (the VM then
            // specialises the call: a constant set, folding), or only at run time
            // (a TARGET-only call is cached per TARGET).
            match self.rng.below(14) {
                0 | 1 => return self.expr(depth + 1, Want::Any),
                2 | 3 => return self.known(kind),
                4 => return self.runtime_ref(),
                _ => {}
            }
        }
        let pool = |g: &mut Self, xs: &[&str]| quote(g.rng.pick_copy(xs));
        match kind {
            Arg::Any => self.expr(depth + 1, Want::Any),
            Arg::Num => self.expr(depth + 1, Want::Num),
            Arg::Int => self.expr(depth + 1, Want::Int),
            Arg::Str => {
                if self.rng.one_in(2) {
                    self.str_lit()
                } else {
                    self.expr(depth + 1, Want::Str)
                }
            }
            Arg::Bool => self.expr(depth + 1, Want::Bool),
            Arg::List => self.list(depth, Want::Any),
            Arg::NumList => self.list(depth, Want::Num),
            Arg::StrListValue => self.list(depth, Want::Str),
            Arg::RecordList => {
                let n = self.rng.range(0, 3);
                let items: Vec<String> = (0..n)
                    .map(|_| {
                        let a = self.int_lit();
                        let b = self.leaf(Want::Any);
                        match self.rng.below(4) {
                            0 => format!("[a = {a}]"),
                            1 => format!("[b = {b}]"),
                            2 => format!("[a = {a}; b = {b}]"),
                            _ => {
                                let k = self.rng.pick(self.names).to_string();
                                format!("[a = {a}; k = \"{k}\"]")
                            }
                        }
                    })
                    .collect();
                format!("{{ {} }}", items.join(", "))
            }
            Arg::DelimList => pool(self, DELIM_LISTS),
            Arg::Delims => pool(self, DELIMS),
            Arg::Pattern => pool(self, REGEXES),
            Arg::RegexOpts => pool(self, REGEX_OPTS),
            Arg::Subst => pool(self, SUBSTS),
            Arg::VersionText => pool(self, VERSIONS),
            Arg::AbsTime => match self.rng.below(3) {
                0 => self.rng.pick(ABS_TIMES).to_string(),
                1 => self.int_lit(),
                _ => self.expr(depth + 1, Want::Num),
            },
            Arg::RelTime => match self.rng.below(3) {
                0 => self.rng.pick(REL_TIMES).to_string(),
                1 => self.int_lit(),
                _ => self.real_lit(),
            },
            Arg::AbsText => match self.rng.below(3) {
                0 => self.int_lit(),
                _ => pool(self, ABS_TEXTS),
            },
            Arg::RelText => match self.rng.below(3) {
                0 => self.real_lit(),
                _ => pool(self, REL_TEXTS),
            },
            Arg::TimeFormat => pool(self, TIME_FORMATS),
            Arg::Offset => self.rng.pick(OFFSETS).to_string(),
            Arg::CmpOp => pool(self, CMP_OPS),
            Arg::AttrRef => {
                if self.rng.one_in(8) {
                    self.expr(depth + 1, Want::Any)
                } else {
                    self.reference()
                }
            }
            Arg::ExprText => {
                if self.rng.one_in(3) {
                    pool(self, EXPR_TEXTS)
                } else {
                    // Source text of a smaller expression, quoted: `eval` parses it at
                    // run time in the caller's scope.
                    let saved = self.max_depth;
                    self.max_depth = self.max_depth.min(depth + 3);
                    let inner = self.expr(depth + 1, Want::Any);
                    self.max_depth = saved;
                    quote(&inner)
                }
            }
            Arg::Env => pool(self, ENVS),
            Arg::Args => pool(self, ARGS),
            Arg::AtName => pool(self, AT_NAMES),
        }
    }
}

/// Generates text with `make` until it parses; the generator writes valid syntax
/// almost always, and a rare miss (a literal out of range, say) is simply redrawn.
pub fn parsing(rng: &mut Rng, mut make: impl FnMut(&mut Rng) -> String) -> String {
    let mut last = String::new();
    for _ in 0..100 {
        last = make(rng);
        if parse_expr(&last).is_ok() {
            return last;
        }
    }
    panic!("the generator made 100 texts in a row that do not parse; last: {last}")
}

/// Stream number of standalone expression cases.
pub const EXPR_STREAM: u64 = 1;

/// A standalone expression case.
#[derive(Clone)]
pub struct ExprCase {
    /// The case's own seed.
    pub seed: u64,
    /// Its index in the corpus.
    pub index: usize,
    /// The expression text (it parses).
    pub text: String,
}

/// Standalone expression case `index` under master seed `master`.
pub fn expr_case(master: u64, index: usize) -> ExprCase {
    let (seed, mut rng) = Rng::for_case(master, EXPR_STREAM, index as u64);
    let text = parsing(&mut rng, |rng| {
        Gen::new(rng, ALONE_NAMES, EXPR_LIMITS).top(Want::Any)
    });
    ExprCase { seed, index, text }
}

impl fmt::Display for ExprCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "# expression case {} (seed {:#018x})\nclassad eval {}",
            self.index,
            self.seed,
            shell_quote(&self.text)
        )
    }
}

// Debug is the reproduction text too, so `{:?}` in an assertion is pasteable.
impl fmt::Debug for ExprCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
