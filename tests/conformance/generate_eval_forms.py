#!/usr/bin/env python3
"""Generate eval_forms.jsonl: what HTCondor's `classad_eval` prints for
arguments that mix assignments and expressions.

`classad_eval` is a Python script of HTCondor's (src/condor_scripts/classad_eval)
that the pip wheel does not install; `classad_eval` below is its loop, run on
HTCondor's own library (imported as in generate.py): each argument is first
read as an ad (`ClassAd(arg)`, else `ClassAd("[" + arg + "]")`) whose attributes
update the context, else as an expression whose `repr(simplify(context,
target))` is printed, the context itself printed (`repr`) before the first
expression after a change unless `-quiet` came earlier.

The cases are those where `classad eval` must print the same: every case
assigns (without an assignment `classad eval` prints no context), `-quiet`
comes first when it is there (ours applies wherever it is), and no expression
begins with an ad literal (which `classad_eval` takes for an assignment).

Run from anywhere (a second or two):

    python3 tests/conformance/generate_eval_forms.py

One JSON object per line: {"args": [...], "files": {"NAME": "ad text"},
"stdout": "..."}; an argument that names a key of "files" stands for a file
holding that text.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (sets TZ and imports htcondor2 before classad2)

c = g.c

# New syntax: classad_eval reads a file with `ClassAd(text)`, which takes no
# old-syntax ad.
FILES = {
    "job.ad": "[\n  MyType = \"Job\";\n  RequestMemory = 2048;\n  RequestCpus = 1;\n"
    "  Owner = \"alice\";\n  Requirements = TARGET.Memory >= RequestMemory\n]\n",
    "slot.ad": "[\n  MyType = \"Machine\";\n  Name = \"slot1@host\";\n  Memory = 4096;\n"
    "  Cpus = 8;\n  Requirements = TARGET.RequestMemory <= Memory\n]\n",
}

CASES = [
    ["a = 1", "b = a * 2", "b"],
    ["x", "a = 1; b = 2", "a + b", "c = 5", "c"],
    ["a = 1", "a = a + 1", "a"],
    ["-quiet", "a = 1", "b = a * 2", "b", "c = b + 1", "c"],
    ["a = 1;", "a"],
    ["a=1 ; ; b=2", "b"],
    ["A = 1", "a = 2", "A", "a"],
    ["r = [x = 1; y = x + 1]", "r.y", "r"],
    ["s = \"abc\"", "l = {1, 2, 3}", "size(s) + size(l)", "l[1]", "strcat(s, l[2])"],
    ["a = 1", "b = 2", "c = 3", "a + b + c"],
    ["a = 1"],
    ["u = undefined", "u", "e = error", "e", "isError(e)"],
    ["x = y", "y = 7", "x"],
    ["a = 1.5", "b = a * 2", "b", "int(b)", "real(2)"],
    ["n = \"Name\"", "n", "toUpper(n)"],
    ["-file", "job.ad", "RequestMemory / 1024", "RequestMemory = 4096", "RequestMemory / 1024"],
    ["-file", "job.ad", "Wanted = RequestCpus * 2", "Wanted", "Owner"],
    ["-target-file", "slot.ad", "m = TARGET.Memory", "m", "n = TARGET.Name", "n"],
    ["-file", "job.ad", "-target-file", "slot.ad", "Requirements",
     "RequestMemory = 8192", "Requirements", "TARGET.Cpus"],
    ["-file", "job.ad", "-target-file", "slot.ad", "Extra = TARGET.Cpus - RequestCpus", "Extra"],
    ["x = {a, b}", "a = 1", "b = 2", "x", "x[0] + x[1]"],
    ["f = [g = [h = 3]]", "f.g.h", "f.g"],
    ["q = \"a\\\\b\"", "q", "size(q)"],
    ["t = true", "f = false", "t && f", "t || f", "!t"],
    ["big = 9223372036854775807", "big", "big + 1"],
]


def make_ad(text, from_file=False):
    """classad_eval's makeClassAd."""
    if from_file and text.startswith("{\n") and text.endswith("\n}\n"):
        text = text[2:]
    try:
        return c.ClassAd(text)
    except c.ClassAdException:
        return c.ClassAd("[" + text + "]")


def classad_eval(args):
    """classad_eval's evaluateAndPrint; the lines it prints."""
    out = []
    quiet, updated, target, my = False, True, None, c.ClassAd()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-quiet":
            quiet = True
        elif arg in ("-file", "-my-file"):
            i += 1
            my = make_ad(FILES[args[i]], from_file=True)
        elif arg == "-target-file":
            i += 1
            target = make_ad(FILES[args[i]], from_file=True)
        else:
            try:
                my.update(make_ad(arg))
                updated = True
            except c.ClassAdException:
                if updated:
                    updated = False
                    if not quiet:
                        out.append(repr(my))
                expr = c.ExprTree(arg)
                out.append(repr(expr.simplify(my, target)))
        i += 1
    return out


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval_forms.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for args in CASES:
            used = {a: FILES[a] for a in args if a in FILES}
            lines = classad_eval(args)
            row = {"args": args, "files": used, "stdout": "".join(l + "\n" for l in lines)}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} cases -> {path}")


if __name__ == "__main__":
    main()
