"""Times the candidate lists of a pool worked out in one process and on a Dask
LocalCluster (``classad_rs.dask``), and checks that both give the same lists
and the same cycle (and, given the ``classad`` binary, the matches of
``classad negotiate`` on the same files).

    classad gen-pool --machines 10000 --jobs 1000000 --seed 7 --out-jobs j.ads \\
        --out-machines m.ads --out-priorities p.txt
    python tests/python/bench_sharded.py j.ads m.ads p.txt --workers 2 \\
        [--classad target/release/classad] [--repeat 5]

Prints one line per step: its times over the repeats (min and median).
"""

import argparse
import statistics
import subprocess
import time

import classad_rs.dask
from classad_rs import shard


def timed(label, f, repeat):
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    print(f"{label}: min {min(times):.3f} s, median {statistics.median(times):.3f} s "
          f"({repeat} runs)", flush=True)
    return out


def main():
    a = argparse.ArgumentParser()
    a.add_argument("jobs")
    a.add_argument("machines")
    a.add_argument("priorities", nargs="?")
    a.add_argument("--config")
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--threads", type=int, default=2, help="the single process's threads")
    a.add_argument("--repeat", type=int, default=5)
    a.add_argument("--classad", help="the classad binary, to compare with classad negotiate")
    args = a.parse_args()
    prio = open(args.priorities).read() if args.priorities else None
    config = open(args.config).read() if args.config else None

    plan = timed("plan (driver: read, trim, cluster)",
                 lambda: shard.Plan.from_files(args.jobs, args.machines, config, prio), 1)
    print(f"  {plan.job_count} jobs, {plan.slot_count} slots, {plan.class_count} classes")
    whole = timed(f"candidate lists, one process, {args.threads} threads",
                  lambda: plan.candidates(args.threads), args.repeat)
    print(f"  {len(whole) / 1e6:.1f} MB of lists")

    import distributed
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=40)
    client = distributed.Client(cluster)
    timed("payloads (driver: slots and representatives as text)",
          lambda: (plan.representatives_text(), [plan.slots_text(s, e)
                   for s, e in plan.shard_bounds(args.workers)]), 1)
    results = timed(f"shard results on Dask, {args.workers} workers x 1 thread (gathered)",
                    lambda: classad_rs.dask.shard_results(plan, client), args.repeat)
    merged = timed("merge on the driver", lambda: shard.merge(results), args.repeat)
    # The two side by side, runs interleaved (the machine's load moves).
    one_t, dask_t = [], []
    for _ in range(args.repeat):
        for times, f in ((one_t, lambda: plan.candidates(args.threads)),
                         (dask_t, lambda: classad_rs.dask.candidates(plan, client))):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
    med = statistics.median
    print(f"interleaved: one process {min(one_t):.3f}/{med(one_t):.3f} s, "
          f"Dask (text out, shards, gather, merge) {min(dask_t):.3f}/{med(dask_t):.3f} s "
          f"(min/median); Dask / one process {med(dask_t) / med(one_t):.2f}x (medians)")
    assert merged == whole, "the merged lists differ from one process's"
    print("merged lists == one process's lists (byte for byte)")
    one = timed("cycle, matching in this process", lambda: plan.negotiate(), 1)
    sharded = timed("cycle on the shards' lists", lambda: plan.negotiate(results), 1)
    assert sharded == one, "the sharded cycle differs"
    print(f"sharded cycle == one process's cycle ({len(one)} matches)")
    if args.classad:
        cmd = [args.classad, "negotiate", "--jobs", args.jobs, "--machines", args.machines]
        if args.priorities:
            cmd += ["--priorities", args.priorities]
        if args.config:
            cmd += ["--config", args.config]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        cli = [tuple(int(x) for x in line.split()) for line in out.splitlines() if line]
        assert cli == [tuple(m) for m in sharded], "classad negotiate differs"
        print(f"sharded cycle == classad negotiate ({len(cli)} matches)")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
