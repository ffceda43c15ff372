"""``LivingPool``, a pool kept between negotiation cycles, held against the
fresh cycle: its first cycle is ``negotiate``'s on the same ads, and each later
cycle, after jobs and slots come, change and go and the clock moves, is the
first cycle of a pool made afresh from the same ads and the accountant's
state. Then what a cycle works out again, the errors, and the accountant's
state read back."""

import threading

import pytest


def slot(c, n, cpus, memory=4096):
    return c.ClassAd(f"""[
        Name = "slot{n}@host{n}";
        Cpus = {cpus};
        Memory = {memory};
        Requirements = TARGET.RequestCpus <= MY.Cpus
    ]""")


def job(c, user, cluster, proc, cpus):
    return c.ClassAd(f"""[
        Owner = "{user}";
        User = "{user}@pool";
        ClusterId = {cluster};
        ProcId = {proc};
        JobStatus = 1;
        RequestCpus = {cpus};
        Requirements = TARGET.Cpus >= MY.RequestCpus && TARGET.Memory >= 1024
    ]""")


def small_pool(c):
    slots = [slot(c, 1, 1), slot(c, 2, 2), slot(c, 3, 4), slot(c, 4, 1, memory=512)]
    jobs = [job(c, "alice", 1, 0, 1), job(c, "alice", 1, 1, 1), job(c, "bob", 2, 0, 2),
            job(c, "bob", 2, 1, 4), job(c, "carol", 3, 0, 1), job(c, "alice", 4, 0, 8)]
    return slots, jobs


def fresh_matches(c, pool):
    """The first cycle of a pool made afresh from ``pool``'s ads and
    accountant state, its ids (0, 1, ... in order) given as ``pool``'s."""
    jobs, slots = pool.jobs(), pool.slots()
    fresh = c.LivingPool([ad for _, ad in slots], [ad for _, ad in jobs],
                         accountant=pool.accountant(), now=pool.now)
    return [(jobs[j][0], slots[s][0]) for j, s in fresh.cycle()["matches"]]


def test_cycles_are_fresh_cycles(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs)
    first = pool.cycle()
    # No accountant yet: the first cycle is negotiate's, the ids the indices.
    assert first["matches"] == ours.negotiate(jobs, slots)
    assert len(first["matches"]) == 3, first
    steps = [
        lambda p: p.add_job(job(ours, "carol", 5, 0, 2)),
        lambda p: p.remove_job(0),
        lambda p: p.update_slot(1, slot(ours, 2, 8)),
        lambda p: p.advance_to(p.now + 600),
        # The id job 0 had goes to the next job added, at its place.
        lambda p: p.add_job(job(ours, "bob", 6, 0, 1)),
        lambda p: p.remove_slot(2),
        lambda p: p.add_slot(slot(ours, 5, 4)),
        lambda p: p.advance_to(p.now + 600),
    ]
    for step in steps:
        step(pool)
        want = fresh_matches(ours, pool)
        got = pool.cycle()
        assert got["matches"] == want
        assert [(d["job"], d["slot"]) for d in got["match_details"]] == got["matches"]
    assert pool.job(0)["ClusterId"] == 6


def test_match_details_and_unmatched(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs)
    c = pool.cycle()
    for d in c["match_details"]:
        assert d["submitter"] == pool.job(d["job"])["User"]
        assert d["preempt"] == "none"
        assert d["group"] is None
        assert d["spin"] >= 1 and isinstance(d["cost"], float)
        assert isinstance(d["autocluster"], int)
    matched = {j for j, _ in c["matches"]}
    unmatched = dict(c["unmatched"])
    # Every idle job is matched or left with a reason, never both.
    assert matched | set(unmatched) == set(range(len(jobs)))
    assert not matched & set(unmatched)
    assert all(isinstance(why, str) and why for why in unmatched.values())
    assert set(c["work"]) == {"rebuilt", "jobs_classified", "jobs_reread",
                              "classes_matched", "classes_dropped", "slots_prepared",
                              "slots_matched", "evaluations", "heads_made",
                              "cluster_match_s", "cycle_s"}
    assert c["work"]["rebuilt"] is True
    assert c["work"]["jobs_classified"] == len(jobs)


def test_priorities_file_gives_negotiates_first_cycle(ours):
    slots, jobs = small_pool(ours)
    prio = "alice@pool 500\nbob@pool 0.5\ncarol@pool 20\n"
    pool = ours.LivingPool(slots, jobs, priorities=prio)
    assert pool.cycle()["matches"] == ours.negotiate(jobs, slots, priorities=prio)


def test_a_cycle_works_out_only_what_changed(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs)
    pool.cycle()
    pool.update_slot(2, slot(ours, 3, 4, memory=8192))
    work = pool.cycle()["work"]
    assert work["rebuilt"] is False
    assert work["slots_matched"] == 1
    assert work["jobs_classified"] == 0
    pool.add_job(job(ours, "dave", 9, 0, 1))
    work = pool.cycle()["work"]
    assert work["jobs_classified"] == 1
    assert work["slots_matched"] == 0
    # Nothing changed: nothing is worked out again.
    work = pool.cycle()["work"]
    assert (work["jobs_classified"], work["slots_matched"], work["classes_matched"]) == (0, 0, 0)


def test_ids_and_ads(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs, now=1000)
    assert (pool.job_count, pool.slot_count, pool.now) == (6, 4, 1000)
    assert [i for i, _ in pool.jobs()] == list(range(6))
    assert [i for i, _ in pool.slots()] == list(range(4))
    gone = pool.remove_job(3)
    assert gone["ClusterId"] == 2 and gone["ProcId"] == 1
    assert pool.job_count == 5
    assert pool.add_job(job(ours, "erin", 7, 0, 1)) == 3
    assert pool.add_job(job(ours, "erin", 7, 1, 1)) == 6
    assert pool.slot(3)["Name"] == "slot4@host4"
    # The ads given out are copies: changing one changes nothing in the pool.
    ad = pool.job(3)
    ad["RequestCpus"] = 64
    assert pool.job(3)["RequestCpus"] == 1
    pool.update_job(3, ad)
    assert pool.job(3)["RequestCpus"] == 64
    pool.advance_to(2000)
    assert pool.now == 2000
    assert repr(pool) == "LivingPool(jobs=7, slots=4, now=2000)"


def test_matches_made_into_claims_and_jobs_ended(ours):
    """``apply_matches`` claims the last cycle's slots for their jobs (a
    partitionable slot carved into a dynamic one), once; the next cycle
    matches the running jobs no more; ``end_job`` frees the claim."""
    pslot = ours.ClassAd("""[
        Name = "slot1@p"; SlotID = 1; PartitionableSlot = true;
        State = "Unclaimed"; Cpus = 4; Memory = 8192; Disk = 10000;
        TotalSlotCpus = 4; TotalSlotMemory = 8192; TotalSlotDisk = 10000;
        Requirements = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestCpus >= 2
    ]""")
    slots = [slot(ours, 1, 1), pslot]
    jobs = [job(ours, "alice", 1, 0, 1), job(ours, "bob", 2, 0, 2)]
    for j in jobs:
        j["RequestMemory"] = 1000
        j["RequestDisk"] = 100
    pool = ours.LivingPool(slots, jobs, now=1000)
    assert pool.apply_matches() == {"started": [], "evicted": [], "refused": []}
    matches = pool.cycle()["matches"]
    assert len(matches) == 2
    applied = pool.apply_matches()
    assert applied["evicted"] == [] and applied["refused"] == []
    started = {j: (s, p) for j, s, p in applied["started"]}
    static_job = next(j for j, s in matches if s == 0)
    carved_job = next(j for j, s in matches if s == 1)
    assert started[static_job] == (0, None)
    dslot, parent = started[carved_job]
    assert parent == 1 and dslot == 2
    assert pool.slot(dslot)["Name"] == "slot1_1@p"
    assert pool.slot(1)["Cpus"] == 4 - pool.slot(dslot)["Cpus"]
    assert pool.slot(0)["State"] == "Claimed"
    assert pool.job(static_job)["JobStatus"] == 2
    assert pool.job(static_job)["RemoteHost"] == "slot1@host1"
    assert pool.apply_matches()["started"] == [], "applied once"
    pool.advance_to(1060)
    assert pool.cycle()["matches"] == []
    assert pool.release_claim(1) == {"freed": None, "deleted": None, "evicted": None}
    released = pool.release_claim(0)
    assert released == {"freed": 0, "deleted": None, "evicted": static_job}
    assert pool.job(static_job)["JobStatus"] == 1
    assert pool.cycle()["matches"] == [(static_job, 0)]
    pool.apply_matches()
    with pytest.raises(KeyError, match="no slot has id 9"):
        pool.release_claim(9)
    ended = pool.end_job(carved_job)
    assert (ended["freed"], ended["deleted"]) == (1, dslot)
    assert ended["ad"]["JobStatus"] == 2
    assert pool.slot(1)["Cpus"] == 4 and pool.slot_count == 2
    assert pool.end_job(static_job)["freed"] == 0
    assert pool.slot(0)["State"] == "Unclaimed"
    with pytest.raises(KeyError, match="no job has id 0"):
        pool.end_job(0)


def test_errors(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs)
    ad = job(ours, "alice", 1, 0, 1)
    for call in [lambda: pool.job(6), lambda: pool.remove_job(99),
                 lambda: pool.update_job(99, ad), lambda: pool.slot(4),
                 lambda: pool.remove_slot(7), lambda: pool.update_slot(4, ad),
                 lambda: pool.job(-1), lambda: pool.slot(2**40)]:
        with pytest.raises(KeyError, match=r"no (job|slot) has id -?\d+"):
            call()
    with pytest.raises(KeyError, match="no job has id 99"):
        pool.remove_job(99)
    pool.remove_job(2)
    with pytest.raises(KeyError, match="no job has id 2"):
        pool.job(2)
    with pytest.raises(TypeError):
        pool.add_job({"Owner": "alice"})
    with pytest.raises(TypeError):
        ours.LivingPool([1], jobs)
    with pytest.raises(ValueError, match="not both"):
        ours.LivingPool(slots, jobs, accountant="LastUpdate = 0\n", priorities="alice 1\n")
    bad = "NEGOTIATOR_PRE_JOB_RANK = (\n"
    with pytest.raises(Exception) as elsewhere:
        ours.negotiate(jobs, slots, config=bad)
    with pytest.raises(type(elsewhere.value)):
        ours.LivingPool(slots, jobs, config=bad)
    with pytest.raises(ValueError, match="<priorities>:1"):
        ours.LivingPool(slots, jobs, priorities="alice notanumber\n")
    with pytest.raises(ValueError, match="<accountant>"):
        ours.LivingPool(slots, jobs, accountant="Name1 = \"alice@pool\"\nPriority1 = \"x\"\n")


def test_accountant_round_trips(ours):
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs, now=1_700_000_000)
    for _ in range(3):
        pool.cycle()
        pool.advance_to(pool.now + 600)
    state = pool.accountant()
    assert "alice@pool" in state
    again = ours.LivingPool(slots, jobs, accountant=state)
    assert again.accountant() == state
    # The clock starts at the state's last update.
    assert again.now == pool.now - 600
    # And it goes on from there as the pool it came from.
    again.advance_to(pool.now)
    assert again.cycle()["matches"] == pool.cycle()["matches"]
    assert again.accountant() == pool.accountant()


def test_threads_share_a_pool(ours):
    # The pool sits behind a lock: calls from other threads wait for a cycle
    # instead of failing.
    slots, jobs = small_pool(ours)
    pool = ours.LivingPool(slots, jobs)
    want = pool.cycle()["matches"]
    results, errors = [], []

    def run():
        try:
            for _ in range(20):
                results.append(pool.cycle()["matches"])
                pool.job_count
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 80
    # With the clock still, every cycle is the same cycle.
    assert all(r == want for r in results)
