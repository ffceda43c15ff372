"""Type stubs of classad_rs: a drop-in subset of HTCondor's classad2, and batch
calls over whole pools."""

import datetime
import os
import enum
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import IO, Any, Optional, Union, overload

__version__: str
# How deep lists and records may nest in a value converted either way.
MAX_NESTING: int
# The most threads a batch call's threads= may ask for.
MAX_THREADS: int

class ClassAdException(Exception): ...

class Value(enum.IntEnum):
    Error = 1
    Undefined = 2

class ParserType(enum.IntEnum):
    Auto = -1
    Old = 0
    XML = 1
    JSON = 2
    New = 3
    FileAuto = 4

Parser = ParserType

PyValue = Union[
    bool, int, float, str, datetime.datetime, list[Any], "ClassAd", "ExprTree", Value
]

class ExprTree:
    def __init__(self, expr: Optional[Union[str, "ExprTree", Any]] = None) -> None: ...
    def eval(
        self, scope: Optional["ClassAd"] = None, target: Optional["ClassAd"] = None
    ) -> PyValue: ...
    def simplify(
        self, scope: Optional["ClassAd"] = None, target: Optional["ClassAd"] = None
    ) -> "ExprTree": ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...

class ClassAd(MutableMapping[str, PyValue]):
    def __init__(self, input: Optional[Union[str, dict[str, Any]]] = None) -> None: ...
    def __getitem__(self, key: str) -> PyValue: ...
    def __setitem__(self, key: str, value: Any) -> None: ...
    def __delitem__(self, key: str) -> None: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def eval(self, attr: str) -> PyValue: ...
    def lookup(self, attr: str) -> ExprTree: ...
    def externalRefs(self, expr: ExprTree) -> list[str]: ...
    def internalRefs(self, expr: ExprTree) -> list[str]: ...
    def flatten(self, expr: ExprTree) -> Union[PyValue, ExprTree]: ...
    def matches(self, ad: "ClassAd") -> bool: ...
    def symmetricMatch(self, ad: "ClassAd") -> bool: ...
    def printOld(self) -> str: ...
    def formatOld(self) -> str: ...
    def printJson(self) -> str: ...
    def formatJson(self) -> str: ...

def parseAds(input: Union[str, IO[str]], parser: ParserType = ...) -> Iterator[ClassAd]: ...
def parseOne(input: Union[str, IO[str]], parser: ParserType = ...) -> ClassAd: ...
def parseNext(input: Union[str, IO[str]], parser: ParserType = ...) -> Optional[ClassAd]: ...
def quote(input: str) -> str: ...
def unquote(input: str) -> str: ...
def version() -> str: ...
def lastError() -> str: ...
def setStrictSemantics(strict: bool) -> None: ...
def strictSemantics() -> bool: ...

class Pool:
    """Slots compiled once for batch matching (every core, GIL released).

    The slots and jobs of ``Pool``, ``allPairs``, ``candidates`` and
    ``negotiate`` are ``ClassAd`` objects, or a ``str`` or ``os.PathLike`` (a
    ``pathlib.Path``) naming a file of ads in any syntax, gzip or not, which
    the library reads on every core with no Python object per ad."""

    def __init__(
        self, slots: Union[Iterable[ClassAd], str, os.PathLike], config: Optional[str] = None
    ) -> None: ...
    def __len__(self) -> int: ...
    def allPairs(self, jobs: Union[Iterable[ClassAd], str, os.PathLike], numpy: bool = False) -> Any:
        """(job index, slot index) pairs that match both ways; an (n, 2) int64
        array with ``numpy=True``."""
    def candidates(
        self, jobs: Union[Iterable[ClassAd], str, os.PathLike]
    ) -> tuple[list[int], list[list[int]]]:
        """Each job's match class, and per class its slots best first."""

def negotiate(
    jobs: Union[Iterable[ClassAd], str, os.PathLike],
    slots: Union[Iterable[ClassAd], str, os.PathLike],
    config: Optional[str] = None,
    priorities: Optional[str] = None,
    numpy: bool = False,
) -> Any:
    """One negotiation cycle: (job index, slot index) matches in the order made."""

class LivingPool:
    """Slots, jobs, the knobs and the accountant kept between negotiation
    cycles: each ``cycle()`` gives what ``negotiate`` gives on the same ads and
    accountant state, working out again only what changed (GIL released).

    Jobs and slots have ids, their places: the queue's and the pool's order
    is the order of ids (0, 1, ... for the ads given), and a removed one's id
    goes to the next one added. ``accountant`` is the accountant's state as
    ``condor_userprio -l`` prints it (or ``accountant()`` wrote it),
    ``priorities`` the plain priorities file; at most one of the two. ``now``
    defaults to the accountant's ``LastUpdate``, else 0. An unknown id raises
    ``KeyError``. Safe to share between threads (a call waits for another's)."""

    def __init__(
        self,
        slots: Union[Iterable[ClassAd], str, os.PathLike],
        jobs: Union[Iterable[ClassAd], str, os.PathLike],
        config: Optional[str] = None,
        accountant: Optional[str] = None,
        priorities: Optional[str] = None,
        now: Optional[int] = None,
    ) -> None: ...
    def add_job(self, ad: ClassAd) -> int:
        """Adds a job; its id."""
    def update_job(self, id: int, ad: ClassAd) -> None: ...
    def remove_job(self, id: int) -> ClassAd: ...
    def add_slot(self, ad: ClassAd) -> int:
        """Adds a slot; its id."""
    def update_slot(self, id: int, ad: ClassAd) -> None: ...
    def remove_slot(self, id: int) -> ClassAd: ...
    def job(self, id: int) -> ClassAd: ...
    def slot(self, id: int) -> ClassAd: ...
    def jobs(self) -> list[tuple[int, ClassAd]]:
        """Every job with its id, in queue order."""
    def slots(self) -> list[tuple[int, ClassAd]]:
        """Every slot with its id, in pool order."""
    @property
    def job_count(self) -> int: ...
    @property
    def slot_count(self) -> int: ...
    @property
    def now(self) -> int: ...
    def advance_to(self, now: int) -> None:
        """Moves the clock; the next cycle ages priorities and charges usage up to it."""
    def accountant(self) -> str:
        """The accountant's state in the layout ``condor_userprio -l`` prints."""
    def cycle(self) -> dict[str, Any]:
        """One cycle at ``now``: ``matches`` ((job id, slot id) in the order
        made), ``match_details`` (per match: job, slot, submitter, autocluster,
        preempt, cost, spin, group), ``unmatched`` ((job id, why)) and
        ``work`` (what was worked out again, and the seconds it took)."""

class PreparedCycle:
    """A negotiation cycle prepared on the driver for sharded matching (see
    ``classad_rs.shard``)."""

    def __init__(
        self,
        jobs: Union[Iterable[ClassAd], str, os.PathLike],
        slots: Union[Iterable[ClassAd], str, os.PathLike],
        config: Optional[str] = None,
        priorities: Optional[str] = None,
    ) -> None: ...
    @staticmethod
    def from_files(
        jobs: Union[str, "os.PathLike[str]"],
        slots: Union[str, "os.PathLike[str]"],
        config: Optional[str] = None,
        priorities: Optional[str] = None,
    ) -> "PreparedCycle": ...
    @property
    def slot_count(self) -> int: ...
    @property
    def class_count(self) -> int: ...
    @property
    def job_count(self) -> int: ...
    @property
    def file_index(self) -> list[int]: ...
    def representatives_text(self) -> str: ...
    def slots_text(self, start: int = 0, end: Optional[int] = None) -> str: ...
    def candidates(self, threads: Optional[int] = None) -> bytes: ...
    def negotiate(self, results: Optional[Sequence[bytes]] = None, numpy: bool = False) -> Any: ...

def generate_pool(
    machines: int,
    jobs: int,
    seed: int = 1,
    submitters: Optional[int] = None,
    signatures: Optional[int] = None,
) -> tuple[str, str, str]:
    """A generated pool (``classad gen-pool``): slot ads, job ads (old syntax)
    and the submitters' priorities."""
