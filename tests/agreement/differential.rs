//! Differential tests: a seeded random corpus of expressions and job/machine ad
//! pairs (see `tests/gen/`) evaluated by two engines, whose results must agree to
//! the last printed digit: standalone expressions, expressions in a match of two
//! ads, every attribute of both ads, `symmetric_match` both ways and `rank` both
//! ways.
//!
//! Environment: `DIFF_SEED` picks another master seed (decimal or `0x` hex);
//! `DIFF_CASES` scales the number of cases (a factor: `0.1`, `10`); `DIFF_TRACE`
//! prints each case before it runs (with `--nocapture`), to find a case that aborts
//! the process (a stack overflow cannot be caught).
//!
//! A mismatch prints the case's seed, its expression and ad texts (ready to paste
//! into `classad eval`) and both results.

use crate::gen;

use classad::ad::parse_classad;
use classad::ad::ClassAd;
use classad::engine::{eval_alone_with, eval_in_with, Engine};
use classad::eval::independent::IndependentParts;
use classad::eval::{eval_alone, eval_in, Fail, Semantics};
use classad::matching::{rank, symmetric_match, CompiledPool};
use classad::syntax::ast::{BinOp, Expr, ExprRef, Node, UnOp};
use classad::syntax::parse_expr;
use classad::values::display::unparse_value;
use classad::Value;
use classad_vm::instr::{form, Operands};
use classad_vm::{ConstSet, Machine, Op, Program, SlotTable};
use gen::builtins::{family_of, BUILTINS, CLOCK_WRAPPERS, FAMILIES, NONDETERMINISTIC};
use gen::{expr_case, master_seed, pair_case, scaled, ExprCase, PairCase, Sides};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

// The engines under comparison: the reference evaluator and the bytecode VM (which
// hands back to the reference only what it cannot run natively).

fn ref_eval_alone(e: &Expr) -> Result<Value, Fail> {
    eval_alone(e, Semantics::Htcondor)
}

fn vm_eval_alone(e: &Expr) -> Result<Value, Fail> {
    eval_alone_with(Engine::Vm, e, Semantics::Htcondor)
}

fn ref_eval(e: &ExprRef, my: &Arc<ClassAd>, target: Option<&Arc<ClassAd>>) -> Result<Value, Fail> {
    eval_in(e, my, target, Semantics::Htcondor)
}

fn vm_eval(e: &ExprRef, my: &Arc<ClassAd>, target: Option<&Arc<ClassAd>>) -> Result<Value, Fail> {
    eval_in_with(Engine::Vm, e, my, target, Semantics::Htcondor)
}

fn ref_match(job: &Arc<ClassAd>, machine: &Arc<ClassAd>) -> bool {
    symmetric_match(job, machine, Semantics::Htcondor)
}

fn vm_match(job: &Arc<ClassAd>, machine: &Arc<ClassAd>) -> bool {
    let pool = CompiledPool::new(std::slice::from_ref(job), std::slice::from_ref(machine));
    pool.symmetric_match(&mut Machine::new(), 0, 0)
}

fn ref_rank(my: &Arc<ClassAd>, other: &Arc<ClassAd>) -> f64 {
    rank(my, other, Semantics::Htcondor)
}

fn vm_rank(my: &Arc<ClassAd>, other: &Arc<ClassAd>) -> f64 {
    // A pool of one job (`my`) and one machine (`other`): the job side's rank.
    let pool = CompiledPool::new(std::slice::from_ref(my), std::slice::from_ref(other));
    pool.rank(&mut Machine::new(), 0, 0, true)
}

/// With `DIFF_TRACE` set, each case is printed before it runs: a stack overflow
/// aborts the process before any report, and the last case printed is the culprit.
fn trace(case: &dyn std::fmt::Display) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("DIFF_TRACE").is_some()) {
        eprintln!("{case}");
    }
}

/// Corpus sizes before `DIFF_CASES` scaling.
const EXPR_CASES: usize = 20_000;
const PAIR_CASES: usize = 3_000;

/// How many mismatches a failure message shows in full.
const SHOWN: usize = 10;

/// An evaluation outcome as comparable text: the value as HTCondor prints it (so
/// reals compare through their printed digits, `-0.0` and NaN included), or the
/// failure.
fn outcome(r: Result<Value, Fail>) -> String {
    match r {
        Ok(v) => unparse_value(&v),
        Err(Fail) => "<evaluation failed>".to_string(),
    }
}

/// Runs `f`, turning a panic into an outcome text so the case that caused it is
/// reported with its seed rather than lost in a bare panic.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic".to_string());
        format!("<panicked: {msg}>")
    })
}

/// Both engines' outcomes of one evaluation, panics included; `None` when they agree.
fn both<T: PartialEq + std::fmt::Display>(
    reference: impl FnOnce() -> T,
    vm: impl FnOnce() -> T,
) -> Option<(String, String)> {
    let r = guarded(reference);
    let v = guarded(vm);
    match (&r, &v) {
        (Ok(a), Ok(b)) if a == b => None,
        _ => Some((show(r), show(v))),
    }
}

fn show<T: std::fmt::Display>(r: Result<T, String>) -> String {
    match r {
        Ok(x) => x.to_string(),
        Err(p) => p,
    }
}

/// Mismatches found by one test, reported together at the end so one run shows
/// how widespread a difference is.
#[derive(Default)]
struct Mismatches {
    count: usize,
    shown: String,
}

impl Mismatches {
    fn record(&mut self, what: &str, case: &dyn std::fmt::Display, (r, v): (String, String)) {
        self.count += 1;
        if self.count <= SHOWN {
            let _ = write!(
                self.shown,
                "\n--- mismatch {}: {what}\n{case}\n  reference: {r}\n  vm:        {v}\n",
                self.count
            );
        }
    }

    fn check(self, test: &str, cases: usize) {
        assert!(
            self.count == 0,
            "{test}: {} of {cases} cases differ between the engines (master seed {:#x}; \
             the first {} follow){}",
            self.count,
            master_seed(),
            self.count.min(SHOWN),
            self.shown
        );
    }
}

fn parse_case_expr(text: &str) -> Arc<Expr> {
    Arc::new(parse_expr(text).unwrap_or_else(|e| panic!("generated text must parse: {text}: {e}")))
}

fn parse_case_ad(text: &str) -> Arc<ClassAd> {
    Arc::new(parse_classad(text).unwrap_or_else(|e| panic!("generated ad must parse: {text}: {e}")))
}

fn expr_corpus() -> Vec<ExprCase> {
    let master = master_seed();
    (0..scaled(EXPR_CASES))
        .map(|i| expr_case(master, i))
        .collect()
}

fn pair_corpus() -> Vec<PairCase> {
    let master = master_seed();
    (0..scaled(PAIR_CASES))
        .map(|i| pair_case(master, i))
        .collect()
}

#[test]
fn expressions_alone_agree() {
    let corpus = expr_corpus();
    let mut bad = Mismatches::default();
    // Outcome kinds, to catch a generator that only makes errors.
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &corpus {
        trace(case);
        let e = parse_case_expr(&case.text);
        let r = guarded(|| outcome(ref_eval_alone(&e)));
        *kinds
            .entry(kind_of(r.as_deref().unwrap_or("<panicked")))
            .or_default() += 1;
        if let Some(diff) = both(
            || outcome(ref_eval_alone(&e)),
            || outcome(vm_eval_alone(&e)),
        ) {
            bad.record("standalone expression", case, diff);
        }
    }
    println!("standalone outcomes: {kinds:?}");
    let informative =
        corpus.len() - kinds.get("error").unwrap_or(&0) - kinds.get("undefined").unwrap_or(&0);
    assert!(
        informative * 100 >= corpus.len() * 30,
        "the generator has degraded: only {informative} of {} expressions give something other \
         than error or undefined ({kinds:?})",
        corpus.len()
    );
    bad.check("expressions_alone_agree", corpus.len());
}

/// A coarse kind of a printed outcome.
fn kind_of(printed: &str) -> &'static str {
    match printed.as_bytes().first() {
        _ if printed == "error" => "error",
        _ if printed == "undefined" => "undefined",
        _ if printed == "true" || printed == "false" => "boolean",
        Some(b'"') => "string",
        Some(b'{') => "list",
        Some(b'[') => "ad",
        Some(b'<') => "failure",
        Some(b'0'..=b'9' | b'-') if printed.contains(['.', 'E']) => "real",
        Some(b'0'..=b'9' | b'-') => "integer",
        _ => "other",
    }
}

/// One evaluation inside a pair, described for a mismatch report.
struct InPair<'a> {
    case: &'a PairCase,
    /// The command that shows the evaluation that differed.
    command: String,
}

impl std::fmt::Display for InPair<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}# the evaluation that differs:\n{}",
            self.case, self.command
        )
    }
}

#[test]
fn expressions_in_ads_agree() {
    let corpus = pair_corpus();
    let mut bad = Mismatches::default();
    let mut evaluations = 0;
    for case in &corpus {
        trace(case);
        let job = parse_case_ad(&case.job);
        let machine = parse_case_ad(&case.machine);
        for pe in &case.exprs {
            let (my, target) = match pe.sides {
                Sides::JobMachine => (&job, Some(&machine)),
                Sides::MachineJob => (&machine, Some(&job)),
                Sides::JobAlone => (&job, None),
            };
            let e = ExprRef::root_of(parse_case_expr(&pe.text));
            evaluations += 1;
            if let Some(diff) = both(
                || outcome(ref_eval(&e, my, target)),
                || outcome(vm_eval(&e, my, target)),
            ) {
                let command = pe.command();
                bad.record("expression in a match", &InPair { case, command }, diff);
            }
        }
        // Every attribute of each ad, in its own ad matched against the other.
        for (sides, my, other) in [
            (Sides::JobMachine, &job, &machine),
            (Sides::MachineJob, &machine, &job),
        ] {
            for (name, e) in my.iter() {
                let e = &e.to_expr_ref();
                evaluations += 1;
                if let Some(diff) = both(
                    || outcome(ref_eval(e, my, Some(other))),
                    || outcome(vm_eval(e, my, Some(other))),
                ) {
                    let command = format!(
                        "classad eval {} {}",
                        sides.options(),
                        gen::shell_quote(name.as_str())
                    );
                    bad.record("attribute in a match", &InPair { case, command }, diff);
                }
            }
        }
    }
    bad.check("expressions_in_ads_agree", evaluations);
}

/// Rank results compared by bit pattern, except that every NaN is the same NaN.
struct RankBits(f64);

impl PartialEq for RankBits {
    fn eq(&self, other: &RankBits) -> bool {
        (self.0.is_nan() && other.0.is_nan()) || self.0.to_bits() == other.0.to_bits()
    }
}

impl std::fmt::Display for RankBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} (bits {:#018x})", self.0, self.0.to_bits())
    }
}

#[test]
fn matches_and_ranks_agree() {
    let corpus = pair_corpus();
    let mut bad = Mismatches::default();
    let mut matched = 0;
    for case in &corpus {
        trace(case);
        let job = parse_case_ad(&case.job);
        let machine = parse_case_ad(&case.machine);
        for (command, left, right) in [
            (
                "classad match --all-pairs --jobs job.ad --machines machine.ad",
                &job,
                &machine,
            ),
            (
                "classad match --all-pairs --jobs machine.ad --machines job.ad",
                &machine,
                &job,
            ),
        ] {
            if let Some(diff) = both(|| ref_match(left, right), || vm_match(left, right)) {
                let command = command.to_string();
                bad.record("symmetric match", &InPair { case, command }, diff);
            }
        }
        if guarded(|| ref_match(&job, &machine)).unwrap_or(false) {
            matched += 1;
        }
        for (sides, my, other) in [
            (Sides::JobMachine, &job, &machine),
            (Sides::MachineJob, &machine, &job),
        ] {
            if let Some(diff) = both(
                || RankBits(ref_rank(my, other)),
                || RankBits(vm_rank(my, other)),
            ) {
                let command = format!("classad eval {} Rank", sides.options());
                bad.record("rank", &InPair { case, command }, diff);
            }
        }
    }
    println!("{matched} of {} pairs match", corpus.len());
    // A corpus where nothing (or everything) matches would not test matching.
    assert!(
        matched * 100 >= corpus.len() * 5 && matched * 100 <= corpus.len() * 95,
        "the generator has degraded: {matched} of {} pairs match",
        corpus.len()
    );
    bad.check("matches_and_ranks_agree", corpus.len() * 4);
}

/// The compiled pool's blocked walk over all pairs (and its per-machine cache)
/// against brute force, on pools of generated ads: the `pool_vs_pairs` fuzz
/// target's property, as a seeded test.
#[test]
fn pools_match_as_brute_force() {
    const SIDE: usize = 8;
    let corpus = pair_corpus();
    let mut pairs = 0;
    for (p, group) in corpus.chunks(SIDE).enumerate() {
        let jobs: Vec<_> = group.iter().map(|c| parse_case_ad(&c.job)).collect();
        let machines: Vec<_> = group.iter().map(|c| parse_case_ad(&c.machine)).collect();
        let mut brute = Vec::new();
        for (j, job) in jobs.iter().enumerate() {
            for (m, machine) in machines.iter().enumerate() {
                if ref_match(job, machine) {
                    brute.push((j, m));
                }
            }
        }
        pairs += jobs.len() * machines.len();
        let pool = CompiledPool::new(&jobs, &machines);
        let mut vm = Machine::new();
        for round in 0..2 {
            assert_eq!(
                pool.all_pairs(&mut vm),
                brute,
                "pool {p} (pair cases {}..), round {round}",
                group[0].index
            );
        }
    }
    println!("{pairs} pairs in pools of {SIDE} x {SIDE}");
}

/// As [`pools_match_as_brute_force`], on a pool of several blocks a side (with a
/// partial last block), so that blocks stay open across each other, columns and
/// string identities are shared between blocks, and the matches of each job are
/// gathered from every block of machines.
#[test]
fn pools_of_many_blocks_match_as_brute_force() {
    const SIDE: usize = 150;
    let corpus = pair_corpus();
    assert!(corpus.len() >= 2 * SIDE);
    let jobs: Vec<_> = corpus[..SIDE]
        .iter()
        .map(|c| parse_case_ad(&c.job))
        .collect();
    let machines: Vec<_> = corpus[SIDE..2 * SIDE]
        .iter()
        .map(|c| parse_case_ad(&c.machine))
        .collect();
    let mut brute = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (m, machine) in machines.iter().enumerate() {
            if ref_match(job, machine) {
                brute.push((j, m));
            }
        }
    }
    assert!(brute.len() > SIDE, "a pool with matches: {}", brute.len());
    let pool = CompiledPool::new(&jobs, &machines);
    let mut vm = Machine::new();
    for round in 0..2 {
        assert_eq!(pool.all_pairs(&mut vm), brute, "round {round}");
    }
}

#[test]
fn the_generator_is_deterministic() {
    let master = master_seed();
    for i in [0, 1, 17, 999] {
        assert_eq!(expr_case(master, i).text, expr_case(master, i).text);
        let (a, b) = (pair_case(master, i), pair_case(master, i));
        let texts = |c: &PairCase| c.exprs.iter().map(|e| e.text.clone()).collect::<Vec<_>>();
        assert_eq!(
            (&a.job, &a.machine, texts(&a)),
            (&b.job, &b.machine, texts(&b))
        );
    }
    let distinct: BTreeSet<String> = (0..200).map(|i| expr_case(master, i).text).collect();
    assert!(
        distinct.len() > 150,
        "cases repeat: {} distinct of 200",
        distinct.len()
    );
    assert_ne!(expr_case(master, 0).text, expr_case(master ^ 1, 0).text);
}

/// What a walk over parsed expressions found.
#[derive(Default)]
struct Seen {
    unary: BTreeSet<String>,
    binary: BTreeSet<String>,
    nodes: BTreeSet<&'static str>,
    literals: BTreeSet<&'static str>,
    names: BTreeSet<String>,
    calls: BTreeSet<String>,
    wrong_arity: usize,
}

impl Seen {
    fn walk(&mut self, e: &Expr, id: u32) {
        let node = e.node(id);
        match node {
            Node::Lit(v) => {
                self.literals.insert(match v {
                    Value::Undefined => "undefined",
                    Value::Error => "error",
                    Value::Bool(_) => "boolean",
                    Value::Int(_) => "integer",
                    Value::Real(_) => "real",
                    Value::Str(_) => "string",
                    Value::AbsTime(_) => "absTime",
                    Value::RelTime(_) => "relTime",
                    Value::List(_) => "list value",
                    Value::Ad(_) => "ad value",
                });
            }
            Node::Attr {
                scope,
                name,
                absolute,
                ..
            } => {
                self.names.insert(name.as_str().to_string());
                if scope.is_some() {
                    self.nodes.insert("selection");
                }
                if *absolute {
                    self.nodes.insert("absolute reference");
                }
            }
            Node::Unary(op, _) => {
                self.unary.insert(format!("{op:?}"));
            }
            Node::Binary(op, _, _) => {
                self.binary.insert(format!("{op:?}"));
            }
            Node::Ternary(..) => {
                self.nodes.insert("ternary");
            }
            Node::Paren(_) => {
                self.nodes.insert("parentheses");
            }
            Node::Call { name, args } => {
                self.calls.insert(name.to_ascii_lowercase());
                let known = BUILTINS.iter().find(|b| b.name.eq_ignore_ascii_case(name));
                if let Some(b) = known {
                    if args.len() < b.min || (!b.variadic && args.len() > b.args.len()) {
                        self.wrong_arity += 1;
                    }
                }
            }
            Node::List(items) => {
                self.nodes.insert(if items.is_empty() {
                    "empty list"
                } else {
                    "list"
                });
            }
            Node::Record(fields) => {
                self.nodes.insert(if fields.is_empty() {
                    "empty record"
                } else {
                    "record"
                });
            }
        }
        node.map_children(|c| {
            self.walk(e, c);
            c
        });
    }
}

/// Every builtin registered in `src/functions/*.rs`: the string literals inside each
/// module's `register` function.
fn registered_builtins() -> BTreeSet<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/functions");
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("src/functions") {
        let path = entry.expect("directory entry").path();
        let src = std::fs::read_to_string(&path).expect("source file");
        let Some(start) = src.find("fn register(") else {
            continue;
        };
        let body = &src[start..];
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        // A name is the string literal right after `add(t, ` or opening a tuple
        // (`("getYear", Field::Year)`); other literals there are arguments.
        let pieces: Vec<&str> = body.split('"').collect();
        for i in (1..pieces.len()).step_by(2) {
            let before = pieces[i - 1];
            if before.ends_with("add(t, ") || before.ends_with('(') {
                names.insert(pieces[i].to_ascii_lowercase());
            }
        }
    }
    names
}

#[test]
fn the_generator_covers_the_language() {
    let exprs = expr_corpus();
    let pairs = pair_corpus();
    let mut seen = Seen::default();
    let mut texts: Vec<&str> = exprs.iter().map(|c| c.text.as_str()).collect();
    for p in &pairs {
        texts.extend(p.exprs.iter().map(|e| e.text.as_str()));
    }
    for text in &texts {
        let e = parse_case_expr(text);
        seen.walk(&e, e.root());
    }
    let mut missing: Vec<String> = Vec::new();
    let mut need = |ok: bool, what: String| {
        if !ok {
            missing.push(what);
        }
    };

    for op in [UnOp::Neg, UnOp::Plus, UnOp::Not, UnOp::BitNot] {
        need(
            seen.unary.contains(&format!("{op:?}")),
            format!("unary {op:?}"),
        );
    }
    let all_binary = [
        BinOp::Mul,
        BinOp::Div,
        BinOp::Mod,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::UShr,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Is,
        BinOp::Isnt,
        BinOp::BitAnd,
        BinOp::BitXor,
        BinOp::BitOr,
        BinOp::And,
        BinOp::Or,
        BinOp::Elvis,
        BinOp::Subscript,
    ];
    for op in all_binary {
        need(
            seen.binary.contains(&format!("{op:?}")),
            format!("binary {op:?}"),
        );
    }
    // `is` and `=?=` are one operator in the tree; both spellings must be written.
    for spelling in [" =?= ", " is ", " =!= ", " isnt ", " ?: ", " >>> "] {
        need(
            texts.iter().any(|t| t.contains(spelling)),
            format!("spelling {spelling:?}"),
        );
    }
    for node in [
        "selection",
        "absolute reference",
        "ternary",
        "parentheses",
        "list",
        "empty list",
        "record",
        "empty record",
    ] {
        need(seen.nodes.contains(node), node.to_string());
    }
    for lit in [
        "undefined",
        "error",
        "boolean",
        "integer",
        "real",
        "string",
        "absTime",
        "relTime",
    ] {
        need(seen.literals.contains(lit), format!("{lit} literal"));
    }
    for text in [
        "9223372036854775807",
        "-9223372036854775807 - 1",
        "-0.0",
        "1e308",
        "1.0e400",
        "5e-324",
        r#"real("NaN")"#,
        r#"real("INF")"#,
        r#"\""#,
        r"\n",
        r"\\",
        r"\101",
        "é",
        "TRUE",
        "UNDEFINED",
    ] {
        need(
            texts.iter().any(|t| t.contains(text)),
            format!("text {text:?}"),
        );
    }
    for name in [
        "MY", "TARGET", "my", "target", "self", "parent", "toplevel", "root", "other", "LEFT",
        "RIGHT",
    ] {
        need(seen.names.contains(name), format!("name {name}"));
    }
    for name in gen::ads::PAIR_NAMES {
        need(seen.names.contains(*name), format!("pair name {name}"));
    }

    // Builtins: the generator's table must be exactly the registered set, and every
    // one of them (and every family) must be called somewhere in the corpus.
    let registered = registered_builtins();
    let known: BTreeSet<String> = BUILTINS
        .iter()
        .map(|b| b.name)
        .chain(NONDETERMINISTIC.iter().map(|(n, _, _)| *n))
        .map(str::to_ascii_lowercase)
        .collect();
    for name in registered.difference(&known) {
        need(
            false,
            format!("registered builtin {name} is not in tests/gen/builtins.rs"),
        );
    }
    for name in known.difference(&registered) {
        need(
            false,
            format!("builtin {name} in tests/gen/builtins.rs is not registered"),
        );
    }
    for name in &known {
        need(seen.calls.contains(name), format!("call to {name}"));
    }
    let families: BTreeSet<_> = seen.calls.iter().filter_map(|n| family_of(n)).collect();
    for fam in FAMILIES {
        need(families.contains(&fam), format!("builtin family {fam:?}"));
    }
    need(
        seen.wrong_arity > 0,
        "a call with the wrong number of arguments".into(),
    );
    for w in CLOCK_WRAPPERS {
        need(
            texts.iter().any(|t| t.contains(w)),
            format!("clock wrapper {w}"),
        );
    }

    // Ad pairs: sizes, Requirements and Rank, nesting, MY/TARGET, cycles.
    let ad_texts: Vec<&str> = pairs
        .iter()
        .flat_map(|p| [p.job.as_str(), p.machine.as_str()])
        .collect();
    for text in &ad_texts {
        let ad = parse_case_ad(text);
        need(
            (3..=10).contains(&ad.len()),
            format!("an ad of {} attributes: {text}", ad.len()),
        );
    }
    for piece in [
        "Requirements = ",
        "Rank = ",
        "TARGET.",
        "MY.",
        "[p = ",
        "{10, 20, [k = 7]}",
        "a1 = b1 + 1",
        "selfref = selfref + 1",
        "x = TARGET.z + TARGET.x",
        "x = TARGET.y + TARGET.x",
        "toplevel.x",
        "parent.x",
    ] {
        need(
            ad_texts.iter().any(|t| t.contains(piece)),
            format!("ad text {piece:?}"),
        );
    }
    need(
        ad_texts.iter().any(|t| !t.contains("Requirements = ")),
        "an ad without Requirements".into(),
    );

    assert!(
        missing.is_empty(),
        "the corpus does not cover:\n  {}",
        missing.join("\n  ")
    );
}

/// The compile-time specialisations a program uses whose compile-time value is
/// not an ordinary one (see [`the_generator_reaches_every_specialisation`]).
fn specialisations(p: &Program, inlined: bool, seen: &mut BTreeSet<String>) {
    let mut inside = 0usize;
    let mut note = |what: String, inside: usize| {
        if inlined || inside > 0 {
            seen.insert(format!("{what} (inlined)"));
        }
        seen.insert(what);
    };
    for &ins in &p.code {
        match ins.op() {
            Op::InlineEnter => {
                inside += 1;
                note("an inlined attribute".into(), inside);
            }
            Op::InlineLeave => inside = inside.saturating_sub(1),
            Op::Member => {
                let what = match &p.sets[form::Member::of(ins).set as usize] {
                    ConstSet::Strings {
                        list_undefined: true,
                        ..
                    } => "Member in an undefined string list",
                    ConstSet::Strings { items, .. } if items.is_empty() => {
                        "Member in an empty string list"
                    }
                    ConstSet::Strings { .. } => "Member in a string list",
                    ConstSet::Values { items, .. } if items.is_empty() => "Member in an empty list",
                    ConstSet::Values { .. } => "Member in a list",
                };
                note(what.into(), inside);
            }
            Op::CmpK | Op::CmpTK => {
                let konst = match ins.operands() {
                    Operands::CmpK(c) => c.konst,
                    Operands::CmpTK(c) => c.konst,
                    _ => unreachable!("a comparison with a constant"),
                };
                let kind = match &p.consts[usize::from(konst)] {
                    Value::Undefined => "undefined",
                    Value::Error => "error",
                    Value::Str(s) if s.is_empty() => "the empty string",
                    _ => "a value",
                };
                note(format!("{:?} with {kind}", ins.op()), inside);
            }
            Op::TargetCached => note("a cached TARGET-only call".into(), inside),
            _ => {}
        }
    }
    for sub in &p.target_only {
        specialisations(&sub.code, inlined || inside > 0, seen);
    }
}

/// The generator must make the compile-time values the VM specialises on reach
/// every specialised instruction, alone and in ads (issue 9: an undefined list made
/// a constant set that read an undefined value as the empty string, and neither
/// this generator nor the fuzz targets could reach it). Checked on the compiled
/// programs themselves, so it cannot pass on shapes that compile otherwise.
#[test]
fn the_generator_reaches_every_specialisation() {
    let mut alone = BTreeSet::new();
    for case in expr_corpus() {
        let e = ExprRef::root_of(parse_case_expr(&case.text));
        let p = classad::compile::compile_expr(&e, None, &mut SlotTable::new());
        specialisations(&p, false, &mut alone);
    }
    let mut in_ads = BTreeSet::new();
    for case in pair_corpus() {
        let mut slots = SlotTable::new();
        for text in [&case.job, &case.machine] {
            let ad = parse_case_ad(text);
            let compiled = classad::compile::compile_ad(&ad, &mut slots);
            for (name, _) in ad.iter() {
                if let classad_vm::Attr::Code(p) = compiled.vm.get(slots.intern(name)) {
                    specialisations(p, false, &mut in_ads);
                }
            }
            for pe in &case.exprs {
                let e = ExprRef::root_of(parse_case_expr(&pe.text));
                let p = classad::compile::compile_expr(&e, Some(&ad), &mut slots);
                specialisations(&p, false, &mut in_ads);
            }
        }
    }
    let mut missing = Vec::new();
    let mut need = |seen: &BTreeSet<String>, what: &str, place: &str| {
        if !seen.contains(what) {
            missing.push(format!("{what} {place}"));
        }
    };
    for what in [
        "Member in an undefined string list",
        "Member in an empty string list",
        "Member in a string list",
        "Member in an empty list",
        "Member in a list",
        "CmpK with undefined",
        "CmpK with error",
        "CmpK with the empty string",
    ] {
        need(&alone, what, "alone");
    }
    for what in [
        "Member in an undefined string list",
        "Member in an undefined string list (inlined)",
        "Member in an empty string list",
        "Member in a string list",
        "Member in an empty list",
        "Member in a list",
        "CmpK with undefined",
        "CmpK with error",
        "CmpK with the empty string",
        "CmpTK with undefined",
        "CmpTK with error",
        "CmpTK with the empty string",
        "CmpTK with undefined (inlined)",
        "a cached TARGET-only call",
        "a cached TARGET-only call (inlined)",
        "an inlined attribute",
    ] {
        need(&in_ads, what, "in ads");
    }
    assert!(
        missing.is_empty(),
        "the generator does not reach:\n  {}\n(alone: {alone:?}\nin ads: {in_ads:?})",
        missing.join("\n  ")
    );
}

/// `classad query`'s constraint evaluated in ad after ad with
/// [`IndependentParts`]: what it replays of one ad's evaluation in the next must be
/// what evaluating again gives, for every generated expression (standalone ones,
/// whose closed parts are replayed, and those written for ads, which read them).
#[test]
fn constraints_over_many_ads_replay_exactly() {
    let pairs = pair_corpus();
    let ads: Vec<Arc<ClassAd>> = pairs
        .iter()
        .take(3)
        .flat_map(|c| [parse_case_ad(&c.job), parse_case_ad(&c.machine)])
        .collect();
    let texts = expr_corpus().into_iter().map(|c| c.text).chain(
        pairs
            .iter()
            .flat_map(|c| c.exprs.iter().map(|e| e.text.clone())),
    );
    // The clock moves between two evaluations: not comparable.
    let clock = |t: &str| {
        let t = t.to_ascii_lowercase();
        NONDETERMINISTIC
            .iter()
            .any(|(n, _, _)| t.contains(&n.to_ascii_lowercase()))
            || t.contains("currenttime")
    };
    let (mut bad, mut evaluations, mut replayable) = (Mismatches::default(), 0, 0);
    for text in texts.filter(|t| !clock(t)) {
        let e = ExprRef::root_of(parse_case_expr(&text));
        let mut parts = IndependentParts::new(&e);
        for (i, ad) in ads.iter().enumerate() {
            evaluations += 1;
            if let Some(diff) = both(
                || outcome(eval_in(&e, ad, None, Semantics::Htcondor)),
                || outcome(parts.eval_in(ad, Semantics::Htcondor)),
            ) {
                let case = format!(
                    "classad query --constraint {} (ad {i} of the first 3 pair cases' ads)",
                    gen::shell_quote(&text),
                );
                bad.record("a constraint over ads", &case, diff);
            }
        }
        replayable += (parts.recorded() > 0) as usize;
    }
    assert!(
        replayable > evaluations / ads.len() / 10,
        "the corpus must reach the replay: {replayable} expressions"
    );
    bad.check("constraints_over_many_ads_replay_exactly", evaluations);
}
