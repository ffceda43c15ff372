#!/usr/bin/env python3
"""Hold what `tests/real_ads.rs` read, printed and evaluated against HTCondor's
own library (`pip install htcondor`), attribute by attribute.

    CLASSAD_REAL_ADS=DIR CLASSAD_REAL_ADS_OUT=/tmp/ours.jsonl \\
        cargo test --release --test real_ads
    python3 tests/real_ads_oracle.py DIR /tmp/ours.jsonl

For every file of DIR, HTCondor's library reads the ads (gzip uncompressed
first; old syntax, else new syntax, else JSON, as our reader detects them); for
every attribute our output lists, it compares the expression as printed (new
syntax, one line) and the attribute's value evaluated in its own ad. Values that
read the clock or random numbers are left out. Prints a count and every
disagreement; exits 1 when there is one.
"""
import collections
import gzip
import json
import os
import re
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()
import htcondor2  # noqa: E402,F401  (before classad2: daemon semantics)
import classad2 as c  # noqa: E402

CHANGING = re.compile(r"time\(|random\(|currenttime|splittime|formattime|uuid", re.I)


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def parse_all(text):
    stripped = text.lstrip()
    if stripped.startswith("[") and stripped[1:].lstrip().startswith("{"):
        kind = c.ParserType.JSON
    elif stripped.startswith("[") or stripped.startswith("{"):
        kind = c.ParserType.New
    else:
        kind = c.ParserType.Old
    return list(c.parseAds(text, kind))


def main():
    folder, ours_path = sys.argv[1], sys.argv[2]
    ours = collections.defaultdict(list)
    with open(ours_path) as f:
        for line in f:
            row = json.loads(line)
            ours[row["file"]].append(row)
    compared = skipped = 0
    problems = []
    for name in sorted(ours):
        ads = parse_all(read_text(os.path.join(folder, name)))
        count = 1 + max(r["ad"] for r in ours[name])
        if len(ads) < count:
            problems.append(f"{name}: HTCondor reads {len(ads)} ads, we read {count} or more")
            continue
        for row in ours[name]:
            ad = ads[row["ad"]]
            attr = row["attr"]
            if attr not in ad:
                problems.append(f"{name}: ad {row['ad']}: HTCondor has no {attr}")
                continue
            expr = ad.lookup(attr)
            printed = repr(expr)
            if printed != row["expr"]:
                problems.append(
                    f"{name}: ad {row['ad']}, {attr}: printed {row['expr']!r}, HTCondor {printed!r}")
            if CHANGING.search(printed):
                skipped += 1
                continue
            try:
                value = repr(expr.simplify(ad))
            except c.ClassAdException as e:
                value = f"<exception {e}>"
            compared += 1
            if value != row["value"]:
                problems.append(
                    f"{name}: ad {row['ad']}, {attr} = {printed}: ours {row['value']}, HTCondor {value}")
    print(f"real ads against HTCondor {c.version()}: {compared} values compared, "
          f"{skipped} left out (clock, random), {len(problems)} disagreements")
    for p in problems[:200]:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
