"""One ``ClassAd`` used by several Python threads at once, and from Python code
that a call runs (a generator or mapping being converted): no call holds the ad
borrowed while the interpreter may run other code, so readers never make
writers fail (``RuntimeError: Already borrowed``) and a value may read or
write the ad it is being stored in, as with classad2."""

import sys
import threading

import pytest

classad_rs = pytest.importorskip("classad_rs")

READERS = 4
WRITERS = 4
ROUNDS = 2000


def _run_all(targets):
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _read(ad, failures):
    for _ in range(ROUNDS):
        try:
            assert ad.get("missing") is None
            assert ad.get("missing", 7) == 7
            assert ad.pop("missing", 8) == 8
            assert ad.setdefault("A", 0) == 1
            assert ad["A"] == 1 and "A" in ad and len(ad) >= 1
            assert ad.eval("A") == 1 and ad.lookup("A") is not None
            assert ad.flatten(classad_rs.ExprTree("A + 1")) == 2
            assert ad.externalRefs(classad_rs.ExprTree("A + X")) == ["X"]
            list(ad)
            list(ad.items())
            repr(ad)
            with pytest.raises(KeyError):
                ad["missing"]
        except Exception as e:  # noqa: BLE001 - counted and shown below
            failures.append(e)


def _write(ad, failures, n):
    for k in range(ROUNDS):
        try:
            ad["B"] = k
            ad.update({"C": [k, k]}, D=str(k))
            ad[f"W{n}"] = k
            del ad[f"W{n}"]
        except Exception as e:  # noqa: BLE001 - counted and shown below
            failures.append(e)


# 100 s: the interpreter switches threads only where a call lets go of it (the
# defect: normalising the KeyError of a missing key, inside the borrow);
# 1 us: at almost any bytecode as well.
@pytest.mark.parametrize("interval", [100.0, 1e-6], ids=["voluntary", "preemptive"])
def test_readers_and_writers_share_an_ad(interval):
    ad = classad_rs.ClassAd({"A": 1})
    reads, writes = [], []
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        _run_all([lambda: _read(ad, reads)] * READERS
                 + [lambda n=n: _write(ad, writes, n) for n in range(WRITERS)])
    finally:
        sys.setswitchinterval(before)
    assert writes == [], f"{len(writes)} of {WRITERS * ROUNDS} writes failed: {writes[:3]}"
    assert reads == [], f"{len(reads)} of {READERS * ROUNDS} reads failed: {reads[:3]}"
    assert ad["B"] == ROUNDS - 1 and ad["C"] == [ROUNDS - 1] * 2
    assert sorted(ad) == ["A", "B", "C", "D"]


def test_an_ad_stored_in_itself_is_a_copy():
    ad = classad_rs.ClassAd({"A": 1})
    ad["copy"] = ad
    ad.update(C=ad)
    ad.setdefault("D", [ad])
    assert repr(ad["copy"]) == "[ A = 1 ]"
    assert repr(ad["C"]) == "[ A = 1; copy = [ A = 1 ] ]"
    assert len(ad["D"][0]) == 3


def test_a_value_converted_may_read_the_ad():
    ad = classad_rs.ClassAd({"A": 1})
    ad["B"] = (ad["A"] + i for i in range(2))
    ad.update({"E": 5}, F=(ad.get("E") for _ in range(1)))
    assert ad["B"] == [1, 2] and ad["F"] == [5]


def test_a_value_converted_may_write_the_ad():
    ad = classad_rs.ClassAd({"A": 1})

    class Writes(dict):
        def items(self):
            ad["Z"] = 2
            return super().items()

    ad["R"] = Writes(a=1)
    assert repr(ad) == "[ A = 1; R = [ a = 1 ]; Z = 2 ]"


def test_a_failed_conversion_leaves_the_ad_as_it_was():
    ad = classad_rs.ClassAd({"A": 1})
    with pytest.raises(classad_rs.ClassAdException):
        ad["B"] = object()
    with pytest.raises(classad_rs.ClassAdException):
        ad.setdefault("B", object())
    assert repr(ad) == "[ A = 1 ]"
