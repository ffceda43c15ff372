//! Small job-like and machine-like ad pairs, written as new-syntax ad text, whose
//! attributes refer to each other: `MY.`/`TARGET.` references, Requirements and
//! Rank, nested records and lists, names missing from both ads, and circular
//! references inside one ad and across the pair.

use super::expr::{parsing, quote, Gen, Limits, Want};
use super::rng::Rng;
use super::shell_quote;
use classad::ad::parse_classad;
use std::fmt;

/// Names a job ad may define.
const JOB_NAMES: &[&str] = &[
    "Owner",
    "Cmd",
    "RequestMemory",
    "RequestCpus",
    "ImageSize",
    "JobPrio",
    "x",
    "y",
    "lst",
    "rec",
    "a1",
    "b1",
    "selfref",
    "AcctGroup",
    "Groups",
];

/// Job names that machine Requirements and Rank read.
const JOB_CORE: &[&str] = &["RequestMemory", "RequestCpus", "Owner"];

/// Machine names that job Requirements and Rank read.
const MACHINE_CORE: &[&str] = &["Memory", "Cpus", "State", "Arch", "OpSys"];

/// Names a machine ad may define.
const MACHINE_NAMES: &[&str] = &[
    "Name",
    "Memory",
    "Cpus",
    "Arch",
    "OpSys",
    "State",
    "KeyboardIdle",
    "LoadAvg",
    "x",
    "z",
    "lst",
    "rec",
    "a1",
    "b1",
    "BlockedGroups",
    "Groups",
    "Start",
];

/// Every name an expression in a pair may refer to: in the job, the machine, both
/// (`x`, `lst`, `rec`, `a1`, `b1`, `Requirements`, `Rank`) or neither.
pub const PAIR_NAMES: &[&str] = &[
    "Owner",
    "Cmd",
    "RequestMemory",
    "RequestCpus",
    "ImageSize",
    "JobPrio",
    "x",
    "y",
    "lst",
    "rec",
    "a1",
    "b1",
    "selfref",
    "Name",
    "Memory",
    "Cpus",
    "Arch",
    "OpSys",
    "State",
    "KeyboardIdle",
    "LoadAvg",
    "z",
    "Requirements",
    "Rank",
    "Missing",
    "nothere",
    "Undeclared",
    "AcctGroup",
    "Groups",
    "BlockedGroups",
    "Start",
];

/// Values of the list attributes (`Groups`, `BlockedGroups`): delimited string
/// lists, empty ones, lists, undefined and error, as literals and as constant
/// expressions, all known when MY's expressions are compiled.
const GROUP_LISTS: &[&str] = &[
    "\"a, b\"",
    "\"group_b;A\"",
    "\"a\"",
    "\"\"",
    "\"  \"",
    "undefined",
    "error",
    "{}",
    "{\"a\", \"b\"}",
    "{undefined}",
    "strcat(\"a\", \", b\")",
    "undefined ?: \"b\"",
    "MY.Missing",
];

/// Limits for attribute values: small, and with few references each, so chains of
/// references through both ads stay cheap to evaluate (nothing is cached).
const ATTR_LIMITS: Limits = Limits {
    max_depth: 3,
    max_nodes: 8,
};

/// Limits for the expressions evaluated against a pair.
pub const PAIR_EXPR_LIMITS: Limits = Limits {
    max_depth: 5,
    max_nodes: 30,
};

/// Stream number of ad-pair cases.
pub const PAIR_STREAM: u64 = 2;

/// Expressions evaluated against each pair.
pub const EXPRS_PER_PAIR: usize = 4;

/// One job/machine pair and expressions to evaluate against it.
#[derive(Clone)]
pub struct PairCase {
    /// The case's own seed.
    pub seed: u64,
    /// Its index in the corpus.
    pub index: usize,
    /// The job ad, new syntax (it parses).
    pub job: String,
    /// The machine ad, new syntax (it parses).
    pub machine: String,
    /// Expressions (they parse) over the pair's names, each with the ads it is
    /// evaluated in.
    pub exprs: Vec<PairExpr>,
}

/// Which ad is MY and which, if any, is TARGET.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// MY = the job, TARGET = the machine.
    JobMachine,
    /// MY = the machine, TARGET = the job.
    MachineJob,
    /// MY = the job, no TARGET.
    JobAlone,
}

impl Sides {
    /// The `classad eval` options that set these sides up.
    pub fn options(self) -> &'static str {
        match self {
            Sides::JobMachine => "--my job.ad --target machine.ad",
            Sides::MachineJob => "--my machine.ad --target job.ad",
            Sides::JobAlone => "--my job.ad",
        }
    }
}

/// An expression evaluated against a pair.
#[derive(Clone, Debug)]
pub struct PairExpr {
    /// The expression text (it parses).
    pub text: String,
    /// The ads it is evaluated in.
    pub sides: Sides,
}

impl PairExpr {
    /// The command that evaluates it, given the ads in `job.ad` and `machine.ad`.
    pub fn command(&self) -> String {
        format!(
            "classad eval {} {}",
            self.sides.options(),
            shell_quote(&self.text)
        )
    }
}

/// Pair case `index` under master seed `master`.
pub fn pair_case(master: u64, index: usize) -> PairCase {
    let (seed, mut rng) = Rng::for_case(master, PAIR_STREAM, index as u64);
    let job = ad_text(&mut rng, true);
    let machine = ad_text(&mut rng, false);
    // Both directions of the match, and an ad on its own.
    const SIDES: [Sides; 4] = [
        Sides::JobMachine,
        Sides::MachineJob,
        Sides::JobAlone,
        Sides::MachineJob,
    ];
    let exprs = (0..EXPRS_PER_PAIR)
        .map(|k| PairExpr {
            text: parsing(&mut rng, |rng| {
                Gen::new(rng, PAIR_NAMES, PAIR_EXPR_LIMITS).top(Want::Any)
            }),
            sides: SIDES[k % SIDES.len()],
        })
        .collect();
    PairCase {
        seed,
        index,
        job,
        machine,
        exprs,
    }
}

/// The text of one ad: attributes chosen from the job or machine names, then
/// Requirements and Rank, each value parsing on its own; the whole is re-parsed in
/// case attributes interact (they should not).
fn ad_text(rng: &mut Rng, job: bool) -> String {
    loop {
        let (pool, core) = if job {
            (JOB_NAMES, JOB_CORE)
        } else {
            (MACHINE_NAMES, MACHINE_CORE)
        };
        // The names Requirements usually test are likely present, so that a fair
        // share of pairs match; the rest are drawn at random.
        let mut names: Vec<&str> = core.iter().copied().filter(|_| !rng.one_in(3)).collect();
        let n = rng.range(3, 5).max(names.len());
        while names.len() < n {
            let name = *rng.pick(pool);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let mut attrs: Vec<(String, String)> = Vec::new();
        for &name in &names {
            let value = parsing(rng, |rng| attr_value(rng, name));
            attrs.push((name.to_string(), value));
        }
        // Circular references: in one ad, and across the pair through TARGET.
        if rng.one_in(4) {
            attrs.retain(|(n, _)| n != "a1" && n != "b1");
            attrs.push(("a1".into(), "b1 + 1".into()));
            attrs.push((
                "b1".into(),
                rng.pick(&["a1", "a1 * 2", "MY.a1"]).to_string(),
            ));
        }
        if rng.one_in(6) {
            let other = if job { "z" } else { "y" };
            attrs.retain(|(n, _)| n != "x");
            attrs.push(("x".into(), format!("TARGET.{other} + TARGET.x")));
        }
        if !rng.one_in(8) {
            let req = parsing(rng, |rng| requirements(rng, job));
            attrs.push(("Requirements".into(), req));
        }
        if !rng.one_in(4) {
            let rank = parsing(rng, |rng| rank(rng, job));
            attrs.push(("Rank".into(), rank));
        }
        let body: Vec<String> = attrs
            .iter()
            .map(|(n, v)| format!("    {n} = {v}"))
            .collect();
        let text = format!("[\n{}\n]", body.join(";\n"));
        if parse_classad(&text).is_ok() {
            return text;
        }
    }
}

/// A value for attribute `name`: usually one plausible for it (so Requirements
/// sometimes match), otherwise a generated expression over the pair's names.
fn attr_value(rng: &mut Rng, name: &str) -> String {
    if rng.one_in(4) {
        return Gen::for_attribute(rng, PAIR_NAMES, ATTR_LIMITS).top(Want::Any);
    }
    match name {
        "Owner" => quote(rng.pick_copy(&["alice", "Bob", "carol", "mallory"])),
        "Cmd" => quote(rng.pick_copy(&["/bin/sleep", "C:\\dir\\x.exe", "run.sh"])),
        "RequestMemory" | "Memory" | "ImageSize" => rng
            .pick(&["512", "1024", "2048", "4096", "65536", "0", "-1", "2048.5"])
            .to_string(),
        "RequestCpus" | "Cpus" => rng.range(0, 16).to_string(),
        "JobPrio" => rng.range_i64(-20, 20).to_string(),
        "Name" => quote(rng.pick_copy(&["slot1@host", "slot2@host", "slot1_1@big"])),
        "Arch" => quote(rng.pick_copy(&["X86_64", "x86_64", "ARM64"])),
        "OpSys" => quote(rng.pick_copy(&["LINUX", "WINDOWS"])),
        "State" => quote(rng.pick_copy(&["Unclaimed", "Claimed", "Owner"])),
        "KeyboardIdle" => rng.range(0, 3600).to_string(),
        "LoadAvg" => rng.pick(&["0.0", "0.25", "1.5", "-0.0"]).to_string(),
        "x" | "y" | "z" => match rng.below(4) {
            0 => rng.range_i64(-5, 5).to_string(),
            1 => format!("TARGET.{} + 1", rng.pick(&["x", "y", "z", "Memory"])),
            2 => format!("MY.{} * 2", rng.pick(&["Cpus", "RequestCpus", "x"])),
            _ => rng
                .pick(&["undefined", "error", "\"text\"", "true"])
                .to_string(),
        },
        "lst" => rng
            .pick(&[
                "{10, 20, [k = 7]}",
                "{}",
                "{1, 2.5, \"three\", undefined}",
                "{[a = 1], [a = 2], [b = x]}",
                "{{1, 2}, {x, TARGET.x}}",
            ])
            .to_string(),
        "rec" => rng
            .pick(&[
                "[p = 3; q = parent.x; r = x; s = toplevel.x]",
                "[p = [q = parent.p; r = 2]; t = TARGET.x]",
                "[]",
                "[a = self.b; b = 4; c = MY.x]",
                "[r = r + 1]",
            ])
            .to_string(),
        "selfref" => "selfref + 1".to_string(),
        "AcctGroup" => rng
            .pick(&[
                "\"a\"",
                "\"group_b\"",
                "\"A\"",
                "\"\"",
                "undefined",
                "error",
                "1",
            ])
            .to_string(),
        "Groups" | "BlockedGroups" => rng.pick(GROUP_LISTS).to_string(),
        "Start" => known_clause(rng, false),
        "a1" | "b1" => {
            let other = if name == "a1" { "b1" } else { "a1" };
            rng.pick(&[other, "TARGET.a1", "3"]).to_string()
        }
        _ => Gen::for_attribute(rng, PAIR_NAMES, ATTR_LIMITS).top(Want::Any),
    }
}

/// A Requirements expression: usually a conjunction of plausible clauses, so the
/// corpus has both matches and non-matches; sometimes an odd value.
fn requirements(rng: &mut Rng, job: bool) -> String {
    const JOB_CLAUSES: &[&str] = &[
        "TARGET.Memory >= RequestMemory",
        "TARGET.Cpus >= MY.RequestCpus",
        "TARGET.Arch == \"X86_64\"",
        "TARGET.OpSys =?= \"LINUX\"",
        "MY.x == TARGET.x",
        "TARGET.Cpus > 0",
        "Memory > 1024",
        "(TARGET.KeyboardIdle ?: 3600) > 15 * 60",
        "regexp(\"^slot1\", TARGET.Name ?: \"slot1\")",
        "stringListMember(TARGET.State, \"Unclaimed,Owner\")",
        "TARGET.LoadAvg ?: 0.0 < 1.0",
        "isUndefined(TARGET.Missing)",
        "other.Cpus isnt undefined",
    ];
    const MACHINE_CLAUSES: &[&str] = &[
        "TARGET.RequestMemory <= Memory",
        "TARGET.Owner =!= \"mallory\"",
        "State == \"Unclaimed\"",
        "(MY.LoadAvg ?: 0) < 0.5",
        "TARGET.RequestCpus <= MY.Cpus",
        "(ImageSize ?: 0) < 65536",
        "TARGET.JobPrio ?: 0 >= -5",
        "member(TARGET.Owner, {\"alice\", \"bob\"})",
        "x =?= TARGET.x",
        "TARGET.RequestCpus isnt error",
        "RequestCpus ?: 1 > 0",
    ];
    match rng.below(12) {
        // A slot's Requirements is often its START, inlined where it is used.
        10 if !job => rng
            .pick(&[
                "START",
                "Start && TARGET.RequestCpus <= MY.Cpus",
                "MY.Start",
            ])
            .to_string(),
        10 | 11 => {
            let clause = known_clause(rng, job);
            if rng.one_in(2) {
                clause
            } else {
                let pool = if job { JOB_CLAUSES } else { MACHINE_CLAUSES };
                format!("{} && {clause}", rng.pick(pool))
            }
        }
        0 => rng
            .pick(&[
                "true",
                "false",
                "undefined",
                "error",
                "\"yes\"",
                "2.5",
                "0",
                "x",
                "Rank > 0",
            ])
            .to_string(),
        1 => Gen::for_attribute(rng, PAIR_NAMES, ATTR_LIMITS).top(Want::Bool),
        _ => {
            let pool = if job { JOB_CLAUSES } else { MACHINE_CLAUSES };
            let n = *rng.pick(&[1, 1, 2, 2, 3]);
            let clauses: Vec<&str> = (0..n).map(|_| *rng.pick(pool)).collect();
            let joiner = if rng.one_in(5) { " || " } else { " && " };
            clauses.join(joiner)
        }
    }
}

/// A clause testing the other ad's attribute against a value MY knows when its
/// expressions are compiled (its list attributes, a missing attribute, literal
/// undefined, error, empty strings and lists): each of the VM's specialised
/// instructions (`Member` on a constant set, `CmpK`, `CmpTK`, a cached TARGET-only
/// call) meets a compile-time value that is not an ordinary one.
fn known_clause(rng: &mut Rng, job: bool) -> String {
    let (theirs, mine): (&[&str], &[&str]) = if job {
        (
            &[
                "TARGET.Arch",
                "TARGET.Groups",
                "TARGET.BlockedGroups",
                "TARGET.Missing",
                "Arch",
            ],
            &["MY.Groups", "Groups"],
        )
    } else {
        (
            &[
                "TARGET.AcctGroup",
                "TARGET.Owner",
                "TARGET.Groups",
                "TARGET.Missing",
                "AcctGroup",
            ],
            &["MY.BlockedGroups", "BlockedGroups", "MY.Groups"],
        )
    };
    let x = *rng.pick(theirs);
    let known = match rng.below(3) {
        0 => *rng.pick(mine),
        1 => *rng.pick(&["MY.Missing", "undefined", "error", "\"\"", "{}"]),
        _ => *rng.pick(GROUP_LISTS),
    };
    let not = if rng.one_in(2) { "!" } else { "" };
    match rng.below(5) {
        0 | 1 => {
            let f = rng.pick(&["stringListMember", "stringListIMember"]);
            let delims = match rng.below(4) {
                0 => ", \";\"".to_string(),
                1 => format!(
                    ", {}",
                    rng.pick(&["undefined", "\"\"", "MY.Missing", "error"])
                ),
                _ => String::new(),
            };
            format!("{not}{f}({x}, {known}{delims})")
        }
        2 => {
            let f = rng.pick(&["member", "identicalMember"]);
            format!("{not}{f}({x}, {known})")
        }
        3 => {
            let op = rng.pick(&["==", "!=", "=?=", "=!=", "<", ">="]);
            if rng.one_in(2) {
                format!("{x} {op} {known}")
            } else {
                format!("{known} {op} {x}")
            }
        }
        // Calls that read only TARGET, cached per TARGET.
        _ => rng
            .pick(&[
                format!("size({x}) > 0"),
                format!("strcat({x}, \"\") == \"a\""),
                format!("{not}isUndefined(toUpper({x}))"),
                format!("stringListSize({x}) >= 1"),
                format!("{not}stringListSubsetMatch({x}, \"a, b\")"),
            ])
            .clone(),
    }
}

/// A Rank expression: numbers, booleans, reals at the edges, and non-numbers
/// (which count as 0).
fn rank(rng: &mut Rng, job: bool) -> String {
    if rng.one_in(4) {
        return Gen::for_attribute(rng, PAIR_NAMES, ATTR_LIMITS).top(Want::Num);
    }
    let job_ranks: &[&str] = &[
        "TARGET.Memory",
        "TARGET.Cpus * 1024 + TARGET.Memory",
        "-TARGET.LoadAvg",
        "TARGET.Memory >= 4096",
        "ifThenElse(TARGET.Arch == \"X86_64\", 10, 1.5)",
        "TARGET.KeyboardIdle / 0",
        "TARGET.Memory / 3.0",
    ];
    let machine_ranks: &[&str] = &[
        "TARGET.JobPrio",
        "TARGET.Owner == \"alice\"",
        "TARGET.ImageSize * -1",
        "TARGET.RequestMemory / TARGET.RequestCpus",
        "MY.Cpus - TARGET.RequestCpus",
    ];
    let odd: &[&str] = &[
        "\"high\"",
        "real(\"NaN\")",
        "real(\"-INF\")",
        "1e308 * 10",
        "-0.0",
        "undefined",
        "{1}",
        "9223372036854775807",
        "Rank",
    ];
    match rng.below(4) {
        0 => rng.pick(odd).to_string(),
        _ => rng
            .pick(if job { job_ranks } else { machine_ranks })
            .to_string(),
    }
}

impl fmt::Display for PairCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Shell here-documents, so the whole block can be pasted into a shell.
        writeln!(
            f,
            "# ad pair case {} (seed {:#018x})",
            self.index, self.seed
        )?;
        writeln!(f, "cat > job.ad <<'EOF'\n{}\nEOF", self.job)?;
        writeln!(f, "cat > machine.ad <<'EOF'\n{}\nEOF", self.machine)?;
        for e in &self.exprs {
            writeln!(f, "{}", e.command())?;
        }
        Ok(())
    }
}

// Debug is the reproduction text too, so `{:?}` in an assertion is pasteable.
impl fmt::Debug for PairCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
