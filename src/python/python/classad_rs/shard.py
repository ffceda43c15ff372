"""HTCondor's negotiation cycle over a pool cut into shards, for any engine that
runs Python functions on other machines (Dask, Ray, a process pool, ssh).

The result is the one a single process gives (``classad_rs.negotiate``), match
for match: the driver prepares the cycle, each shard works out every match
class's candidate slots among its own slots, and the driver merges the shards'
lists in the negotiator's order and runs the cycle on them.

The steps
---------

1. Driver: ``plan = Plan(jobs, slots, config, priorities)`` (or
   ``Plan.from_files(...)``, which reads a queue of millions of jobs in parts,
   keeping a job per match class). The plan holds the slots as the cycle sees
   them (``NEGOTIATOR_SLOT_CONSTRAINT`` applied, ``SlotWeight`` and
   ``RemoteUserPrio`` filled in) and the queue's match classes, formed with the
   significant attributes of the *whole* pool, so that every shard numbers the
   classes alike.
2. Driver: ``plan.shards(n)``: ``n`` shard payloads (below), each a contiguous
   range of the cycle's slots. Only the classes' representative jobs travel,
   never the queue.
3. Anywhere: ``run(payload)`` (or ``candidates(...)`` with the payload's
   fields): the shard's candidate lists, as bytes.
4. Driver: ``plan.negotiate(results)``: the lists merged per class and the
   cycle run on them; everything the cycle evaluates beyond the lists
   (preemption tests, consumption policies) it evaluates on the whole pool's
   slots, which the plan holds.

The shard payload (format ``classad_rs.shard/1``)
-------------------------------------------------

A ``dict`` of plain ``str``, ``int`` and ``None`` values (JSON could carry it):

``format``
    ``"classad_rs.shard/1"``.
``slots``
    The shard's slots as ClassAd text: old syntax, one ``Name = expr`` line
    per attribute and a blank line after each ad (as ``condor_status -long``
    prints them), every real printed with 17 significant digits so that it
    reads back to the same bits. (The functions taking it read any syntax the
    library reads: new syntax and JSON too; old syntax is the fastest to read.)
``offset``
    The number of the shard's first slot among the cycle's slots; the shard's
    slots are numbered ``offset``, ``offset + 1``, ... in the results.
``jobs``
    One representative job per match class, in class order, as the same text.
    Identical for every shard of a plan (an engine can broadcast it once).
``config``
    The negotiator's configuration text (``NEGOTIATOR_PRE_JOB_RANK`` and
    friends), or ``None``.

The shard result (candidate lists, ``CASHARD1``)
------------------------------------------------

``bytes``, every number little-endian:

- 8 bytes ``b"CASHARD1"``;
- four ``uint32``: the number of classes ``C``; the first slot the shard covers
  and how many slots it covers (the payload's ``offset`` and its number of
  slots: a shard whose slots match nothing still says it was there); 0
  (reserved);
- ``C`` times ``uint32``: each class's number of candidates;
- then each class's candidates in turn, 28 bytes each (``struct`` format
  ``"<Iddd"``): the slot's number (``uint32``, among the cycle's slots), and the
  negotiator's key of the pair: ``NEGOTIATOR_PRE_JOB_RANK`` (rounded to single
  precision, ``-1.7976931348623157e308`` when not a number), the job's ``Rank``
  of the slot (0.0 when not a number) and ``NEGOTIATOR_POST_JOB_RANK`` (as PRE),
  each a ``float64`` kept bit for bit.

Each class's candidates are in the negotiator's order, which merging keeps:
the key compared field by field (PRE, then Rank, then POST), larger first, a
NaN below every number (-0.0 and 0.0 equal), then the slot's number, smaller
first (``order_key`` is this order for Python's ``sorted``). ``decode`` and
``encode`` turn the bytes into lists of ``(slot, pre, rank, post)`` tuples and
back, for engines or tools that want to look inside. Merging takes the results
in any order and needs the shards' slot ranges to follow each other (a shard
may cover no slots, as some do when there are more shards than slots); the
cycle needs them to cover its slots exactly, and refuses results that do not
(a lost shard is an error, not fewer matches).
"""

import math
import struct
from typing import Any, Iterable, NamedTuple, Optional, Sequence

from ._native import PreparedCycle
from ._native import merge_candidates as _merge_candidates
from ._native import shard_candidates as _shard_candidates

FORMAT = "classad_rs.shard/1"
MAGIC = b"CASHARD1"
_RECORD = struct.Struct("<Iddd")
_HEADER = struct.Struct("<8sIIII")


class Lists(NamedTuple):
    """A shard result decoded: the slots it covers (``first`` and the count
    ``slots``) and per class its candidates, ``(slot, pre, rank, post)`` tuples
    best first."""

    first: int
    slots: int
    lists: list

__all__ = [
    "FORMAT",
    "Lists",
    "MAGIC",
    "Plan",
    "candidates",
    "decode",
    "encode",
    "merge",
    "order_key",
    "run",
]


def candidates(slots, jobs, config: Optional[str] = None, offset: int = 0,
               threads: Optional[int] = None) -> bytes:
    """Every match class's candidate slots among one shard's slots, as the bytes
    of the shard result (``CASHARD1``, see the module's documentation).

    ``slots``: the shard's slots as the cycle sees them (a payload's ``slots``
    text, or ``ClassAd``s), numbered from ``offset``; ``jobs``: one
    representative job per class, in class order (text or ``ClassAd``s);
    ``config``: the negotiator's configuration text; ``threads``: threads to
    match on (default: every core; give the engine's share of a machine; more
    than ``classad_rs.MAX_THREADS``, 1024, is a ``ValueError``).
    """
    return _shard_candidates(slots, jobs, config, offset, threads)


def run(shard: dict, threads: Optional[int] = None) -> bytes:
    """``candidates`` of a shard payload (``Plan.shards``)."""
    if shard.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} shard: format {shard.get('format')!r}")
    return candidates(shard["slots"], shard["jobs"], shard.get("config"),
                      shard["offset"], threads)


def merge(results: Sequence[bytes]) -> bytes:
    """The shards' results (in any order, their slot ranges following each
    other) merged per class in the negotiator's order, as one result of the
    same format covering all their slots."""
    return _merge_candidates(list(results))


def order_key(candidate):
    """The negotiator's order of a ``(slot, pre, rank, post)`` candidate for
    ``sorted``: best key first (a NaN below every number), then slot order."""
    slot, *key = candidate
    return tuple(math.inf if math.isnan(x) else -x for x in key) + (slot,)


def decode(data: bytes) -> Lists:
    """A shard result's slot range and candidate lists (``Lists``)."""
    view = memoryview(data)
    if len(view) < _HEADER.size or bytes(view[:8]) != MAGIC:
        raise ValueError("not candidate lists (they start with CASHARD1)")
    _, classes, first, slots, _ = _HEADER.unpack_from(view)
    counts = struct.unpack_from(f"<{classes}I", view, _HEADER.size)
    at = _HEADER.size + 4 * classes
    if len(view) != at + _RECORD.size * sum(counts):
        raise ValueError(f"{sum(counts)} candidates announced in {len(view)} bytes")
    out = []
    for n in counts:
        end = at + _RECORD.size * n
        out.append(list(_RECORD.iter_unpack(view[at:end])))
        at = end
    return Lists(first, slots, out)


def encode(lists: Iterable[Iterable[tuple]], first: int, slots: int) -> bytes:
    """A shard result covering slots ``first`` to ``first + slots`` from
    per-class lists of ``(slot, pre, rank, post)`` tuples (each list in the
    negotiator's order, see ``order_key``)."""
    lists = [list(cands) for cands in lists]
    parts = [_HEADER.pack(MAGIC, len(lists), first, slots, 0),
             struct.pack(f"<{len(lists)}I", *(len(c) for c in lists))]
    parts.extend(_RECORD.pack(*c) for cands in lists for c in cands)
    return b"".join(parts)


def _bounds(total: int, n: int) -> list:
    """``n`` contiguous ranges covering ``range(total)``, sizes within one."""
    if n < 1:
        raise ValueError("at least one shard")
    return [(total * i // n, total * (i + 1) // n) for i in range(n)]


class Plan:
    """A negotiation cycle prepared on the driver (see the module's
    documentation): ``Plan(jobs, slots, config=None, priorities=None)`` from
    sequences of ``ClassAd``s, or ``Plan.from_files(jobs_path, slots_path,
    config=None, priorities=None)``. ``config`` is the negotiator's
    configuration text, ``priorities`` the accountant's lines ``<submitter>
    <real priority> [<factor> [<usage> [<floor> [<ceiling>]]]]`` (or
    ``condor_userprio -l``)."""

    def __init__(self, jobs, slots, config: Optional[str] = None,
                 priorities: Optional[str] = None, *, _cycle=None):
        self.config = config
        self._cycle = _cycle if _cycle is not None else PreparedCycle(
            jobs, slots, config, priorities)

    @classmethod
    def from_files(cls, jobs, slots, config: Optional[str] = None,
                   priorities: Optional[str] = None) -> "Plan":
        """A plan of the ad files ``jobs`` and ``slots`` (old or new syntax, or
        JSON); the queue is read in parts on every core and never held whole."""
        cycle = PreparedCycle.from_files(jobs, slots, config, priorities)
        return cls(None, None, config, _cycle=cycle)

    @property
    def slot_count(self) -> int:
        """The number of slots that exist for the cycle."""
        return self._cycle.slot_count

    @property
    def class_count(self) -> int:
        """The number of match classes (lists in every shard result)."""
        return self._cycle.class_count

    @property
    def job_count(self) -> int:
        """The number of jobs in the queue."""
        return self._cycle.job_count

    def representatives_text(self) -> str:
        """The payloads' ``jobs``: a representative job per class."""
        return self._cycle.representatives_text()

    def slots_text(self, start: int = 0, end: Optional[int] = None) -> str:
        """The cycle's slots ``start`` to ``end`` as a payload's ``slots``."""
        return self._cycle.slots_text(start, end)

    def shard_bounds(self, n: int) -> list:
        """The ``(start, end)`` slot ranges of ``n`` shards of near equal size."""
        return _bounds(self.slot_count, n)

    def shards(self, n: int) -> list:
        """``n`` shard payloads (dicts of plain values, see the module's
        documentation) covering the cycle's slots."""
        jobs = self.representatives_text()
        return [
            {"format": FORMAT, "slots": self.slots_text(start, end), "offset": start,
             "jobs": jobs, "config": self.config}
            for start, end in self.shard_bounds(n)
        ]

    def candidates(self, threads: Optional[int] = None) -> bytes:
        """Every class's candidates over the whole pool, worked out in this
        process: what the merged shard results equal, byte for byte."""
        return self._cycle.candidates(threads)

    def negotiate(self, results: Optional[Sequence[bytes]] = None,
                  numpy: bool = False) -> Any:
        """The cycle on the shards' results (all of them, in any order), merged
        in the negotiator's order; with ``results=None``, on the whole pool
        matched in this process. The (job index, slot index) matches in the
        order made, as ``classad_rs.negotiate`` gives them."""
        return self._cycle.negotiate(None if results is None else list(results), numpy)

