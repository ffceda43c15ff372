"""Writes classad2's outcome of every case of ``cases.py`` to ``expected.json``.

    pip install htcondor      # the oracle (25.14.1 was used)
    python3 tests/python/generate_expected.py

Deterministic (the cases avoid the clock and random numbers; times are UTC).
"""

import json
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import htcondor2  # noqa: E402,F401  (HTCondor's daemon semantics, before classad2)
import classad2  # noqa: E402

from cases import CASES, outcome  # noqa: E402


def main():
    out = {name: outcome(body, classad2) for name, body in CASES}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=0, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    print(f"{len(out)} cases written to {path}")


if __name__ == "__main__":
    main()
