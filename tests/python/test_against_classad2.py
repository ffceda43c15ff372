"""The same script bodies run against HTCondor's classad2 and against
classad_rs, outcome for outcome (skipped where HTCondor is not installed)."""

import pytest

from cases import CASES, outcome
from deviations import DEVIATIONS


@pytest.mark.parametrize("name,body", CASES, ids=[n for n, _ in CASES])
def test_same_outcome_as_classad2(name, body, ours, oracle):
    theirs = outcome(body, oracle)
    mine = outcome(body, ours)
    if name in DEVIATIONS:
        assert DEVIATIONS[name]["classad2"] == theirs, "classad2 changed; review the deviation"
        assert DEVIATIONS[name]["ours"] == mine
    else:
        assert mine == theirs
