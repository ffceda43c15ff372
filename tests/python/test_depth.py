"""Lists and records nested deep: converted either way up to
``classad_rs.MAX_NESTING`` (165, the deepest the parser reads) and refused past
it with ``ValueError``, never a crash of the interpreter (a list nested 20,000
deep crashed ``ClassAd({"A": x})``, one 13,000 deep crashed ``eval``)."""

import subprocess
import sys

import pytest

classad_rs = pytest.importorskip("classad_rs")
LIMIT = classad_rs.MAX_NESTING


def nested(depth, inner=1):
    x = inner
    for _ in range(depth):
        x = [x]
    return x


def depth_of(x):
    d = 0
    while isinstance(x, list):
        x, d = x[0], d + 1
    return d


def selections(levels):
    """An ad whose ``P0`` evaluates to a list ``levels`` deep, a level per
    reference (each ``P`` a selection over a list of one record)."""
    attrs = "; ".join(f"P{i} = {{[x = P{i + 1}]}}.x" for i in range(levels))
    return classad_rs.ClassAd(f"[{attrs}; P{levels} = 1]")


def test_the_limit_is_what_the_parser_reads():
    assert LIMIT == 165
    classad_rs.ExprTree("{" * LIMIT + "1" + "}" * LIMIT)
    with pytest.raises(classad_rs.ClassAdException):
        classad_rs.ExprTree("{" * (LIMIT + 1) + "1" + "}" * (LIMIT + 1))


def test_python_values_at_the_limit_convert_both_ways():
    x = nested(LIMIT)
    ad = classad_rs.ClassAd({"A": x, "R": {"a": nested(LIMIT - 1)}})
    assert ad["A"] == x and ad.eval("A") == x
    assert depth_of(ad["R"]["a"]) == LIMIT - 1
    # What is built reads back from its text.
    assert classad_rs.ClassAd(repr(ad))["A"] == x


def test_python_values_past_the_limit_are_refused():
    ad = classad_rs.ClassAd()
    deep = nested(LIMIT + 1)
    for store in (
        lambda: classad_rs.ClassAd({"A": deep}),
        lambda: ad.__setitem__("A", deep),
        lambda: ad.update(A=deep),
        lambda: ad.setdefault("A", deep),
        lambda: ad.__setitem__("A", nested(LIMIT, {"a": 1})),
        lambda: ad.__setitem__("A", [classad_rs.ExprTree("{" * LIMIT + "}" * LIMIT)]),
        lambda: ad.__setitem__("A", [classad_rs.ClassAd({"L": nested(LIMIT)})]),
    ):
        with pytest.raises(ValueError, match=f"nested more than {LIMIT} deep"):
            store()
    assert len(ad) == 0
    # At the limit, counting the ExprTree's and the ClassAd's own nesting.
    ad["E"] = [classad_rs.ExprTree("{" * (LIMIT - 1) + "}" * (LIMIT - 1))]
    ad["C"] = [classad_rs.ClassAd({"L": nested(LIMIT - 2)})]
    assert depth_of(ad["C"][0]["L"]) == LIMIT - 2


@pytest.mark.parametrize("levels", [LIMIT, LIMIT + 1, LIMIT + 10])
def test_values_built_by_evaluation_convert_up_to_the_limit(levels):
    # classad2 converts these too, as deep as evaluation reaches (200 here).
    ad = selections(levels)
    if levels <= LIMIT:
        assert depth_of(ad.eval("P0")) == levels
        assert depth_of(classad_rs.ExprTree("P0").eval(ad)) == levels
        return
    with pytest.raises(ValueError, match=f"nested more than {LIMIT} deep"):
        ad.eval("P0")
    with pytest.raises(ValueError, match=f"nested more than {LIMIT} deep"):
        classad_rs.ExprTree("P0").eval(ad)


CRASHES = {
    "20000 deep, stored": "x = nested(20000); c.ClassAd({'A': x})",
    "13000 deep, evaluated": "ad = c.ClassAd(); ad['A'] = nested(13000); ad.eval('A')",
    "a list holding itself": "x = []; x.append(x); c.ClassAd({'A': x})",
    "a dict holding itself": "d = {}; d['d'] = d; c.ClassAd({'A': d})",
}


@pytest.mark.parametrize("script", CRASHES.values(), ids=CRASHES.keys())
def test_what_crashed_the_interpreter_is_a_value_error(script):
    # In a child: before the bound, these were segmentation faults.
    program = (
        "import classad_rs as c\n"
        "def nested(n):\n"
        "    x = 1\n"
        "    for _ in range(n):\n"
        "        x = [x]\n"
        "    return x\n"
        "try:\n"
        f"    {script}\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"ValueError: lists and records nested more than {LIMIT} deep" in done.stdout
