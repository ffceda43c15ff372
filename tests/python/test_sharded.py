"""The negotiation cycle over a pool cut into shards (``classad_rs.shard``,
``classad_rs.dask``): the shards' candidate lists, merged in the negotiator's
order, are byte for byte the whole pool's lists, and the cycle run on them
makes the matches ``classad_rs.negotiate`` makes in one process, in the same
order, on pools with partitionable slots, claimed slots (preemption), many
submitters, groups and NaN ranks; in this process, and on a Dask
``distributed.LocalCluster`` of worker processes and of worker threads."""

import functools
import itertools
import json
import os
import pickle

import pytest

import sharded_pools as sp

classad_rs = pytest.importorskip("classad_rs")
shard = pytest.importorskip("classad_rs.shard")


@pytest.mark.parametrize("name", sp.IDS)
def test_shards_merged_are_the_whole_pool(name):
    jobs, slots, prio, config = sp.pool(name)
    one = sp.one_process(name)
    plan = shard.Plan(jobs, slots, config, prio)
    assert plan.job_count == len(jobs)
    whole = plan.candidates()
    assert plan.negotiate() == one
    for n in (1, 2, 3, 7):
        payloads = plan.shards(n)
        # Plain data: what any engine can move (JSON could carry it).
        assert json.loads(json.dumps(payloads)) == payloads
        results = [shard.run(p, threads=1) for p in payloads]
        assert shard.merge(results) == whole, n
        assert shard.merge(results[::-1]) == whole, n
        assert plan.negotiate(results[::-1]) == one, n


def test_more_shards_than_slots_merge_in_any_order():
    """Empty shards start where a slot does; every order of their results is
    the same pool (the docs promise any order)."""
    m, j, p = classad_rs.generate_pool(3, 30, seed=4)
    read = functools.partial(classad_rs.parseAds, parser=classad_rs.ParserType.FileAuto)
    jobs, slots = list(read(j)), list(read(m))
    plan = shard.Plan(jobs, slots, None, p)
    one = classad_rs.negotiate(jobs, slots, priorities=p)
    assert plan.slot_count == 3 and one
    payloads = plan.shards(5)
    assert sum(1 for b in plan.shard_bounds(5) if b[0] == b[1]) == 2
    results = [shard.run(x, threads=1) for x in payloads]
    whole = plan.candidates()
    for order in itertools.permutations(results):
        assert shard.merge(order) == whole
        assert plan.negotiate(order) == one
    # A shard of slots given twice is still refused, in any place.
    with pytest.raises(ValueError, match="follow"):
        plan.negotiate(results[-1:] + results)
    with pytest.raises(ValueError, match="follow"):
        plan.negotiate(results + results[-1:])


def test_the_pools_have_what_the_tests_claim():
    """Preempting matches, partitionable slots, several submitters, a trim."""
    seen = {name: sp.one_process(name) for name in sp.IDS}
    assert all(len(m) > 40 for m in seen.values())
    assert sum(sp.preempted(n, m) for n, m in seen.items()) > 100
    assert sp.preempted("no-preemption", seen["no-preemption"]) == 0
    assert all(sp.partitionable(n, m) > 0 for n, m in seen.items())
    assert all(len(sp.submitters(n, m)) >= 5 for n, m in seen.items())
    jobs, slots, prio, config = sp.pool("slot-constraint-depth-first")
    assert shard.Plan(jobs, slots, config, prio).slot_count < len(slots)


def test_the_result_format_decodes_in_the_documented_order():
    jobs, slots, prio, config = sp.pool("nan-ranks")
    plan = shard.Plan(jobs, slots, config, prio)
    whole = shard.decode(plan.candidates())
    assert (whole.first, whole.slots) == (0, plan.slot_count)
    assert len(whole.lists) == plan.class_count
    nans = 0
    for cands in whole.lists:
        assert cands == sorted(cands, key=shard.order_key)
        assert len({c[0] for c in cands}) == len(cands)
        nans += sum(1 for c in cands if c[1] != c[1] or c[3] != c[3])
    assert nans > 0, "the pool has NaN keys to order"
    # encode is decode's inverse, bit for bit (NaNs included).
    assert shard.encode(whole.lists, whole.first, whole.slots) == plan.candidates()
    # Lists put together in Python merge as the library merges them.
    parts = [shard.decode(shard.run(p)) for p in plan.shards(3)]
    by_hand = [sorted((c for p in parts for c in p.lists[k]), key=shard.order_key)
               for k in range(plan.class_count)]
    assert shard.encode(by_hand, 0, plan.slot_count) == plan.candidates()


def test_results_that_do_not_cover_the_pool_are_refused():
    jobs, slots, prio, config = sp.pool("default")
    plan = shard.Plan(jobs, slots, config, prio)
    results = [shard.run(p) for p in plan.shards(3)]
    with pytest.raises(ValueError, match="cover"):
        plan.negotiate(results[:2])
    with pytest.raises(ValueError, match="follow"):
        plan.negotiate([results[0], results[2]])
    with pytest.raises(ValueError, match="CASHARD1"):
        plan.negotiate([b"nonsense"] + results[1:])
    other = shard.Plan(jobs[:50], slots, config, prio)
    if other.class_count != plan.class_count:
        with pytest.raises(ValueError, match="classes"):
            plan.negotiate([shard.run(p) for p in other.shards(3)])
    with pytest.raises(ValueError, match="format"):
        shard.run({"format": "something else"})


def test_more_threads_than_the_bound_are_refused_at_once():
    m, j, p = classad_rs.generate_pool(3, 30, seed=4)
    read = functools.partial(classad_rs.parseAds, parser=classad_rs.ParserType.FileAuto)
    plan = shard.Plan(list(read(j)), list(read(m)), None, p)
    payload = plan.shards(1)[0]
    bound = classad_rs.MAX_THREADS
    assert bound == 1024
    for n in (bound + 1, 2**64 - 1):
        with pytest.raises(ValueError, match=f"threads={n}: at most {bound}"):
            shard.run(payload, threads=n)
        with pytest.raises(ValueError, match=f"at most {bound}"):
            plan.candidates(threads=n)
    with pytest.raises(ValueError, match="at least 1"):
        shard.run(payload, threads=0)
    assert shard.run(payload, threads=2) == plan.candidates(threads=1)


def test_the_shard_function_pickles():
    """Engines ship the function by reference: it is a plain top-level one."""
    assert pickle.loads(pickle.dumps(shard.run)) is shard.run
    assert pickle.loads(pickle.dumps(shard.candidates)) is shard.candidates


def test_a_plan_from_files_is_the_plan_of_the_ads(tmp_path):
    m, j, p, config = sp.texts("prio-preemption")
    (tmp_path / "m.ads").write_text(m)
    (tmp_path / "j.ads").write_text(j)
    plan = shard.Plan.from_files(str(tmp_path / "j.ads"), tmp_path / "m.ads", config, p)
    results = [shard.run(x) for x in plan.shards(2)]
    assert plan.negotiate(results) == sp.one_process("prio-preemption")


@pytest.fixture(scope="module", params=["processes", "threads"])
def client(request):
    try:
        import distributed
    except ImportError:
        pytest.skip("distributed (pip install 'dask[distributed]') is not installed")
    processes = request.param == "processes"
    cluster = distributed.LocalCluster(
        n_workers=2 if processes else 3, threads_per_worker=1, processes=processes,
        dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.mark.parametrize("name", sp.IDS)
def test_dask_gives_the_one_process_cycle(client, name):
    import classad_rs.dask

    jobs, slots, prio, config = sp.pool(name)
    one = sp.one_process(name)
    plan = shard.Plan(jobs, slots, config, prio)
    assert classad_rs.dask.candidates(plan, client) == plan.candidates()
    got = classad_rs.dask.negotiate(jobs, slots, client, config=config, priorities=prio)
    assert got == one
    # More shards than workers.
    results = classad_rs.dask.shard_results(plan, client, shards=5)
    assert len(results) == 5 and plan.negotiate(results) == one


def test_dask_from_files_and_numpy(client, tmp_path):
    np = pytest.importorskip("numpy")
    import classad_rs.dask

    m, j, p, config = sp.texts("groups")
    (tmp_path / "m.ads").write_text(m)
    (tmp_path / "j.ads").write_text(j)
    got = classad_rs.dask.negotiate(os.fspath(tmp_path / "j.ads"), tmp_path / "m.ads",
                                    client, config=config, priorities=p, numpy=True)
    assert got.dtype == np.int64
    assert [tuple(r) for r in got.tolist()] == sp.one_process("groups")


def test_generated_pool_counts_are_bounded_at_once():
    """As `classad gen-pool`: a count past the generator's bound is a
    ValueError naming it, before anything is planned (it aborted on
    allocation)."""
    with pytest.raises(ValueError, match="machines"):
        classad_rs.generate_pool(2**64 - 1, 1)
    with pytest.raises(ValueError, match="jobs"):
        classad_rs.generate_pool(1, 10**12)


def test_the_documented_dask_script_runs_as_a_script(tmp_path):
    # docs/python.md's Dask example, run as the script it says it is: Dask's
    # LocalCluster starts worker processes that import the script again, which
    # only the `__main__` guard makes safe.
    import re
    import subprocess
    import sys

    pytest.importorskip("distributed")
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
    with open(doc, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    scripts = [b for b in blocks if "LocalCluster" in b]
    assert len(scripts) == 1, scripts
    assert 'if __name__ == "__main__":' in scripts[0]
    (tmp_path / "dask_example.py").write_text(scripts[0])
    done = subprocess.run([sys.executable, "dask_example.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"[1-9]\d* matches\n", done.stdout), done.stdout
