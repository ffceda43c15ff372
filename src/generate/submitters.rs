//! Submitters: the user a job runs as and its accounting group, the name the
//! negotiator knows it by, the table `--submitters K` draws from, and the
//! priorities file (real priority, priority factor, weighted usage) for the
//! negotiator's accountant.

use super::rng::Rng;
use super::tables::{DOMAIN, GROUPS, USERS};
use std::io::{self, Write};

/// The random stream of the priorities (each submitter's entry is drawn from its
/// own part of it, named by the submitter).
const PRIORITIES_STREAM: u64 = 5;

/// A submitter: the job's `Owner`, and its accounting group (`AcctGroup`) if any.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Submitter {
    /// The user (`Owner`).
    pub owner: String,
    /// The accounting group (`AcctGroup`), if any.
    pub group: Option<&'static str>,
}

impl Submitter {
    /// The model's mix: any user, in one of the groups or (one time in four) in
    /// none.
    pub(super) fn draw(rng: &mut Rng) -> Submitter {
        let owner = rng.choice(&USERS).to_string();
        Submitter {
            owner,
            group: draw_group(rng),
        }
    }

    /// The name HTCondor knows the submitter by, as the schedd forms it and
    /// `condor_userprio` prints it
    /// ([`crate::negotiate::submitters::submitter_name`] of its jobs): its
    /// `AccountingGroup` (`<group>.<owner>`) when it has a group, else its
    /// owner, then `@<domain>`.
    pub(super) fn name(&self) -> String {
        match self.group {
            Some(g) => format!("{g}.{}@{DOMAIN}", self.owner),
            None => format!("{}@{DOMAIN}", self.owner),
        }
    }

    /// What names the random stream of its priorities: its name as the
    /// generator wrote it before names carried the domain (a group's
    /// submitter without it), so that a seed gives the priorities it gave.
    fn stream_key(&self) -> String {
        match self.group {
            Some(g) => format!("{g}.{}", self.owner),
            None => self.name(),
        }
    }
}

/// One of the groups, or (two chances in eight) none.
fn draw_group(rng: &mut Rng) -> Option<&'static str> {
    let i = rng.below(GROUPS.len() as u64 + 2) as usize;
    GROUPS.get(i).copied()
}

/// `k` distinct submitters: pairs of the model's users and groups as the model
/// draws them, then (past the 196 pairs there are, or when they are slow to come)
/// made-up users `user00001`, `user00002`, ... each in a drawn group or none.
pub(super) fn table(k: usize, rng: &mut Rng) -> Vec<Submitter> {
    let mut out: Vec<Submitter> = Vec::with_capacity(k);
    let mut seen = ahash::AHashSet::new();
    let pairs = USERS.len() * (GROUPS.len() + 1);
    let mut tries = 0;
    while out.len() < k.min(pairs) && tries < 64 * pairs {
        tries += 1;
        let s = Submitter::draw(rng);
        if seen.insert(s.clone()) {
            out.push(s);
        }
    }
    let mut made_up = 0;
    while out.len() < k {
        made_up += 1;
        out.push(Submitter {
            owner: format!("user{made_up:05}"),
            group: draw_group(rng),
        });
    }
    out
}

/// One line of the priorities file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Priority {
    /// The real priority, 0.5 to 50, spread evenly on a log scale.
    pub real: f64,
    /// The priority factor: 1, 10, 100 or 1000.
    pub factor: u32,
    /// Weighted usage: 0 for a quarter of the submitters, else up to `usage_limit`.
    pub usage: f64,
}

/// The priority of the submitter whose stream is named `key` under `seed`:
/// drawn from a stream of its own, so a submitter's entry does not depend on
/// who else is listed. `usage_limit` bounds the weighted usage (some slots'
/// worth).
pub(super) fn priority(seed: u64, key: &str, usage_limit: f64) -> Priority {
    let mut rng = Rng::derive(seed, PRIORITIES_STREAM, fnv1a(key));
    let real = 0.5 * 100f64.powf(rng.random());
    let factor = *rng.weighted(&[(1, 3), (10, 2), (100, 3), (1000, 2)]);
    let usage = if rng.chance(0.25) {
        0.0
    } else {
        rng.uniform(0.0, usage_limit)
    };
    Priority {
        real: (real * 1000.0).round() / 1000.0,
        factor,
        usage: (usage * 10.0).round() / 10.0,
    }
}

/// Writes the priorities file: a `#` header line, then `<submitter> <real
/// priority> <priority factor> <weighted usage>` for each of `submitters`, in
/// order, as [`crate::negotiate::Priorities::parse`] reads them.
pub(super) fn write_priorities<W: Write + ?Sized>(
    out: &mut W,
    seed: u64,
    submitters: &[&Submitter],
    usage_limit: f64,
) -> io::Result<()> {
    let mut text = String::from("# submitter real-priority priority-factor weighted-usage\n");
    for s in submitters {
        let p = priority(seed, &s.stream_key(), usage_limit);
        let name = s.name();
        text.push_str(&format!("{name} {} {} {}\n", p.real, p.factor, p.usage));
    }
    out.write_all(text.as_bytes())
}

/// FNV-1a of a name: the index of its random stream.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_distinct_and_sized() {
        for k in [1, 5, 196, 300] {
            let t = table(k, &mut Rng::derive(1, 0, 0));
            assert_eq!(t.len(), k);
            let names: ahash::AHashSet<String> = t.iter().map(Submitter::name).collect();
            assert_eq!(names.len(), k, "names are distinct");
        }
    }

    #[test]
    fn priorities_are_varied_and_in_range() {
        let names: Vec<String> = (0..200).map(|i| format!("u{i}@d")).collect();
        let ps: Vec<Priority> = names.iter().map(|n| priority(3, n, 40.0)).collect();
        assert!(ps.iter().all(|p| (0.5..=50.0).contains(&p.real)));
        assert!(ps.iter().all(|p| (0.0..=40.0).contains(&p.usage)));
        assert!(ps.iter().any(|p| p.real < 2.0) && ps.iter().any(|p| p.real > 20.0));
        for f in [1, 10, 100, 1000] {
            assert!(ps.iter().any(|p| p.factor == f), "factor {f}");
        }
        assert!(ps.iter().any(|p| p.usage == 0.0) && ps.iter().any(|p| p.usage > 10.0));
        assert_eq!(priority(3, "a", 5.0), priority(3, "a", 5.0));
        assert_ne!(priority(3, "a", 5.0), priority(4, "a", 5.0));
    }
}
