//! Scopes: the chain of ads an unscoped name is looked up in, as HTCondor walks it.
//!
//! HTCondor evaluates a match by nesting both ads in a match ad:
//! `[LEFT = job; RIGHT = machine; lCtx = [my = .LEFT; target = .RIGHT; ...]; ...]`,
//! with the job's parent scope `lCtx` and `lCtx`'s parent the match ad. We model the
//! same chain with frames, so `MY`, `TARGET`, `other`, `parent`, `toplevel` and the
//! old-semantics fallback resolve exactly as HTCondor resolves them.

use crate::ad::ClassAd;
use crate::syntax::ast::{ExprRef, Node};
use classad_vm::ops::cmp_ignore_case;
use std::cmp::Ordering;
use std::sync::Arc;

/// Which side of a match an ad is on. HTCondor puts the job on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The job (`LEFT`).
    Left,
    /// The machine (`RIGHT`).
    Right,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// Two ads put in a match context.
#[derive(Debug)]
pub struct MatchPair {
    /// The left ad (the job, in HTCondor's `IsAMatch`).
    pub left: Arc<ClassAd>,
    /// The right ad (the machine).
    pub right: Arc<ClassAd>,
}

impl MatchPair {
    /// The ad on `side`.
    pub fn ad(&self, side: Side) -> &Arc<ClassAd> {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }
}

/// What a scope frame is.
#[derive(Clone, Debug)]
pub enum Frame {
    /// A ClassAd document.
    Ad(Arc<ClassAd>),
    /// A record literal `[ ... ]` inside an expression.
    Record(ExprRef),
    /// The context ad of one side of a match (`lCtx` / `rCtx`): names `my`, `ad`,
    /// `target` and `other`.
    Ctx(Arc<MatchPair>, Side),
    /// The match ad: `LEFT`, `RIGHT`, `lCtx`, `rCtx`, `symmetricMatch` and friends.
    Match(Arc<MatchPair>),
}

/// One ad in a scope chain, with its lexical parent.
#[derive(Clone, Debug)]
pub struct Scope {
    /// The ad itself.
    pub frame: Frame,
    /// The enclosing scope; `None` at the root.
    pub parent: Option<Arc<Scope>>,
    /// Old-semantics fallback: where an unscoped name missing from the whole chain is
    /// looked up next (the other ad of a match).
    pub alternate: Option<(Arc<MatchPair>, Side)>,
}

/// What looking a name up in one frame found.
#[derive(Clone, Debug)]
pub enum Found {
    /// An expression, to be evaluated in the given scope.
    Expr(ExprRef, Arc<Scope>),
    /// An ad itself (the scope it opens).
    Ad(Arc<Scope>),
    /// A value computed by the lookup itself (old semantics' `CurrentTime`).
    Value(classad_vm::Value),
}

/// Names every frame of the match ad knows (HTCondor's `MatchClassAd`).
pub const MATCH_EXPRS: [(&str, &str); 5] = [
    ("symmetricMatch", "RIGHT.requirements && LEFT.requirements"),
    ("leftMatchesRight", "RIGHT.requirements"),
    ("rightMatchesLeft", "LEFT.requirements"),
    ("leftRankValue", "LEFT.rank"),
    ("rightRankValue", "RIGHT.rank"),
];

impl Scope {
    /// The same ad with no enclosing scope and no fallback: what HTCondor's
    /// copies and detached records see.
    pub fn alone(&self) -> Arc<Scope> {
        Arc::new(Scope {
            frame: self.frame.clone(),
            parent: None,
            alternate: None,
        })
    }

    /// The scope of a lone ad: no parent, no fallback.
    pub fn of_ad(ad: Arc<ClassAd>) -> Arc<Scope> {
        Arc::new(Scope {
            frame: Frame::Ad(ad),
            parent: None,
            alternate: None,
        })
    }

    /// The match ad's own scope.
    pub fn of_match(pair: &Arc<MatchPair>) -> Arc<Scope> {
        Arc::new(Scope {
            frame: Frame::Match(pair.clone()),
            parent: None,
            alternate: None,
        })
    }

    /// The scope of the context ad of `side` (`lCtx` or `rCtx`).
    pub fn of_ctx(pair: &Arc<MatchPair>, side: Side) -> Arc<Scope> {
        Arc::new(Scope {
            frame: Frame::Ctx(pair.clone(), side),
            parent: Some(Scope::of_match(pair)),
            alternate: None,
        })
    }

    /// The scope of the ad on `side` of a match: parent is its context ad, and in
    /// old-semantics mode (HTCondor's daemons) unscoped names fall back to the other ad.
    pub fn of_side(pair: &Arc<MatchPair>, side: Side, old_semantics: bool) -> Arc<Scope> {
        Arc::new(Scope {
            frame: Frame::Ad(pair.ad(side).clone()),
            parent: Some(Scope::of_ctx(pair, side)),
            alternate: old_semantics.then(|| (pair.clone(), side.other())),
        })
    }

    /// What identifies this chain of scopes: each frame (the ad, record literal,
    /// context or match ad it is, by identity) and each frame's old-semantics
    /// fallback, from this scope to the root. Two chains with the same identity
    /// resolve every name alike.
    pub fn identity(&self) -> ScopeIdentity {
        let mut out = ScopeIdentity::new();
        let mut cur = Some(self);
        while let Some(s) = cur {
            out.push(frame_identity(&s.frame));
            out.push(match &s.alternate {
                Some((pair, side)) => (Arc::as_ptr(pair) as usize, *side as u32),
                None => (0, 0),
            });
            cur = s.parent.as_deref();
        }
        out
    }

    /// The outermost scope of this chain (HTCondor's `rootAd`).
    pub fn root(self: &Arc<Scope>) -> Arc<Scope> {
        let mut cur = self.clone();
        while let Some(p) = cur.parent.clone() {
            cur = p;
        }
        cur
    }

    /// Looks `name` up in this frame only.
    pub fn lookup_local(self: &Arc<Scope>, name: &str, old_semantics: bool) -> Option<Found> {
        match &self.frame {
            Frame::Ad(ad) => {
                super::reads::note_ad_read();
                ad.get(name)
                    .map(|e| Found::Expr(e.to_expr_ref(), self.clone()))
            }
            Frame::Record(r) => record_attr(r, name).map(|e| Found::Expr(e, self.clone())),
            Frame::Ctx(pair, side) => {
                let which = if eq_ic(name, "my") || eq_ic(name, "ad") {
                    *side
                } else if eq_ic(name, "target") || eq_ic(name, "other") {
                    side.other()
                } else {
                    return None;
                };
                Some(Found::Ad(Scope::of_side(pair, which, old_semantics)))
            }
            Frame::Match(pair) => {
                if eq_ic(name, "LEFT") {
                    Some(Found::Ad(Scope::of_side(pair, Side::Left, old_semantics)))
                } else if eq_ic(name, "RIGHT") {
                    Some(Found::Ad(Scope::of_side(pair, Side::Right, old_semantics)))
                } else if eq_ic(name, "lCtx") {
                    Some(Found::Ad(Scope::of_ctx(pair, Side::Left)))
                } else if eq_ic(name, "rCtx") {
                    Some(Found::Ad(Scope::of_ctx(pair, Side::Right)))
                } else {
                    let i = MATCH_EXPRS.iter().position(|(n, _)| eq_ic(n, name))?;
                    Some(Found::Expr(match_expr(i), self.clone()))
                }
            }
        }
    }

    /// The names this frame defines, in HTCondor's order, with what they hold.
    pub fn attributes(self: &Arc<Scope>, old_semantics: bool) -> Vec<(String, Found)> {
        let names: Vec<String> = match &self.frame {
            Frame::Ad(ad) => {
                super::reads::note_ad_read();
                ad.iter().map(|(n, _)| n.to_string()).collect()
            }
            Frame::Record(r) => record_names(r),
            Frame::Ctx(..) => ["ad", "my", "other", "target"].map(String::from).to_vec(),
            Frame::Match(_) => {
                let mut v: Vec<String> = ["LEFT", "RIGHT", "lCtx", "rCtx"]
                    .iter()
                    .chain(MATCH_EXPRS.iter().map(|(n, _)| n))
                    .map(|s| s.to_string())
                    .collect();
                v.sort_by(|a, b| crate::ad::classad::attr_order(a, b));
                v
            }
        };
        names
            .into_iter()
            .filter_map(|n| {
                let f = self.lookup_local(&n, old_semantics)?;
                Some((n, f))
            })
            .collect()
    }
}

/// A parsed expression of the match ad, built once.
/// See [`Scope::identity`]: a pair of words per frame and per fallback.
pub type ScopeIdentity = smallvec::SmallVec<[(usize, u32); 8]>;

/// A frame by identity: the address of what it is, and which part of it.
pub fn frame_identity(frame: &Frame) -> (usize, u32) {
    match frame {
        Frame::Ad(ad) => (Arc::as_ptr(ad) as usize, u32::MAX),
        Frame::Record(r) => (Arc::as_ptr(&r.tree) as usize, r.id),
        Frame::Ctx(pair, side) => (Arc::as_ptr(pair) as usize, *side as u32),
        Frame::Match(pair) => (Arc::as_ptr(pair) as usize, u32::MAX - 1),
    }
}

fn match_expr(i: usize) -> ExprRef {
    use std::sync::OnceLock;
    static EXPRS: OnceLock<Vec<ExprRef>> = OnceLock::new();
    EXPRS.get_or_init(|| {
        MATCH_EXPRS
            .iter()
            .map(|(_, src)| {
                let e = crate::syntax::parse_expr(src).expect("built-in match expression");
                ExprRef::root_of(Arc::new(e))
            })
            .collect()
    })[i]
        .clone()
}

fn eq_ic(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// The expression of attribute `name` in a record literal; a repeated name's last
/// definition wins, as in HTCondor.
pub fn record_attr(r: &ExprRef, name: &str) -> Option<ExprRef> {
    let Node::Record(attrs) = r.node() else {
        return None;
    };
    attrs
        .iter()
        .rev()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, id)| r.child(*id))
}

/// The distinct attribute names of a record literal, first spelling kept, in
/// HTCondor's order.
pub fn record_names(r: &ExprRef) -> Vec<String> {
    let Node::Record(attrs) = r.node() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for (n, _) in attrs {
        if !names.iter().any(|m| m.eq_ignore_ascii_case(n)) {
            names.push(n.to_string());
        }
    }
    names.sort_by(|a, b| {
        a.len()
            .cmp(&b.len())
            .then_with(|| cmp_ignore_case(a, b))
            .then(Ordering::Equal)
    });
    names
}
