"""Python call overhead, classad_rs against HTCondor's classad2 side by side
(issue 14's target: each call at least 5x faster than classad2's).

    pip install .               # classad_rs
    pip install htcondor        # classad2, the comparison
    python3 benches/python_overhead.py [--seconds 1.0]

Prints, per call, the microseconds each module takes (best of 5 runs) and the
ratio classad2 / classad_rs.
"""

import argparse
import timeit

JOB = ('[Requirements = TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory; '
       'RequestCpus = 2; RequestMemory = 2048; Rank = TARGET.Mips; Owner = "alice"]')
SLOT = ('[Requirements = TARGET.Owner != "eve" && TARGET.RequestMemory <= Memory; '
        'Cpus = 8; Memory = 16384; Mips = 3000; Rank = 0]')


def per_call(stmt, setup, seconds):
    t = timeit.Timer(stmt, setup=setup, globals=None)
    n, _ = t.autorange()
    n = max(1, int(n * seconds / 0.2))
    return min(t.repeat(repeat=5, number=n)) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    calls = {
        'ExprTree("1 + 2").eval()': 'c.ExprTree("1 + 2").eval()',
        "ad.symmetricMatch(other)": "job.symmetricMatch(slot)",
    }
    modules = {
        "classad_rs": "import classad_rs as c",
        "classad2": "import htcondor2, classad2 as c",
    }
    times = {}
    for mod, imp in modules.items():
        setup = f"{imp}\njob = c.ClassAd({JOB!r})\nslot = c.ClassAd({SLOT!r})"
        try:
            exec(setup, {})
        except ImportError:
            print(f"{mod}: not installed, skipped")
            continue
        for name, stmt in calls.items():
            times[(mod, name)] = per_call(stmt, setup, a.seconds)
    print(f"{'call':32} {'classad_rs us':>14} {'classad2 us':>12} {'ratio':>7}")
    for name in calls:
        ours = times.get(("classad_rs", name))
        theirs = times.get(("classad2", name))
        ratio = f"{theirs / ours:6.1f}x" if ours and theirs else "-"
        fmt = lambda t: f"{t:.2f}" if t else "-"  # noqa: E731
        print(f"{name:32} {fmt(ours):>14} {fmt(theirs):>12} {ratio:>7}")


if __name__ == "__main__":
    main()
