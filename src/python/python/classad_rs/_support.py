"""What classad2 writes in Python, kept in Python: the ``Value`` and
``ParserType`` enums and classad2's conversion of ``datetime``s (used by the
native module)."""

import enum
from datetime import datetime, timedelta, timezone

__all__ = ["Value", "ParserType", "datetime"]


class Value(enum.IntEnum):
    """The special ClassAd values ``Undefined`` and ``Error``."""

    Error = 1 << 0
    Undefined = 1 << 1


class ParserType(enum.IntEnum):
    """The syntaxes ``parseAds``, ``parseOne`` and ``parseNext`` read."""

    Auto = -1
    Old = 0
    XML = 1
    JSON = 2
    New = 3
    FileAuto = 4


def _convert_local_datetime_to_utc_ts(dt):
    """Seconds since the epoch of ``dt``, as classad2 computes them (a naive
    ``datetime`` is local time)."""
    if dt.tzinfo is not None and dt.tzinfo.utcoffset(dt) is not None:
        the_epoch = datetime(1970, 1, 1, tzinfo=dt.tzinfo)
        return (dt - the_epoch) // timedelta(seconds=1)
    the_epoch = datetime(1970, 1, 1)
    naive_ts = (dt - the_epoch) // timedelta(seconds=1)
    offset = dt.astimezone().utcoffset() // timedelta(seconds=1)
    return naive_ts - offset


def _from_timestamp(secs):
    """An absolute time as classad2 gives it: a ``datetime`` in UTC."""
    return datetime.fromtimestamp(secs, tz=timezone.utc)
