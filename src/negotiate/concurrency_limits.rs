//! Concurrency limits (negotiator.md section 15): the knobs that set each
//! limit's maximum, the counts of what the pool's claims use, and the test a
//! request's `ConcurrencyLimits` must pass.
//!
//! Each rule as the function it follows does it:
//!
//! - **`ParseConcurrencyLimit`** (`NegotiationUtils.cpp`): a token is
//!   `name[:increment]`; the increment is C's `strtod` of what follows the
//!   first `:` (1 when absent, 0 or negative); the name is valid when it is an
//!   attribute name, or two joined by one `.` (`scope.name`). An invalid token
//!   is ignored, by the test and by the counts.
//! - **Lists** are split at commas and white space (`StringTokenIterator`) and
//!   read in lower case (`rejectForConcurrencyLimits`, `LoadLimits`, and the
//!   `MatchedConcurrencyLimits` of `matchmakingProtocol`).
//! - **`Accountant::GetLimitMax`**: `<name>_LIMIT`, else for a scoped name
//!   `CONCURRENCY_LIMIT_DEFAULT_<scope>` (the scope is what precedes the last
//!   `.`), else `CONCURRENCY_LIMIT_DEFAULT`, else 2,308,032.
//! - **`Accountant::LoadLimits`**: at the start of a cycle the counts are those
//!   of every slot ad's `ConcurrencyLimits` and `PreemptingConcurrencyLimits`
//!   strings, each token adding its increment (`IncrementLimit`).
//! - **`rejectForConcurrencyLimits`**: a list is refused at its first valid
//!   token whose count is negative or whose count plus increment is above the
//!   maximum.
//! - **`Accountant::AddMatch`**: a match adds its list (the job's
//!   `ConcurrencyLimits` evaluated against the slot it matched) to the counts;
//!   nothing takes it away within the cycle.

use crate::ad::ClassAd;
use crate::c_number::strtod_prefix;
use crate::engine::eval_attr_once;
use crate::matching::config::{Config, ConfigError};
use crate::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// HTCondor's `CONCURRENCY_LIMIT_DEFAULT` when the knob is not set.
pub const DEFAULT_MAXIMUM: f64 = 2_308_032.0;

/// The knobs of concurrency limits: every `<name>_LIMIT`, the scoped and the
/// plain default, names in lower case (configuration names ignore case).
#[derive(Clone, Debug, PartialEq)]
pub struct LimitKnobs {
    /// `CONCURRENCY_LIMIT_DEFAULT`.
    pub default: f64,
    /// `CONCURRENCY_LIMIT_DEFAULT_<scope>`, by scope.
    pub scoped: BTreeMap<String, f64>,
    /// `<name>_LIMIT`, by name.
    pub named: BTreeMap<String, f64>,
}

impl Default for LimitKnobs {
    fn default() -> LimitKnobs {
        LimitKnobs {
            default: DEFAULT_MAXIMUM,
            scoped: BTreeMap::new(),
            named: BTreeMap::new(),
        }
    }
}

const DEFAULT_KNOB: &str = "concurrency_limit_default";
const SUFFIX: &str = "_limit";

impl LimitKnobs {
    /// The limits `config` sets, read with `number` (a number, or an
    /// expression whose value is one). The defaults must be numbers, as
    /// `param_double` requires; a `<name>_LIMIT` that is not one is left out
    /// with a warning (many knobs end in `_LIMIT`; one a job names would stop
    /// HTCondor's negotiator).
    pub fn from_config(
        config: &Config,
        number: impl Fn(&str) -> Result<Option<f64>, ConfigError>,
        warnings: &mut Vec<String>,
    ) -> Result<LimitKnobs, ConfigError> {
        let mut knobs = LimitKnobs::default();
        if let Some(d) = number(DEFAULT_KNOB)? {
            knobs.default = d;
        }
        for (name, place) in config.names() {
            let lower = name.to_ascii_lowercase();
            let lower = lower.strip_prefix("negotiator.").unwrap_or(&lower);
            if let Some(scope) = lower.strip_prefix("concurrency_limit_default_") {
                if let Some(d) = number(lower)? {
                    knobs.scoped.insert(scope.to_string(), d);
                }
            } else if let Some(limit) = lower.strip_suffix(SUFFIX) {
                if !valid_name(limit) {
                    continue;
                }
                match number(lower) {
                    Ok(Some(max)) => {
                        knobs.named.insert(limit.to_string(), max);
                    }
                    Ok(None) => {}
                    Err(_) => warnings.push(format!(
                        "{place}: {name} is not a number: it sets no concurrency limit \
                         (HTCondor's negotiator stops on a job that names `{limit}`)"
                    )),
                }
            }
        }
        Ok(knobs)
    }

    /// `Accountant::GetLimitMax`: the maximum of limit `name` (in lower case).
    pub fn maximum(&self, name: &str) -> f64 {
        if let Some(&max) = self.named.get(name) {
            return max;
        }
        let scoped = name
            .rfind('.')
            .and_then(|dot| self.scoped.get(&name[..dot]));
        scoped.copied().unwrap_or(self.default)
    }
}

/// True for an attribute name: a letter or `_`, then letters, digits and `_`
/// (`IsValidAttrName`).
fn attribute_name(s: &str) -> bool {
    let mut b = s.bytes();
    matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// True for a limit's name: an attribute name, or two joined at the first `.`.
fn valid_name(name: &str) -> bool {
    match name.split_once('.') {
        Some((scope, rest)) => attribute_name(scope) && attribute_name(rest),
        None => attribute_name(name),
    }
}

/// `ParseConcurrencyLimit`: a token's name and increment, `None` when the name
/// is not valid.
pub fn parse_limit(token: &str) -> Option<(&str, f64)> {
    let (name, increment) = match token.split_once(':') {
        Some((name, count)) => {
            let x = strtod_prefix(count).map_or(0.0, |(x, _)| x);
            // `increment <= 0` is false for NaN, which stays.
            (name, if x <= 0.0 { 1.0 } else { x })
        }
        None => (token, 1.0),
    };
    valid_name(name).then_some((name, increment))
}

/// The tokens of a list, as `StringTokenIterator` splits it.
fn tokens(list: &str) -> impl Iterator<Item = &str> {
    list.split([',', ' ', '\t', '\r', '\n'])
        .filter(|t| !t.is_empty())
}

/// The counts of the limits in use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LimitCounts {
    counts: BTreeMap<String, f64>,
}

impl LimitCounts {
    /// `LoadLimits`: what the claims of `slots` use.
    pub fn in_use(slots: &[Arc<ClassAd>]) -> LimitCounts {
        let mut counts = LimitCounts::default();
        for ad in slots {
            for attr in ["ConcurrencyLimits", "PreemptingConcurrencyLimits"] {
                if let Ok(Value::Str(s)) = eval_attr_once(ad, attr, None) {
                    counts.add(&s.as_str().to_ascii_lowercase());
                }
            }
        }
        counts
    }

    /// `IncrementLimits`: a list (in lower case) added.
    pub fn add(&mut self, list: &str) {
        for (name, increment) in tokens(list).filter_map(parse_limit) {
            *self.counts.entry(name.to_string()).or_insert(0.0) += increment;
        }
    }

    /// The count of limit `name` (0 when never used).
    pub fn count(&self, name: &str) -> f64 {
        self.counts.get(name).copied().unwrap_or(0.0)
    }

    /// Every limit counted, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.counts.iter().map(|(n, c)| (n.as_str(), *c))
    }

    /// `rejectForConcurrencyLimits`: the limit of `list` (in lower case) that
    /// refuses it, if one does.
    pub fn refusal<'l>(&self, list: &'l str, knobs: &LimitKnobs) -> Option<&'l str> {
        tokens(list)
            .filter_map(parse_limit)
            .find_map(|(name, inc)| {
                let count = self.count(name);
                (count < 0.0 || count + inc > knobs.maximum(name)).then_some(name)
            })
    }
}

/// What a request's `ConcurrencyLimits` is (`matchmakingAlgorithm`).
#[derive(Clone, Debug, PartialEq)]
pub enum JobLimits {
    /// The job has none.
    None,
    /// A string in the job alone: tested once per request, in lower case.
    Fixed(String),
    /// Anything else: evaluated against each candidate slot.
    PerSlot,
}

impl JobLimits {
    /// The limits of `job`.
    pub fn of(job: &Arc<ClassAd>) -> JobLimits {
        if !job.contains("ConcurrencyLimits") {
            return JobLimits::None;
        }
        match eval_attr_once(job, "ConcurrencyLimits", None) {
            Ok(Value::Str(s)) => JobLimits::Fixed(s.as_str().to_ascii_lowercase()),
            _ => JobLimits::PerSlot,
        }
    }
}

/// The job's `ConcurrencyLimits` against `slot`, in lower case, when a string
/// (`EvalString(ATTR_CONCURRENCY_LIMITS, &request, candidate, ...)`).
pub fn limits_against(job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> Option<String> {
    match eval_attr_once(job, "ConcurrencyLimits", Some(slot)) {
        Ok(Value::Str(s)) => Some(s.as_str().to_ascii_lowercase()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ads(text: &str) -> Vec<Arc<ClassAd>> {
        read_ads(text, "t")
            .unwrap()
            .into_iter()
            .map(Arc::new)
            .collect()
    }

    #[test]
    fn tokens_parse_as_parse_concurrency_limit_does() {
        // NegotiationUtils.cpp, ParseConcurrencyLimit.
        assert_eq!(parse_limit("lic"), Some(("lic", 1.0)));
        assert_eq!(parse_limit("lic:3"), Some(("lic", 3.0)));
        assert_eq!(
            parse_limit("lic:2.5x"),
            Some(("lic", 2.5)),
            "strtod's prefix"
        );
        assert_eq!(parse_limit("lic:0"), Some(("lic", 1.0)), "0 is 1");
        assert_eq!(parse_limit("lic:-4"), Some(("lic", 1.0)), "negative is 1");
        assert_eq!(parse_limit("lic:abc"), Some(("lic", 1.0)), "no number is 1");
        assert_eq!(parse_limit("large.matlab:2"), Some(("large.matlab", 2.0)));
        assert_eq!(parse_limit("a.b.c"), None, "one dot at most");
        assert_eq!(parse_limit("9lives"), None, "not an attribute name");
        assert_eq!(parse_limit(".x"), None);
        assert_eq!(parse_limit(""), None);
        let nan = parse_limit("lic:nan").unwrap().1;
        assert!(nan.is_nan(), "NaN is not <= 0 and stays");
    }

    #[test]
    fn maxima_follow_get_limit_max() {
        // Accountant.cpp, GetLimitMax: <name>_LIMIT, else the scope's default,
        // else CONCURRENCY_LIMIT_DEFAULT, else 2308032.
        let mut k = LimitKnobs::default();
        assert_eq!(k.maximum("lic"), DEFAULT_MAXIMUM);
        k.default = 10.0;
        k.scoped.insert("large".into(), 4.0);
        k.named.insert("large.matlab".into(), 2.0);
        k.named.insert("lic".into(), 1.0);
        assert_eq!(k.maximum("lic"), 1.0);
        assert_eq!(k.maximum("other"), 10.0);
        assert_eq!(k.maximum("large.other"), 4.0);
        assert_eq!(k.maximum("large.matlab"), 2.0);
        assert_eq!(k.maximum("small.x"), 10.0);
    }

    #[test]
    fn knobs_are_read_ignoring_case_and_the_negotiator_prefix() {
        let cfg = Config::parse(
            "CONCURRENCY_LIMIT_DEFAULT = 7\nCONCURRENCY_LIMIT_DEFAULT_LARGE = 3\n\
             Matlab_LIMIT = 2\nNEGOTIATOR.Large.Foo_LIMIT = 1 + 4\n\
             MAX_SHADOW_LIMIT = lots\n9x_LIMIT = 1\n",
            "c",
        )
        .unwrap();
        // The cycle's reader evaluates "1 + 4"; this one takes its prefix.
        let number = |n: &str| -> Result<Option<f64>, ConfigError> {
            match cfg.get(n)? {
                None => Ok(None),
                Some(v) => match crate::c_number::strtod(&v) {
                    Some(x) => Ok(Some(x)),
                    None => Err(cfg.knob_error(n, "not a number")),
                },
            }
        };
        let mut warnings = Vec::new();
        let k = LimitKnobs::from_config(&cfg, number, &mut warnings).unwrap();
        assert_eq!(k.default, 7.0);
        assert_eq!(k.maximum("large.x"), 3.0);
        assert_eq!(k.maximum("matlab"), 2.0);
        assert_eq!(k.maximum("large.foo"), 1.0);
        assert_eq!(k.maximum("max_shadow"), 7.0, "not a number: not a limit");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("c:5: MAX_SHADOW_LIMIT is not a number"));
    }

    #[test]
    fn counts_load_from_claims_and_refuse_past_the_maximum() {
        // Accountant::LoadLimits, IncrementLimit; rejectForConcurrencyLimits.
        let slots = ads("Name = \"a\"\nConcurrencyLimits = \"LIC:2, other\"\n\n\
             Name = \"b\"\nPreemptingConcurrencyLimits = \"lic\"\n\n\
             Name = \"c\"\nConcurrencyLimits = strcat(\"l\", \"ic\")\n\n\
             Name = \"d\"\nConcurrencyLimits = \"bad.name.x lic\"\n");
        let c = LimitCounts::in_use(&slots);
        assert_eq!(
            c.count("lic"),
            5.0,
            "2 + 1 + 1 (the expression's string) + 1"
        );
        assert_eq!(c.count("other"), 1.0);
        assert_eq!(c.iter().count(), 2, "the invalid token is not counted");
        let mut k = LimitKnobs::default();
        k.named.insert("lic".into(), 6.0);
        assert_eq!(c.refusal("lic", &k), None, "5 + 1 is not above 6");
        assert_eq!(c.refusal("other, lic:2", &k), Some("lic"));
        assert_eq!(c.refusal("9bad:100, other", &k), None, "invalid: ignored");
        let mut more = c.clone();
        more.add("lic");
        assert_eq!(more.refusal("lic", &k), Some("lic"));
    }

    #[test]
    fn a_job_s_limits_are_fixed_only_when_a_string_alone() {
        let jobs = ads("A = 1\n\nConcurrencyLimits = \"Lic\"\n\n\
             ConcurrencyLimits = TARGET.Lic\n");
        assert_eq!(JobLimits::of(&jobs[0]), JobLimits::None);
        assert_eq!(JobLimits::of(&jobs[1]), JobLimits::Fixed("lic".into()));
        assert_eq!(JobLimits::of(&jobs[2]), JobLimits::PerSlot);
        let slot = ads("Lic = \"Matlab:2\"\n").remove(0);
        assert_eq!(limits_against(&jobs[2], &slot).as_deref(), Some("matlab:2"));
        assert_eq!(limits_against(&jobs[0], &slot), None);
    }
}
