"""Issue 14's target: the batch all-pairs call from Python within 10% of the
Rust command line on the same pool.

Both read the same files and produce every matching (job, slot) pair: the
command line `classad match --all-pairs` (its pairs printed to /dev/null, its
own figures read, compile and match), and in Python either `classad_rs.parseAds`
of both files, `Pool(slots)` and `pool.allPairs(jobs, numpy=True)` (a list
without NumPy), or `Pool(Path(slots))` and `allPairs(Path(jobs))`, which the
library reads itself. Runs are
interleaved; the least of each is reported, and the pair counts must agree.

    pip install . && python3 benches/python_all_pairs.py target/release/classad \\
        [--jobs 2000] [--machines 10000] [--runs 5] [--threads 2]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import classad_rs

try:
    import numpy  # noqa: F401  (allPairs returns an array with it)

    NUMPY = True
except ImportError:
    NUMPY = False


def cli_run(classad, jobs, machines, threads):
    t = time.perf_counter()
    p = subprocess.run(
        [classad, "match", "--all-pairs", "--threads", str(threads),
         "--jobs", jobs, "--machines", machines],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - t
    own = re.search(r"compile ([0-9.]+) s, match ([0-9.]+) s", p.stderr)
    pairs = p.stdout.count("\n")
    return wall, float(own.group(1)) + float(own.group(2)), pairs


def python_run(jobs, machines):
    t = time.perf_counter()
    with open(machines) as f:
        slots = list(classad_rs.parseAds(f.read()))
    with open(jobs) as f:
        queue = list(classad_rs.parseAds(f.read()))
    pool = classad_rs.Pool(slots)
    pairs = pool.allPairs(queue, numpy=NUMPY)
    return time.perf_counter() - t, len(pairs)


def python_paths_run(jobs, machines):
    import pathlib

    t = time.perf_counter()
    pool = classad_rs.Pool(pathlib.Path(machines))
    pairs = pool.allPairs(pathlib.Path(jobs), numpy=NUMPY)
    return time.perf_counter() - t, len(pairs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("classad")
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--machines", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    os.environ["RAYON_NUM_THREADS"] = str(a.threads)
    with tempfile.TemporaryDirectory() as d:
        jobs, machines = os.path.join(d, "j.ads"), os.path.join(d, "m.ads")
        subprocess.run([a.classad, "gen-pool", "--jobs", str(a.jobs), "--machines",
                        str(a.machines), "--out-jobs", jobs, "--out-machines", machines],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cli, cli_own, py, py_paths = [], [], [], []
        for _ in range(a.runs):
            wall, own, n_cli = cli_run(a.classad, jobs, machines, a.threads)
            cli.append(wall)
            cli_own.append(own)
            t, n_py = python_run(jobs, machines)
            py.append(t)
            t, n_paths = python_paths_run(jobs, machines)
            py_paths.append(t)
            if not n_cli == n_py == n_paths:
                sys.exit(f"the pairs differ: command line {n_cli}, Python {n_py}, {n_paths}")
    print(f"{a.jobs} jobs x {a.machines} slots, {n_py} matching pairs, {a.threads} threads")
    print(f"command line, whole process    {min(cli):.3f} s")
    print(f"command line, its own figures  {min(cli_own):.3f} s (read, compile, match)")
    print(f"Python, parseAds + Pool + allPairs {min(py):.3f} s")
    print(f"Python / command line (whole)  {min(py) / min(cli):.2f}")
    print(f"Python, Pool(Path) + allPairs(Path) {min(py_paths):.3f} s")
    print(f"Python from paths / command line (whole) {min(py_paths) / min(cli):.2f}")


if __name__ == "__main__":
    main()
