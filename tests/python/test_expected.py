"""The script bodies run against classad_rs alone, held to classad2's outcomes
recorded in ``expected.json`` by ``generate_expected.py`` (no HTCondor
needed)."""

import json
import os

import pytest

from cases import CASES, outcome
from deviations import DEVIATIONS

with open(os.path.join(os.path.dirname(__file__), "expected.json"), encoding="utf-8") as f:
    EXPECTED = json.load(f)


def test_every_case_has_a_recorded_outcome():
    assert sorted(EXPECTED) == sorted(n for n, _ in CASES)


@pytest.mark.parametrize("name,body", CASES, ids=[n for n, _ in CASES])
def test_recorded_outcome(name, body, ours):
    want = DEVIATIONS[name]["ours"] if name in DEVIATIONS else EXPECTED[name]
    assert outcome(body, ours) == want
