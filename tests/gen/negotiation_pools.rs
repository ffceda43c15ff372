//! Small seeded pools for the negotiation cycle: several submitters with varied
//! priorities and usage, clusters of jobs of one signature, static, claimed and
//! partitionable slots (some under a consumption policy), slot ranks that prefer
//! some jobs, and a configuration drawn from the cycle's knobs.

use super::rng::Rng;

/// One generated cycle: ad texts (old syntax), a priorities file, a
/// configuration.
#[derive(Clone, Debug)]
pub struct NegotiationPool {
    pub jobs: String,
    pub slots: String,
    pub priorities: String,
    pub config: String,
    /// `--schedd-packing`.
    pub packing: bool,
}

impl std::fmt::Display for NegotiationPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--- jobs\n{}--- slots\n{}--- priorities\n{}--- config\n{}--- schedd packing: {}\n",
            self.jobs, self.slots, self.priorities, self.config, self.packing
        )
    }
}

const SUBMITTERS: [&str; 7] = [
    "alice",
    "bob",
    "carol",
    "group_a.dave",
    "group_b.erin",
    "group_a.frank",
    "nice-user.gus",
];

/// Whether the pool should use group quotas (only static ones, which the
/// reference negotiator implements).
pub fn negotiation_pool(master: u64, index: usize, groups: bool) -> NegotiationPool {
    let (_, mut rng) = Rng::for_case(master, 0x4E60, index as u64);
    let r = &mut rng;
    // How names are written (with a domain or not) on a stream of its own, so
    // that the pools' shapes stay those the other draws give.
    let (_, mut names) = Rng::for_case(master, 0x4E61, index as u64);
    let n = &mut names;
    // Concurrency limits, floors and ceilings on a third stream, for the
    // same reason.
    let (_, mut extras) = Rng::for_case(master, 0x4E62, index as u64);
    let e = &mut extras;
    let subs: Vec<&str> = {
        let n = r.range(1, 5);
        let mut v: Vec<&str> = Vec::new();
        while v.len() < n {
            let s = *r.pick(&SUBMITTERS);
            if !v.contains(&s) {
                v.push(s);
            }
        }
        v
    };
    // Priorities: some submitters listed, others take the defaults.
    let mut priorities = String::from("# submitter real-priority factor usage\n");
    for s in SUBMITTERS {
        if r.one_in(2) {
            // condor_userprio prints names with their domain; the plain form
            // often goes without: both find the submitter.
            let s = if n.one_in(2) {
                format!("{s}@d")
            } else {
                s.to_string()
            };
            let real = [0.5, 1.0, 2.5, 10.0, 40.0][r.below(5)];
            match r.below(3) {
                0 => priorities.push_str(&format!("{s} {real}\n")),
                1 => priorities.push_str(&format!("{s} {real} {}\n", [1, 10, 1000][r.below(3)])),
                _ => {
                    priorities.push_str(&format!(
                        "{s} {real} {} {}",
                        [1, 10, 100][r.below(3)],
                        r.below(6)
                    ));
                    // A floor (0: none), and a ceiling (-1: none).
                    if e.one_in(2) {
                        priorities
                            .push_str(&format!(" {}", ["0", "1", "2", "4", "2.5"][e.below(5)]));
                        if e.one_in(2) {
                            priorities
                                .push_str(&format!(" {}", ["-1", "0", "1", "3", "5"][e.below(5)]));
                        }
                    }
                    priorities.push('\n');
                }
            }
        }
    }
    // Jobs: clusters of one signature.
    let mut jobs = String::new();
    let mut cluster = 10;
    let n_jobs = r.range(3, 40);
    let mut made = 0;
    while made < n_jobs {
        cluster += r.range(1, 3) as i64;
        let who = *r.pick(&subs);
        let (owner, group) = match who.split_once('.') {
            Some((g, u)) if g.starts_with("group") => (u.to_string(), Some(who)),
            _ => (who.to_string(), None),
        };
        let cpus = [1, 1, 2, 4][r.below(4)];
        let mem = [512, 1024, 4096][r.below(3)];
        let req = match r.below(5) {
            0 => "true".to_string(),
            1 => "TARGET.Arch == \"X86_64\" && TARGET.Memory >= RequestMemory".to_string(),
            2 => "TARGET.Kind == \"gpu\"".to_string(),
            _ => "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory".to_string(),
        };
        let rank = match r.below(5) {
            0 => None,
            1 => Some("TARGET.Memory".to_string()),
            2 => Some("TARGET.Cpus * 10".to_string()),
            3 => Some("-TARGET.SlotID".to_string()),
            _ => Some("0".to_string()),
        };
        let prio = [0, 0, 5, -5][r.below(4)];
        // Sometimes an attribute that reads the slot back (a slot's Rank reads it).
        let read_back = ["Echo = 3", "Echo = TARGET.Cpus - 1.5", "Echo = 1"][r.below(3)];
        let procs = r.range(1, 6).min(n_jobs - made);
        // Now and then a cluster without User: its submitter takes the
        // configured domain, or none.
        let user = if n.one_in(5) {
            String::new()
        } else {
            format!("User = \"{owner}@d\"\n")
        };
        // Concurrency limits: strings alone (tested once a request), an
        // expression of the slot (tested per candidate), an invalid token.
        let limits = if e.one_in(3) {
            let l = [
                "\"lic\"",
                "\"LIC:2, db\"",
                "\"large.matlab\"",
                "\"9bad, db\"",
                "ifThenElse(TARGET.Kind == \"gpu\", \"gpulic\", \"lic:0.5\")",
                "strcat(\"large.\", TARGET.Arch)",
            ];
            format!("ConcurrencyLimits = {}\n", e.pick(&l))
        } else {
            String::new()
        };
        for p in 0..procs {
            jobs.push_str(&format!(
                "ClusterId = {cluster}\nProcId = {p}\nOwner = \"{owner}\"\n{user}{limits}"
            ));
            if let Some(g) = group {
                jobs.push_str(&format!("AccountingGroup = \"{g}\"\n"));
            }
            let status = if r.one_in(8) { 2 } else { 1 };
            jobs.push_str(&format!(
                "JobStatus = {status}\nJobPrio = {prio}\nRequestCpus = {cpus}\n\
                 RequestMemory = {mem}\nRequirements = {req}\n{read_back}\n"
            ));
            if let Some(rk) = &rank {
                jobs.push_str(&format!("Rank = {rk}\n"));
            }
            jobs.push('\n');
            made += 1;
        }
    }
    // Slots.
    let mut slots = String::new();
    let n_slots = r.range(2, 16);
    for i in 0..n_slots {
        let kind = r.below(10);
        let arch = if r.one_in(5) { "aarch64" } else { "X86_64" };
        let start = match r.below(3) {
            0 => "true".to_string(),
            1 => "TARGET.Owner =!= \"bob\"".to_string(),
            _ => "TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory".to_string(),
        };
        let rank = match r.below(5) {
            0 => "TARGET.JobPrio".to_string(),
            1 => "ifThenElse(TARGET.Owner == \"carol\", 10, 0)".to_string(),
            2 => "TARGET.Echo".to_string(),
            _ => "0".to_string(),
        };
        let mut ad = format!(
            "Name = \"slot{i}@host{}\"\nSlotID = {}\nArch = \"{arch}\"\nKind = \"{}\"\n\
             KFlops = {}\nStart = {start}\nRank = {rank}\nCurrentRank = {}\n",
            i / 3,
            i % 3 + 1,
            if r.one_in(4) { "gpu" } else { "cpu" },
            1000 + 100 * r.below(5),
            [0, 0, 5][r.below(3)],
        );
        match kind {
            0..=2 => {
                // A partitionable slot, sometimes under a consumption policy.
                let cpus = [4, 8, 16][r.below(3)];
                ad.push_str(&format!(
                    "PartitionableSlot = true\nCpus = {cpus}\nMemory = {}\nState = \"Unclaimed\"\n\
                     SlotWeight = Cpus\n\
                     Requirements = START && TARGET.RequestCpus <= MY.Cpus && \
                     TARGET.RequestMemory <= MY.Memory\n",
                    [4096, 16384][r.below(2)]
                ));
                if r.one_in(2) {
                    ad.push_str(
                        "MachineResources = \"Cpus Memory Swap\"\n\
                         ConsumptionCpus = quantize(target.RequestCpus, {1})\n\
                         ConsumptionMemory = quantize(target.RequestMemory, {512})\n",
                    );
                }
            }
            3..=4 => {
                // A claimed slot.
                let user = match r.below(3) {
                    // The startd's names carry the domain; some here do not.
                    0 if n.one_in(2) => format!("{}@d", r.pick(&subs)),
                    0 => (*r.pick(&subs)).to_string(),
                    1 => "zed@d".to_string(),
                    _ => "group_b.yan@d".to_string(),
                };
                let attr = if user.contains('.') {
                    "AccountingGroup"
                } else {
                    "RemoteUser"
                };
                ad.push_str(&format!(
                    "Cpus = {}\nMemory = 4096\nState = \"Claimed\"\n{attr} = \"{user}\"\n\
                     RemoteOwner = \"{user}\"\nRequirements = START\n",
                    [1, 2][r.below(2)]
                ));
                if r.one_in(4) {
                    ad.push_str("RetirementTimeRemaining = 100\n");
                }
                if r.one_in(3) {
                    ad.push_str("SlotWeight = 2\n");
                }
                if e.one_in(2) {
                    let l = ["lic", "db:2", "large.x86_64", "Lic, gpulic"];
                    ad.push_str(&format!("ConcurrencyLimits = \"{}\"\n", e.pick(&l)));
                }
            }
            _ => {
                ad.push_str(&format!(
                    "Cpus = {}\nMemory = {}\nState = \"Unclaimed\"\nRequirements = START\n",
                    [1, 2, 4][r.below(3)],
                    [1024, 4096, 8192][r.below(3)]
                ));
                if r.one_in(4) {
                    ad.push_str("SlotWeight = 1.5\n");
                }
            }
        }
        slots.push_str(&ad);
        slots.push('\n');
    }
    // Configuration.
    let mut config = String::new();
    let knobs: [(&str, &[&str]); 12] = [
        ("NEGOTIATOR_CONSIDER_PREEMPTION", &["false"]),
        ("NEGOTIATOR_USE_SLOT_WEIGHTS", &["false"]),
        ("NEGOTIATOR_MATCHLIST_CACHING", &["false"]),
        ("NEGOTIATOR_IGNORE_JOB_RANKS", &["true"]),
        (
            "PREEMPTION_REQUIREMENTS",
            &["True", "MY.RemoteUserPrio > 100"],
        ),
        ("NEGOTIATOR_DEPTH_FIRST", &["true"]),
        ("NEGOTIATOR_IGNORE_USER_PRIORITIES", &["true"]),
        ("USE_GLOBAL_JOB_PRIOS", &["true"]),
        ("NEGOTIATOR_JOB_CONSTRAINT", &["JobPrio >= 0"]),
        ("NEGOTIATOR_SLOT_CONSTRAINT", &["Cpus < 16"]),
        ("NEGOTIATOR_POST_JOB_RANK", &["KFlops", ""]),
        ("DEFAULT_PRIO_FACTOR", &["1", "10"]),
    ];
    for (name, values) in knobs {
        if r.one_in(4) {
            config.push_str(&format!("{name} = {}\n", r.pick(values)));
        }
    }
    if n.one_in(4) {
        config.push_str("ACCOUNTING_DOMAIN = d\n");
    }
    let limit_knobs: [(&str, &[&str]); 5] = [
        ("LIC_LIMIT", &["0", "1", "2", "4"]),
        ("DB_LIMIT", &["1", "3"]),
        ("GPULIC_LIMIT", &["1"]),
        ("CONCURRENCY_LIMIT_DEFAULT_LARGE", &["1", "2"]),
        ("CONCURRENCY_LIMIT_DEFAULT", &["2", "5"]),
    ];
    for (name, values) in limit_knobs {
        if e.one_in(2) {
            config.push_str(&format!("{name} = {}\n", e.pick(values)));
        }
    }
    let packing = r.one_in(4);
    if groups {
        config.push_str("GROUP_NAMES = group_a, group_b\n");
        for g in ["group_a", "group_b"] {
            if !r.one_in(4) {
                config.push_str(&format!("GROUP_QUOTA_{g} = {}\n", r.below(12)));
            }
        }
        if r.one_in(3) {
            config.push_str("NEGOTIATOR_STRICT_ENFORCE_QUOTA = false\n");
        }
        if r.one_in(3) {
            config.push_str("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = 1\n");
        }
    }
    NegotiationPool {
        jobs,
        slots,
        priorities,
        config,
        packing,
    }
}
