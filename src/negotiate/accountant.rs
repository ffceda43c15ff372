//! The accountant during a cycle: each submitter's effective priority, and the
//! weighted usage of submitters and groups, charged match by match (negotiator.md
//! sections 1 and 3).

use super::knobs::CycleKnobs;
use super::priorities::{Priorities, MIN_PRIORITY, MIN_PRIORITY_FACTOR, NICE_USER_PREFIX};

/// Effective priorities and usage.
#[derive(Clone, Debug)]
pub struct Accountant {
    /// Per submitter (cycle id), its usage.
    pub usage: Vec<f64>,
    /// Per group (`GROUP_NAMES` order, then `<none>` last), its usage.
    pub group_usage: Vec<f64>,
}

/// A submitter's effective priority: its real priority (floored at 0.5) times its
/// priority factor. A listed factor is floored at 1; an unlisted submitter's is
/// `NICE_USER_PRIO_FACTOR` for the nice user, else its group's
/// `GROUP_PRIO_FACTOR_<g>`, else `DEFAULT_PRIO_FACTOR`.
pub fn effective_priority(name: &str, priorities: &Priorities, knobs: &CycleKnobs) -> f64 {
    let entry = priorities.get(name);
    let real = entry.map_or(MIN_PRIORITY, |e| e.real.max(MIN_PRIORITY));
    let factor = match entry.and_then(|e| e.factor) {
        Some(f) => f.max(MIN_PRIORITY_FACTOR),
        None => knobs.default_prio_factor_of(name),
    };
    real * factor
}

impl CycleKnobs {
    /// The priority factor of a submitter that has none set:
    /// `NICE_USER_PRIO_FACTOR` for the nice user, else its group's
    /// `GROUP_PRIO_FACTOR_<g>`, else `DEFAULT_PRIO_FACTOR`.
    pub fn default_prio_factor_of(&self, name: &str) -> f64 {
        if name.starts_with(NICE_USER_PREFIX) {
            return self.nice_user_prio_factor;
        }
        self.group_of(name)
            .and_then(|g| self.groups[g].prio_factor)
            .unwrap_or(self.default_prio_factor)
    }
}

impl Accountant {
    /// The usage of `submitters` from `priorities`; each group's usage is the sum
    /// of its listed submitters' (those with no idle jobs included).
    pub fn new(submitters: &[&str], priorities: &Priorities, knobs: &CycleKnobs) -> Accountant {
        let usage = submitters
            .iter()
            .map(|s| priorities.get(s).map_or(0.0, |e| e.usage))
            .collect();
        let mut group_usage = vec![0.0; knobs.groups.len() + 1];
        for (name, e) in priorities.iter() {
            let g = knobs.group_of(name).unwrap_or(knobs.groups.len());
            group_usage[g] += e.usage;
        }
        Accountant { usage, group_usage }
    }

    /// Charges `cost` to submitter `s` of group `g` (`groups.len()` for `<none>`).
    pub fn charge(&mut self, s: usize, g: usize, cost: f64) {
        self.usage[s] += cost;
        self.group_usage[g] += cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_priorities_and_group_usage() {
        let cfg = crate::matching::config::Config::parse(
            "GROUP_NAMES = group_a\nGROUP_PRIO_FACTOR_group_a = 20\nDEFAULT_PRIO_FACTOR = 100\n",
            "c",
        )
        .unwrap();
        let (k, _) = CycleKnobs::from_config(&cfg).unwrap();
        let p = Priorities::parse(
            "alice 0.2 0.5 3\nbob 4\ngroup_a.carol 1 10 5\ngroup_a.idle 1 1 2\n",
            "p",
        )
        .unwrap();
        assert_eq!(
            effective_priority("alice", &p, &k),
            0.5,
            "floored at 0.5 and 1"
        );
        assert_eq!(effective_priority("bob", &p, &k), 400.0);
        assert_eq!(effective_priority("group_a.dave", &p, &k), 10.0);
        assert_eq!(effective_priority("nice-user.x", &p, &k), 0.5 * 1e10);
        assert_eq!(effective_priority("zed", &p, &k), 50.0);
        let a = Accountant::new(&["alice", "group_a.carol"], &p, &k);
        assert_eq!(a.usage, [3.0, 5.0]);
        assert_eq!(a.group_usage, [7.0, 3.0]);
    }
}
