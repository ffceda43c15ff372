"""Shared set-up: times in UTC (the cases convert naive ``datetime``s, which
classad2 reads as local time), and the two modules."""

import os
import time

os.environ["TZ"] = "UTC"
time.tzset()

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ours():
    import classad_rs

    classad_rs.setStrictSemantics(False)
    return classad_rs


@pytest.fixture(scope="session")
def oracle():
    """HTCondor's bindings with its daemon semantics (``htcondor2`` imported
    first), or the test is skipped."""
    try:
        import htcondor2  # noqa: F401
        import classad2
    except ImportError:
        pytest.skip("HTCondor's Python bindings (htcondor2, classad2) are not installed")
    return classad2
