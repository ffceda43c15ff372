"""HTCondor's ClassAd language from Rust (the ``classad`` crate): a drop-in
subset of HTCondor's ``classad2`` bindings (``import classad_rs as classad2``),
with HTCondor's daemon semantics by default (what ``import htcondor2`` switches
classad2 to; ``setStrictSemantics(True)`` for the plain library's), and batch
calls over whole pools (``Pool``, ``negotiate``) that run on every core, and a
pool kept between negotiation cycles (``LivingPool``), each cycle working out
only what changed. The modules ``classad_rs.shard`` and ``classad_rs.dask`` run the negotiation cycle
with its matching spread over other machines (Dask, Ray, any engine).
"""

# What the module uses for itself is imported under private names, so that
# its namespace holds its API alone (``__all__``, checked by
# tests/python/test_reading.py).
import io as _io
from collections.abc import MutableMapping as _MutableMapping
from typing import IO as _IO
from typing import Iterator as _Iterator
from typing import Union as _Union

from ._native import (
    ClassAd,
    ClassAdException,
    ExprTree,
    LivingPool,
    MAX_NESTING,
    MAX_THREADS,
    Pool,
    PreparedCycle,
    __version__,
    _parse_all,
    _parse_from,
    _parse_next,
    generate_pool,
    lastError,
    negotiate,
    quote,
    setStrictSemantics,
    strictSemantics,
    unquote,
    version,
)
from ._support import ParserType, Value, _convert_local_datetime_to_utc_ts

# For compatibility with classad2 (and version 1 of the bindings).
Parser = ParserType

_MutableMapping.register(ClassAd)

__all__ = [
    "ClassAd",
    "ClassAdException",
    "ExprTree",
    "LivingPool",
    "MAX_NESTING",
    "MAX_THREADS",
    "Parser",
    "ParserType",
    "Pool",
    "PreparedCycle",
    "Value",
    "generate_pool",
    "lastError",
    "negotiate",
    "parseAds",
    "parseNext",
    "parseOne",
    "quote",
    "setStrictSemantics",
    "strictSemantics",
    "unquote",
    "version",
]

# JSON, XML and FileAuto are read whole; Auto, Old and New an ad at a time.
_WHOLE = (ParserType.XML, ParserType.JSON, ParserType.FileAuto)


def _ads(text, parser, offset=0):
    """(ad, byte offset after it) for each ad of ``text`` from ``offset``; the error
    of an ad that does not read is raised after the ads before it."""
    if int(parser) in _WHOLE:
        end = len(text.encode())
        for ad in _parse_all(text[offset:], int(parser)):
            yield ad, end
        return
    ads, failed_at = _parse_from(text, int(parser), offset)
    yield from ads
    if failed_at is not None:
        _parse_next(text, int(parser), failed_at)


def _first(text, parser):
    """The first ad of ``text`` as ``_ads`` gives it, reading no further."""
    if int(parser) in _WHOLE:
        yield from _ads(text, parser)
        return
    ad, after = _parse_next(text, int(parser), 0)
    if ad is not None and after != 0:
        yield ad, after


def _parse_ads_generator(input, parser):
    file_offset = 0
    if not isinstance(input, str):
        file_offset = input.tell()
    text = "".join(input)
    for ad, after in _ads(text, parser):
        if not isinstance(input, str):
            input.seek(file_offset + after, 0)
        yield ad


def parseAds(input: _Union[str, _IO], parser: ParserType = ParserType.Auto) -> _Iterator[ClassAd]:
    """A generator of the ads of ``input`` (a string or a file), in the syntax
    ``parser`` names (``Auto``: old or new, as the text starts)."""
    return _parse_ads_generator(input, parser)


def parseOne(input: _Union[str, _IO], parser: ParserType = ParserType.Auto) -> ClassAd:
    """Every ad of ``input`` merged into one."""
    if not isinstance(input, str):
        start = input.tell()
    result = ClassAd()
    text = "".join(input)
    after = 0
    for ad, after in _ads(text, parser):
        result.update(ad)
    if not isinstance(input, str):
        input.seek(start + after, 0)
    return result


def parseNext(input: _Union[str, _IO], parser: ParserType = ParserType.Auto) -> ClassAd:
    """The first ad of ``input`` (``None`` when there is none); a file is left
    just past it."""
    if isinstance(input, str):
        for ad, _ in _first(input, parser):
            return ad
        return None
    try:
        start = input.tell()
    except (_io.UnsupportedOperation, OSError) as e:
        raise ClassAdException(
            "Can not look ahead in stream; you must explicitly specify a parser."
        ) from e
    text = input.read()
    for ad, after in _first(text, parser):
        input.seek(start + after, 0)
        return ad
    return None
