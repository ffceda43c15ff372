//! The knobs of the negotiation cycle (negotiator.md section 10), read from a
//! configuration in HTCondor's syntax, with HTCondor's defaults.

use super::bounds::MAX_AMOUNT;
use super::concurrency_limits::LimitKnobs;
use crate::engine::Engine;
use crate::eval::Semantics;
use crate::matching::config::{parse_bool, Config, ConfigError};
use crate::matching::policy::{policy_expr, NegotiatorPolicy};
use crate::syntax::ast::ExprRef;

/// HTCondor's default `GROUP_SORT_EXPR`.
pub const DEFAULT_GROUP_SORT_EXPR: &str = "ifThenElse(AccountingGroup=?=\"<none>\", 3.4e+38, \
     ifThenElse(GroupQuota > 0, GroupResourcesInUse/GroupQuota, 3.3e+38))";

/// How a group's quota is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quota {
    /// `GROUP_QUOTA_<g>`: a number of (weighted) slots.
    Static(f64),
    /// `GROUP_QUOTA_DYNAMIC_<g>`: a fraction of what the parent group has.
    Dynamic(f64),
}

/// One group of `GROUP_NAMES` and its knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupKnobs {
    /// Its name, as `GROUP_NAMES` spells it.
    pub name: String,
    /// Its quota; `None` when neither knob is set (a quota of 0).
    pub quota: Option<Quota>,
    /// `GROUP_ACCEPT_SURPLUS_<g>`, else `GROUP_ACCEPT_SURPLUS`.
    pub accept_surplus: bool,
    /// `GROUP_PRIO_FACTOR_<g>` when set and not 0.
    pub prio_factor: Option<f64>,
}

/// The groups of `GROUP_NAMES`, in `GROUP_NAMES` order, found by name (ignoring
/// case) in one lookup: a cycle looks up the group of every submitter and the
/// parent of every group, and a search through the list for each cost
/// submitters x groups.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    list: Vec<GroupKnobs>,
    /// Each group's place in `list`, by its name in lower case.
    by_name: ahash::AHashMap<String, usize>,
}

impl Groups {
    /// The groups of `list` (their names distinct, ignoring case; of two alike,
    /// the first is found).
    pub fn new(list: Vec<GroupKnobs>) -> Groups {
        let mut by_name = ahash::AHashMap::with_capacity(list.len());
        for (i, g) in list.iter().enumerate() {
            by_name.entry(g.name.to_ascii_lowercase()).or_insert(i);
        }
        Groups { list, by_name }
    }

    /// The place of the group named `name` (ignoring case).
    pub fn position(&self, name: &str) -> Option<usize> {
        match self.by_name.get(name) {
            Some(&i) => Some(i),
            None if name.bytes().any(|b| b.is_ascii_uppercase()) => {
                self.by_name.get(&name.to_ascii_lowercase()).copied()
            }
            None => None,
        }
    }
}

impl std::ops::Deref for Groups {
    type Target = [GroupKnobs];

    fn deref(&self) -> &[GroupKnobs] {
        &self.list
    }
}

/// Every knob the emulated cycle reads. `Default` is HTCondor's default
/// configuration.
#[derive(Clone, Debug)]
pub struct CycleKnobs {
    /// The rank expressions and significant-attribute knobs, shared with the
    /// batch matcher.
    pub policy: NegotiatorPolicy,
    /// `NEGOTIATOR_CONSIDER_PREEMPTION`.
    pub consider_preemption: bool,
    /// `NEGOTIATOR_USE_SLOT_WEIGHTS`.
    pub use_slot_weights: bool,
    /// `SLOT_WEIGHT`, given to slots whose `SlotWeight` is missing or not a number.
    pub slot_weight: ExprRef,
    /// `NEGOTIATOR_MATCHLIST_CACHING`.
    pub matchlist_caching: bool,
    /// `NEGOTIATOR_IGNORE_JOB_RANKS`.
    pub ignore_job_ranks: bool,
    /// `NEGOTIATOR_IGNORE_USER_PRIORITIES`.
    pub ignore_user_priorities: bool,
    /// `NEGOTIATOR_DEPTH_FIRST`.
    pub depth_first: bool,
    /// Not a knob: report the jobs the schedd would pack into what a match
    /// leaves of a partitionable slot (`--schedd-packing`; section 7.1).
    pub schedd_packing: bool,
    /// `USE_GLOBAL_JOB_PRIOS`.
    pub use_global_job_prios: bool,
    /// `DEFAULT_PRIO_FACTOR`.
    pub default_prio_factor: f64,
    /// `NICE_USER_PRIO_FACTOR`.
    pub nice_user_prio_factor: f64,
    /// `NEGOTIATOR_SLOT_CONSTRAINT`.
    pub slot_constraint: Option<ExprRef>,
    /// `GROUP_NAMES` with each group's knobs, in `GROUP_NAMES` order.
    pub groups: Groups,
    /// `GROUP_SORT_EXPR`.
    pub group_sort_expr: ExprRef,
    /// `GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`.
    pub group_max_allocation_rounds: u32,
    /// `NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION`.
    pub allow_quota_oversubscription: bool,
    /// `NEGOTIATOR_STRICT_ENFORCE_QUOTA`.
    pub strict_enforce_quota: bool,
    /// `NEGOTIATOR_MAX_TIME_PER_CYCLE`, `_PER_SUBMITTER`, `_PER_PIESPIN` in
    /// seconds: reported against, never enforced.
    pub max_time: [f64; 3],
    /// `ACCOUNTING_DOMAIN`, else `UID_DOMAIN`: the domain of the submitters
    /// of jobs whose `User` has none (see
    /// [`submitter_name`](super::submitters::submitter_name)).
    pub accounting_domain: Option<String>,
    /// `<name>_LIMIT`, `CONCURRENCY_LIMIT_DEFAULT` and
    /// `CONCURRENCY_LIMIT_DEFAULT_<scope>`.
    pub concurrency_limits: LimitKnobs,
    /// `PRIORITY_HALFLIFE`, seconds: how fast the accountant ages a real
    /// priority toward the usage (section 14).
    pub priority_half_life: f64,
}

impl Default for CycleKnobs {
    fn default() -> CycleKnobs {
        let builtin = |t: &str| policy_expr(t).expect("HTCondor's default expression");
        CycleKnobs {
            policy: NegotiatorPolicy::default(),
            consider_preemption: true,
            use_slot_weights: true,
            slot_weight: builtin("Cpus"),
            matchlist_caching: true,
            ignore_job_ranks: false,
            ignore_user_priorities: false,
            depth_first: false,
            schedd_packing: false,
            use_global_job_prios: false,
            default_prio_factor: 1000.0,
            nice_user_prio_factor: 1e10,
            slot_constraint: None,
            groups: Groups::default(),
            group_sort_expr: builtin(DEFAULT_GROUP_SORT_EXPR),
            group_max_allocation_rounds: 3,
            allow_quota_oversubscription: true,
            strict_enforce_quota: true,
            max_time: [1200.0, 60.0, 120.0],
            accounting_domain: None,
            concurrency_limits: LimitKnobs::default(),
            priority_half_life: 86_400.0,
        }
    }
}

/// Reads typed knobs out of a configuration, each error naming the file, line
/// and knob.
struct Reader<'c> {
    config: &'c Config,
}

impl Reader<'_> {
    fn raw(&self, name: &str) -> Result<Option<String>, ConfigError> {
        Ok(self
            .config
            .get(name)?
            .filter(|v| !v.trim().is_empty())
            .map(|v| v.trim().to_string()))
    }

    fn bool(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.raw(name)? {
            None => Ok(default),
            Some(v) => parse_bool(&v).ok_or_else(|| {
                let what = format!("{v:?} is not a boolean (true, false, yes, no, 1, 0)");
                self.config.knob_error(name, &what)
            }),
        }
    }

    fn number(&self, name: &str) -> Result<Option<f64>, ConfigError> {
        let Some(v) = self.raw(name)? else {
            return Ok(None);
        };
        number_value(&v).map(Some).ok_or_else(|| {
            self.config
                .knob_error(name, &format!("{v:?} is not a number"))
        })
    }

    /// `GROUP_PRIO_FACTOR_<group>` when set and not 0 (HTCondor takes 0 for
    /// unset, and a negative factor as it is), at most [`MAX_AMOUNT`] in size.
    fn group_prio_factor(&self, group: &str) -> Result<Option<f64>, ConfigError> {
        let name = format!("GROUP_PRIO_FACTOR_{group}");
        match self.number(&name)? {
            Some(f) if f.abs() > MAX_AMOUNT => {
                let what = format!("must be from -{MAX_AMOUNT:e} to {MAX_AMOUNT:e}");
                Err(self.config.knob_error(&name, &what))
            }
            f => Ok(f.filter(|f| *f != 0.0)),
        }
    }

    fn expr(&self, name: &str) -> Result<Option<ExprRef>, ConfigError> {
        let Some(v) = self.raw(name)? else {
            return Ok(None);
        };
        policy_expr(&v).map(Some).map_err(|e| {
            self.config
                .knob_error(name, &format!("not an expression: {e}"))
        })
    }
}

/// A numeric knob's value: a number, or an expression whose value is one.
fn number_value(text: &str) -> Option<f64> {
    if let Ok(x) = text.parse::<f64>() {
        return x.is_finite().then_some(x);
    }
    let e = policy_expr(text).ok()?;
    let v = crate::engine::eval_alone_with(Engine::Vm, &e.tree, Semantics::Htcondor).ok()?;
    v.as_f64_promoted().filter(|x| x.is_finite())
}

/// `groups` less those with an ancestor `GROUP_NAMES` does not list, which
/// HTCondor ignores: a warning for each names the nearest such ancestor.
fn without_orphans(
    groups: Vec<GroupKnobs>,
    config: &Config,
    warnings: &mut Vec<String>,
) -> Vec<GroupKnobs> {
    let lower: Vec<String> = groups.iter().map(|g| g.name.to_ascii_lowercase()).collect();
    let listed: ahash::AHashMap<&str, usize> = lower
        .iter()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    // Parents first (a parent's name is shorter), so that a group whose parent
    // is listed takes its parent's answer: one lookup per group, where walking
    // up through every ancestor cost depth x groups lookups.
    let mut by_length: Vec<usize> = (0..groups.len()).collect();
    by_length.sort_by_key(|&i| lower[i].len());
    // Per group, the length of the name of its nearest unlisted ancestor.
    let mut unlisted: Vec<Option<usize>> = vec![None; groups.len()];
    for i in by_length {
        if let Some((parent, _)) = lower[i].rsplit_once('.') {
            unlisted[i] = match listed.get(parent) {
                Some(&p) => unlisted[p],
                None => Some(parent.len()),
            };
        }
    }
    let place = config
        .place("GROUP_NAMES")
        .map_or_else(|| format!("{}:0", config.file()), |p| p.to_string());
    let mut kept = Vec::with_capacity(groups.len());
    for (i, g) in groups.into_iter().enumerate() {
        match unlisted[i] {
            None => kept.push(g),
            Some(len) => warnings.push(format!(
                "{place}: GROUP_NAMES: group {} has no parent group {:?}; ignored",
                g.name,
                &lower[i][..len]
            )),
        }
    }
    kept
}

impl CycleKnobs {
    /// The knobs of a configuration: HTCondor's defaults overridden by what it
    /// sets, and a warning for each knob the emulator does not read (ignored). A
    /// value that does not parse is an error naming the file, line and knob.
    pub fn from_config(config: &Config) -> Result<(CycleKnobs, Vec<String>), ConfigError> {
        let (policy, warnings) = NegotiatorPolicy::from_config(config)?;
        let r = Reader { config };
        let d = CycleKnobs::default();
        let mut groups: Vec<GroupKnobs> = Vec::new();
        let default_surplus = r.bool("GROUP_ACCEPT_SURPLUS", false)?;
        if let Some(names) = r.raw("GROUP_NAMES")? {
            let mut seen = ahash::AHashSet::new();
            for name in names
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
            {
                if name == "<none>" {
                    let what = "\"<none>\" is the name of the group of submitters in no group";
                    return Err(config.knob_error("GROUP_NAMES", what));
                }
                if !seen.insert(name.to_ascii_lowercase()) {
                    continue;
                }
                let quota = match r.number(&format!("GROUP_QUOTA_{name}"))? {
                    Some(q) if (0.0..=MAX_AMOUNT).contains(&q) => Some(Quota::Static(q)),
                    Some(_) => {
                        let knob = format!("GROUP_QUOTA_{name}");
                        let what = format!("a quota is from 0 to {MAX_AMOUNT:e}");
                        return Err(config.knob_error(&knob, &what));
                    }
                    None => match r.number(&format!("GROUP_QUOTA_DYNAMIC_{name}"))? {
                        Some(q) if (0.0..=1.0).contains(&q) => Some(Quota::Dynamic(q)),
                        Some(_) => {
                            let knob = format!("GROUP_QUOTA_DYNAMIC_{name}");
                            let what = "a dynamic quota is a fraction from 0 to 1";
                            return Err(config.knob_error(&knob, what));
                        }
                        None => None,
                    },
                };
                groups.push(GroupKnobs {
                    name: name.to_string(),
                    quota,
                    accept_surplus: r
                        .bool(&format!("GROUP_ACCEPT_SURPLUS_{name}"), default_surplus)?,
                    prio_factor: r.group_prio_factor(name)?,
                });
            }
        }
        let mut warnings = warnings;
        let groups = without_orphans(groups, config, &mut warnings);
        let rounds = match r.number("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS")? {
            None => d.group_max_allocation_rounds,
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => n as u32,
            Some(_) => {
                let what = "not a whole number of rounds, at least 1";
                return Err(config.knob_error("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", what));
            }
        };
        let positive = |name: &str, default: f64| -> Result<f64, ConfigError> {
            match r.number(name)? {
                None => Ok(default),
                Some(x) if x > 0.0 && x <= MAX_AMOUNT => Ok(x),
                Some(_) => {
                    let what = format!("must be above 0 and at most {MAX_AMOUNT:e}");
                    Err(config.knob_error(name, &what))
                }
            }
        };
        let knobs = CycleKnobs {
            consider_preemption: r.bool("NEGOTIATOR_CONSIDER_PREEMPTION", d.consider_preemption)?,
            use_slot_weights: r.bool("NEGOTIATOR_USE_SLOT_WEIGHTS", d.use_slot_weights)?,
            slot_weight: r.expr("SLOT_WEIGHT")?.unwrap_or(d.slot_weight),
            matchlist_caching: r.bool("NEGOTIATOR_MATCHLIST_CACHING", d.matchlist_caching)?,
            ignore_job_ranks: r.bool("NEGOTIATOR_IGNORE_JOB_RANKS", d.ignore_job_ranks)?,
            ignore_user_priorities: r.bool(
                "NEGOTIATOR_IGNORE_USER_PRIORITIES",
                d.ignore_user_priorities,
            )?,
            depth_first: r.bool("NEGOTIATOR_DEPTH_FIRST", d.depth_first)?,
            schedd_packing: false,
            use_global_job_prios: r.bool("USE_GLOBAL_JOB_PRIOS", d.use_global_job_prios)?,
            default_prio_factor: positive("DEFAULT_PRIO_FACTOR", d.default_prio_factor)?,
            nice_user_prio_factor: positive("NICE_USER_PRIO_FACTOR", d.nice_user_prio_factor)?,
            slot_constraint: r.expr("NEGOTIATOR_SLOT_CONSTRAINT")?,
            groups: Groups::new(groups),
            group_sort_expr: r.expr("GROUP_SORT_EXPR")?.unwrap_or(d.group_sort_expr),
            group_max_allocation_rounds: rounds,
            allow_quota_oversubscription: r.bool(
                "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION",
                d.allow_quota_oversubscription,
            )?,
            strict_enforce_quota: r
                .bool("NEGOTIATOR_STRICT_ENFORCE_QUOTA", d.strict_enforce_quota)?,
            max_time: [
                positive("NEGOTIATOR_MAX_TIME_PER_CYCLE", d.max_time[0])?,
                positive("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", d.max_time[1])?,
                positive("NEGOTIATOR_MAX_TIME_PER_PIESPIN", d.max_time[2])?,
            ],
            accounting_domain: match r.raw("ACCOUNTING_DOMAIN")? {
                Some(d) => Some(d),
                None => r.raw("UID_DOMAIN")?,
            },
            concurrency_limits: LimitKnobs::from_config(config, |n| r.number(n), &mut warnings)?,
            priority_half_life: positive("PRIORITY_HALFLIFE", d.priority_half_life)?,
            policy,
        };
        Ok((knobs, warnings))
    }

    /// The group a submitter belongs to (negotiator.md section 4), as
    /// [`assigned_group`] finds it among `GROUP_NAMES`; `None` for the group
    /// `<none>`.
    pub fn group_of(&self, submitter: &str) -> Option<usize> {
        assigned_group(submitter, |g| self.groups.position(g))
    }
}

/// The group a submitter is assigned to, as `GroupEntry::GetAssignedGroup`
/// finds it: its name less everything from the last `@` (a name without one
/// is taken whole, as priorities files write submitters), then the part before
/// its last `.`, walked down the tree name by name as far as `find` (a group
/// by its full name) finds groups: `group_a.x.u@d` goes to `group_a` when
/// `group_a.x` is not a group. `None` for the root, `<none>`.
pub fn assigned_group<T>(submitter: &str, find: impl Fn(&str) -> Option<T>) -> Option<T> {
    let name = submitter.rsplit_once('@').map_or(submitter, |(n, _)| n);
    let (path, _) = name.rsplit_once('.')?;
    let ends = path.match_indices('.').map(|(i, _)| i).chain([path.len()]);
    let mut found = None;
    for end in ends {
        match find(&path[..end]) {
            Some(g) => found = Some(g),
            None => break,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(text: &str) -> Result<(CycleKnobs, Vec<String>), String> {
        let c = Config::parse(text, "cfg").map_err(|e| e.to_string())?;
        CycleKnobs::from_config(&c).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_overrides() {
        let (k, w) = knobs("").unwrap();
        assert!(k.consider_preemption && k.use_slot_weights && k.matchlist_caching);
        assert_eq!(k.default_prio_factor, 1000.0);
        assert!(w.is_empty());
        let (k, w) = knobs(
            "NEGOTIATOR_CONSIDER_PREEMPTION = false\nDEFAULT_PRIO_FACTOR = 10\n\
             GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_group_a = 4\n\
             GROUP_QUOTA_DYNAMIC_group_b = 0.5\nGROUP_ACCEPT_SURPLUS = true\n\
             GROUP_ACCEPT_SURPLUS_group_b = false\nFOO = 1\n",
        )
        .unwrap();
        assert!(!k.consider_preemption);
        assert_eq!(k.default_prio_factor, 10.0);
        assert_eq!(k.groups.len(), 2);
        assert_eq!(k.groups[0].quota, Some(Quota::Static(4.0)));
        assert_eq!(k.groups[1].quota, Some(Quota::Dynamic(0.5)));
        assert!(k.groups[0].accept_surplus && !k.groups[1].accept_surplus);
        assert_eq!(w, ["cfg:8: FOO: not a knob the emulator reads; ignored"]);
        assert_eq!(k.group_of("group_a.alice@x.org"), Some(0));
        assert_eq!(k.group_of("GROUP_B.bob"), Some(1));
        assert_eq!(k.group_of("group_c.bob"), None);
        assert_eq!(k.group_of("alice@group_a.x"), None);
    }

    #[test]
    fn a_group_without_a_listed_ancestor_is_ignored_naming_the_nearest() {
        let (k, w) = knobs("GROUP_NAMES = a.b.c, A, a.B.c.d, x.y, a.e, x.y.z\n").unwrap();
        let kept: Vec<&str> = k.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(kept, ["A", "a.e"]);
        assert_eq!(
            w,
            [
                "cfg:1: GROUP_NAMES: group a.b.c has no parent group \"a.b\"; ignored",
                "cfg:1: GROUP_NAMES: group a.B.c.d has no parent group \"a.b\"; ignored",
                "cfg:1: GROUP_NAMES: group x.y has no parent group \"x\"; ignored",
                "cfg:1: GROUP_NAMES: group x.y.z has no parent group \"x\"; ignored",
            ]
        );
        assert_eq!(k.group_of("a.E.alice"), Some(1));
        assert_eq!(k.group_of("x.y.alice"), None);
        // `GetAssignedGroup` walks down as far as the groups go: `a.b` was
        // ignored, so its submitters are `A`'s.
        assert_eq!(k.group_of("a.b.c.alice@d"), Some(0));
        assert_eq!(k.group_of("a.e.f.alice@d"), Some(1));
    }

    #[test]
    fn values_that_do_not_parse_name_file_line_and_knob() {
        for (text, want) in [
            (
                "\nNEGOTIATOR_USE_SLOT_WEIGHTS = sometimes\n",
                "cfg:2: NEGOTIATOR_USE_SLOT_WEIGHTS: \"sometimes\" is not a boolean",
            ),
            (
                "DEFAULT_PRIO_FACTOR = lots\n",
                "cfg:1: DEFAULT_PRIO_FACTOR: \"lots\" is not a number",
            ),
            (
                "SLOT_WEIGHT = Cpus +\n",
                "cfg:1: SLOT_WEIGHT: not an expression",
            ),
            (
                "GROUP_NAMES = g\nGROUP_QUOTA_g = -1\n",
                "cfg:2: GROUP_QUOTA_g: a quota is from 0 to 1e100",
            ),
            (
                "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = 0\n",
                "cfg:1: GROUP_QUOTA_MAX_ALLOCATION_ROUNDS: not a whole number",
            ),
        ] {
            let e = knobs(text).unwrap_err();
            assert!(e.starts_with(want), "{e}");
        }
    }
}
