"""HTCondor's negotiation cycle with the matching spread over a Dask cluster
(``distributed``): the slots cut into shards, each shard's candidate lists
worked out on a worker (``classad_rs.shard.candidates``), merged on the driver
in the negotiator's order and the cycle run there, with the result one process
gives (``classad_rs.negotiate``).

Only the shards' slots and the match classes' representative jobs travel to the
workers (the representatives broadcast once), and only the candidate lists come
back (``classad_rs.shard`` documents both). The module imports nothing of Dask:
it drives the ``distributed.Client`` it is given.

    from dask.distributed import Client, LocalCluster
    import classad_rs, classad_rs.dask

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    matches = classad_rs.dask.negotiate(jobs, slots, client, priorities=text)
    assert matches == classad_rs.negotiate(jobs, slots, priorities=text)
"""

import os
from typing import Any, List, Optional

from . import shard as _shard
from .shard import Plan

__all__ = ["Plan", "candidates", "negotiate", "shard_results"]


def shard_results(plan: Plan, client, shards: Optional[int] = None,
                  threads: Optional[int] = None) -> List[bytes]:
    """Each shard's candidate lists (bytes, ``CASHARD1``), worked out on the
    workers of ``client``: ``shards`` contiguous shards of the plan's slots
    (default: one per worker), dealt to the workers in turn, each matched on
    ``threads`` threads (default: its worker's thread count)."""
    workers = client.nthreads()
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    addresses = sorted(workers)
    n = shards if shards is not None else len(addresses)
    jobs = client.scatter(plan.representatives_text(), broadcast=True)
    futures = []
    for i, (start, end) in enumerate(plan.shard_bounds(n)):
        worker = addresses[i % len(addresses)]
        slots = client.scatter(plan.slots_text(start, end), workers=[worker])
        futures.append(client.submit(
            _shard.candidates, slots, jobs, plan.config, start,
            threads if threads is not None else workers[worker],
            workers=[worker], allow_other_workers=True, pure=False))
    return client.gather(futures)


def candidates(plan: Plan, client, shards: Optional[int] = None,
               threads: Optional[int] = None) -> bytes:
    """Every class's candidates over the whole pool, worked out on the workers
    and merged: byte for byte ``plan.candidates()``."""
    return _shard.merge(shard_results(plan, client, shards, threads))


def _is_path(x) -> bool:
    return isinstance(x, (str, os.PathLike))


def negotiate(jobs, slots, client, shards: Optional[int] = None,
              config: Optional[str] = None, priorities: Optional[str] = None,
              numpy: bool = False, threads: Optional[int] = None) -> Any:
    """One negotiation cycle with the matching on the workers of ``client``:
    the (job index, slot index) matches in the order made, as
    ``classad_rs.negotiate(jobs, slots, config, priorities)`` gives them.

    ``jobs`` and ``slots``: sequences of ``ClassAd``s, or both paths of ad
    files (the queue then read in parts on the driver, a job per match class
    kept). ``shards``: how many shards (default: one per worker); ``threads``:
    threads per shard (default: its worker's thread count)."""
    if _is_path(jobs) and _is_path(slots):
        plan = Plan.from_files(jobs, slots, config, priorities)
    else:
        plan = Plan(jobs, slots, config, priorities)
    return plan.negotiate(shard_results(plan, client, shards, threads), numpy)
