#!/usr/bin/env python3
"""Seed the `parse` and `roundtrip` corpora with the conformance expressions.

Run from `fuzz/`: `python3 seed_corpora.py`. Writes one file per distinct
expression of `../tests/conformance/eval.jsonl` and `unparse.jsonl` into
`corpus/parse/` and `corpus/roundtrip/` (named `seed-N`, so reruns overwrite
rather than add). The `roundtrip` corpus also gets long flat chains in the
target's repeat form (byte 1, a two-byte count, `head\\0unit`; see its `expand`).
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "conformance")


def expressions():
    seen = set()
    for name in ("eval.jsonl", "unparse.jsonl"):
        with open(os.path.join(DATA, name), encoding="utf-8") as f:
            for line in f:
                text = json.loads(line).get("expr")
                if isinstance(text, str) and text not in seen:
                    seen.add(text)
                    yield text


def main():
    texts = list(expressions())
    for target in ("parse", "roundtrip"):
        out = os.path.join(HERE, "corpus", target)
        os.makedirs(out, exist_ok=True)
        for i, text in enumerate(texts):
            with open(os.path.join(out, f"seed-{i}"), "w", encoding="utf-8") as f:
                f.write(text)
    chains = [("1", "+1"), ("x", " && x"), ("a", ".b"), ("x", "[0]"), ("[a = 1]", ".a")]
    out = os.path.join(HERE, "corpus", "roundtrip")
    for i, (head, unit) in enumerate(chains):
        with open(os.path.join(out, f"chain-{i}"), "wb") as f:
            f.write(b"\x01\xff\xff" + head.encode() + b"\0" + unit.encode())
    print(f"seeded parse and roundtrip with {len(texts)} expressions")


if __name__ == "__main__":
    main()
