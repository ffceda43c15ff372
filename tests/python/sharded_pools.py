"""Generated pools (``classad_rs.generate_pool``, the library's ``classad gen-pool``)
and negotiator configurations for the sharded cycle's tests: partitionable
slots, claimed dynamic slots (preemption), a consumption-policy slot, many
submitters with priorities, groups, rank expressions with NaN values, a slot
constraint."""

import functools

import classad_rs

# (name, machines, jobs, seed, submitters, configuration text)
CASES = [
    ("default", 300, 3000, 4, None, ""),
    ("prio-preemption", 300, 3000, 5, 12, "PREEMPTION_REQUIREMENTS = True\n"),
    ("no-preemption", 250, 2500, 6, None, "NEGOTIATOR_CONSIDER_PREEMPTION = False\n"),
    ("groups", 300, 3000, 7, None,
     "GROUP_NAMES = group_cms, group_atlas, group_chtc\n"
     "GROUP_QUOTA_group_cms = 40\nGROUP_QUOTA_group_atlas = 30\n"
     "GROUP_QUOTA_group_chtc = 200\nGROUP_ACCEPT_SURPLUS = True\n"),
    ("nan-ranks", 300, 3000, 8, None,
     # PRE is NaN on the big slots, POST on every second: NaN sorts below
     # every number, in the shards and in the merge alike.
     "NEGOTIATOR_PRE_JOB_RANK = ifThenElse(Cpus > 8, real(\"NaN\"), Cpus)\n"
     "NEGOTIATOR_POST_JOB_RANK = ifThenElse(SlotID % 2 == 0, real(\"NaN\"), -SlotID)\n"),
    ("slot-constraint-depth-first", 300, 3000, 9, None,
     "NEGOTIATOR_SLOT_CONSTRAINT = Memory > 2048\n"
     "NEGOTIATOR_DEPTH_FIRST = True\n"),
    ("ignore-job-ranks", 250, 2500, 10, 6, "NEGOTIATOR_IGNORE_JOB_RANKS = True\n"),
]

IDS = [c[0] for c in CASES]


@functools.lru_cache(maxsize=None)
def texts(name):
    """(slots text, jobs text, priorities text, config text) of a case."""
    _, machines, jobs, seed, submitters, config = next(c for c in CASES if c[0] == name)
    m, j, p = classad_rs.generate_pool(machines, jobs, seed=seed, submitters=submitters)
    return m, j, p, config


@functools.lru_cache(maxsize=None)
def pool(name):
    """(jobs, slots, priorities, config) of a case, the ads parsed."""
    m, j, p, config = texts(name)
    read = functools.partial(classad_rs.parseAds, parser=classad_rs.ParserType.FileAuto)
    return list(read(j)), list(read(m)), p, config or None


@functools.lru_cache(maxsize=None)
def one_process(name):
    """The cycle of a case in one process (``classad_rs.negotiate``)."""
    jobs, slots, prio, config = pool(name)
    return classad_rs.negotiate(jobs, slots, config=config, priorities=prio)


def preempted(name, matches):
    """How many matches take a slot someone runs on."""
    _, slots, _, _ = pool(name)
    return sum(1 for _, s in matches if "RemoteUser" in slots[s])


def partitionable(name, matches):
    """How many matches take a partitionable slot."""
    _, slots, _, _ = pool(name)
    return sum(1 for _, s in matches if slots[s].get("PartitionableSlot") is True)


def submitters(name, matches):
    """The submitters (accounting group, else owner) with a match."""
    jobs, _, _, _ = pool(name)
    return {str(jobs[j].get("AccountingGroup", jobs[j].get("Owner"))) for j, _ in matches}
