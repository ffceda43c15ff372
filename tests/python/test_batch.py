"""The batch calls (``Pool``, ``negotiate``) held against HTCondor's own match
tables of the conformance pools (computed pair by pair by HTCondor's
``symmetricMatch``), against our own pair-by-pair ``symmetricMatch``, and
against the ``classad negotiate`` command when it is built."""

import json
import os
import shutil
import subprocess

import pytest

POOLS = os.path.join(os.path.dirname(__file__), "..", "conformance", "pools")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def pool(c, n):
    def ads(kind):
        with open(os.path.join(POOLS, f"pool{n}.{kind}.ads"), encoding="utf-8") as f:
            return list(c.parseAds(f.read()))

    return ads("jobs"), ads("machines")


def htcondor_pairs(n):
    with open(os.path.join(POOLS, f"pool{n}.matches.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [(r["job"], r["machine"]) for r in rows if r["match"]]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_all_pairs_are_htcondors_symmetric_matches(ours, n):
    jobs, slots = pool(ours, n)
    p = ours.Pool(slots)
    assert len(p) == len(slots)
    got = p.allPairs(jobs)
    assert got == htcondor_pairs(n)
    assert got == [(j, s) for j, job in enumerate(jobs) for s, slot in enumerate(slots)
                   if job.symmetricMatch(slot)]
    # The compiled slots serve a second queue (a part of the first) alike.
    assert p.allPairs(jobs[:7]) == [(j, s) for j, s in got if j < 7]


def test_all_pairs_as_numpy(ours):
    np = pytest.importorskip("numpy")
    jobs, slots = pool(ours, 1)
    arr = ours.Pool(slots).allPairs(jobs, numpy=True)
    assert arr.dtype == np.int64 and arr.shape == (len(htcondor_pairs(1)), 2)
    assert [tuple(r) for r in arr.tolist()] == htcondor_pairs(1)


def test_candidates_are_the_matching_slots_best_first(ours):
    jobs, slots = pool(ours, 2)
    class_of, cands = ours.Pool(slots).candidates(jobs)
    assert len(class_of) == len(jobs)
    pairs = set(htcondor_pairs(2))
    for j, job in enumerate(jobs):
        mine = cands[class_of[j]]
        assert sorted(mine) == [s for s in range(len(slots)) if (j, s) in pairs]
        # Best first by the job's Rank of the slot (NEGOTIATOR_*_JOB_RANK unset).
        ranks = [ours.ExprTree("TARGET.Rank").eval(slots[s], job) for s in mine]
        ranks = [float(r) if isinstance(r, (int, float)) else 0.0 for r in ranks]
        assert ranks == sorted(ranks, reverse=True)


def test_negotiate_hands_out_matching_slots_once(ours):
    jobs, slots = pool(ours, 1)
    got = ours.negotiate(jobs, slots)
    assert got, "the built-in pool makes matches"
    assert len({s for _, s in got}) == len(got) and len({j for j, _ in got}) == len(got)
    assert all(jobs[j].symmetricMatch(slots[s]) for j, s in got)


def test_negotiate_is_the_commands_cycle(ours, tmp_path):
    exe = shutil.which("classad") or next(
        (p for p in (os.path.join(ROOT, "target", "release", "classad"),
                     os.path.join(os.environ.get("CARGO_TARGET_DIR", ""), "release", "classad"))
         if os.path.exists(p)), None)
    if exe is None:
        pytest.skip("the classad command is not built")
    jobs, slots = pool(ours, 1)
    prio = "group_atlas.rupert 5.0\n"
    (tmp_path / "prio").write_text(prio)
    out = subprocess.run(
        [exe, "negotiate", "--jobs", os.path.join(POOLS, "pool1.jobs.ads"), "--machines",
         os.path.join(POOLS, "pool1.machines.ads"), "--priorities", str(tmp_path / "prio"),
         "--quiet"], capture_output=True, text=True, check=True).stdout
    want = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
    assert ours.negotiate(jobs, slots, priorities=prio) == want


def test_bad_inputs_raise(ours):
    with pytest.raises(TypeError):
        ours.Pool([1, 2])
    with pytest.raises(ValueError):
        ours.negotiate([], [], priorities="alice notanumber\n")
    with pytest.raises(ValueError):
        ours.Pool([], config="NEGOTIATOR_PRE_JOB_RANK = (\n")


def test_configuration_and_priorities_are_bounded(ours):
    # 40 knobs each referring twice to the next: a TiB expanded, stopped at once.
    laughs = "".join(f"A{i} = $(A{i + 1})$(A{i + 1})\n" for i in range(40))
    laughs += "A40 = x\nNEGOTIATOR_PRE_JOB_RANK = $(A0)\n"
    where = r"<config>:42: NEGOTIATOR_PRE_JOB_RANK: its \$\(\.\.\.\) references"
    with pytest.raises(ValueError, match=where):
        ours.Pool([], config=laughs)
    with pytest.raises(ValueError, match=where):
        ours.negotiate([], [], config=laughs)
    # A finite real priority and factor whose product is not.
    with pytest.raises(ValueError, match=r"<priorities>:1:3: expected a real priority"):
        ours.negotiate([], [], priorities="a 1e200 1e200\n")


def test_strict_semantics_on_request(ours):
    my, target = ours.ClassAd({"a": 1}), ours.ClassAd({"x": 5})
    try:
        assert ours.ExprTree("x").eval(my, target) == 5
        ours.setStrictSemantics(True)
        assert ours.strictSemantics()
        assert ours.ExprTree("x").eval(my, target) == ours.Value.Undefined
    finally:
        ours.setStrictSemantics(False)


@pytest.mark.parametrize("path_type", ["Path", "str"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_files_given_as_paths_match_as_their_ads(ours, n, path_type, tmp_path):
    # A path of slots or jobs, a pathlib.Path or a str as Python's own file
    # calls take, is read by the library itself: the same pairs, candidates
    # and cycle as the ads parsed in Python; gzip too.
    import gzip
    import pathlib

    jobs, slots = pool(ours, n)
    jobs_path = pathlib.Path(POOLS) / f"pool{n}.jobs.ads"
    slots_path = tmp_path / "slots.ads.gz"
    with open(pathlib.Path(POOLS) / f"pool{n}.machines.ads", "rb") as f:
        slots_path.write_bytes(gzip.compress(f.read()))
    if path_type == "str":
        jobs_path, slots_path = str(jobs_path), str(slots_path)
    by_ads, by_path = ours.Pool(slots), ours.Pool(slots_path)
    assert len(by_path) == len(slots)
    assert by_path.allPairs(jobs_path) == by_ads.allPairs(jobs)
    assert by_path.candidates(jobs_path) == by_ads.candidates(jobs)
    assert ours.negotiate(jobs_path, slots_path) == ours.negotiate(jobs, slots)
    by_files = ours.PreparedCycle(jobs_path, slots_path)
    assert by_files.negotiate() == ours.PreparedCycle(jobs, slots).negotiate()


def test_a_path_that_does_not_read_is_an_error_naming_it(ours, tmp_path):
    missing = tmp_path / "none.ads"
    with pytest.raises(OSError, match="none.ads"):
        ours.Pool(missing)
    with pytest.raises(OSError, match="none.ads"):
        ours.negotiate(str(missing), [])
    bad = tmp_path / "bad.ads"
    bad.write_text("[ a = ]\n")
    with pytest.raises(OSError, match="bad.ads"):
        ours.Pool([]).allPairs(bad)
