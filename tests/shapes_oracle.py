#!/usr/bin/env python3
"""Hold the shape families' pools (`classad gen-pool --shape`) against HTCondor's
own library (`pip install htcondor`): every pair of each pool matched by
HTCondor's `symmetricMatch` and by `classad match --all-pairs` on both engines,
which must print the same pairs.

    cargo build --release
    python3 tests/shapes_oracle.py target/release/classad [--jobs 100]
        [--machines 150] [--seeds 1,2,3] [FAMILY ...]

Prints one line per pool; exits 1 when a pool's pairs differ.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import htcondor2  # noqa: F401  (before classad2: daemon semantics)
import classad2

FAMILIES = ["benchmark", "target-arithmetic", "target-pairs", "attribute-lists",
            "start-arithmetic", "records", "strings", "glidein", "mix"]


def read_ads(path):
    with open(path) as f:
        text = f.read()
    return [classad2.parseOne(t, classad2.ParserType.Old)
            for t in text.split("\n\n") if t.strip()]


def htcondor_pairs(jobs, machines):
    return "".join(f"{j} {m}\n"
                   for j, job in enumerate(read_ads(jobs))
                   for m, machine in enumerate(read_ads(machines))
                   if job.symmetricMatch(machine))


def our_pairs(classad, jobs, machines, engine):
    return subprocess.run(
        [classad, "match", "--all-pairs", "--threads", "1", "--engine", engine,
         "--jobs", jobs, "--machines", machines],
        check=True, capture_output=True, text=True).stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("classad")
    p.add_argument("families", nargs="*", default=FAMILIES)
    p.add_argument("--jobs", type=int, default=100)
    p.add_argument("--machines", type=int, default=150)
    p.add_argument("--seeds", default="1,2,3")
    a = p.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        jobs, machines = os.path.join(d, "jobs.ads"), os.path.join(d, "machines.ads")
        for seed in a.seeds.split(","):
            for family in a.families:
                subprocess.run(
                    [a.classad, "gen-pool", "--shape", family, "--jobs", str(a.jobs),
                     "--machines", str(a.machines), "--seed", seed,
                     "--out-jobs", jobs, "--out-machines", machines],
                    check=True, capture_output=True)
                want = htcondor_pairs(jobs, machines)
                got = {e: our_pairs(a.classad, jobs, machines, e) for e in ("vm", "reference")}
                same = all(g == want for g in got.values())
                bad += not same
                print(f"seed {seed} {family}: HTCondor {want.count(chr(10))} pairs, "
                      f"vm {got['vm'].count(chr(10))}, reference "
                      f"{got['reference'].count(chr(10))}: {'same' if same else 'DIFFERENT'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
