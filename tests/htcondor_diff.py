#!/usr/bin/env python3
"""Differential test against HTCondor: our generated cases, HTCondor's answers.

The seeded generator of `tests/agreement/differential.rs` (`tests/gen/`) makes standalone
expressions and job/machine ad pairs; `tests/tools/diff_cases.rs` prints them as
JSON lines with our results (reference evaluator and VM). This script evaluates
every case with HTCondor's own library, compares, and reports disagreements
grouped by kind, with a count and examples ready to paste into `classad eval`.

    pip install htcondor        # the oracle (25.14.1 was used)
    python3 tests/htcondor_diff.py --seed default --exprs 20000 --pairs 3000
    python3 tests/htcondor_diff.py --seed 7 --exprs 0:50000 --pairs 0:10000

or, with the cases printed beforehand (several files may be given):

    TZ=UTC cargo run --release --example diff_cases -- 7 50000 10000 > cases.jsonl
    python3 tests/htcondor_diff.py --input cases.jsonl

`--seed` may be repeated; each seed runs the same index ranges. `--show N`
prints N examples per kind (default 3). `--save-cases FILE` keeps every case
that disagrees; `--again FILE` makes those cases again with the current build
(after a fix) and runs them. The exit status is 1 when a
disagreement is not a documented deviation, 0 otherwise.

What is compared (HTCondor's library imported as `htcondor2` first, then
`classad2`, so it has the semantics of HTCondor's daemons; TZ=UTC for both):

- an expression case: the value of the expression alone, as `repr()` prints
  the simplified value (the format of tests/conformance/eval.jsonl);
- in a pair case, each generated expression evaluated with its MY ad and
  TARGET ad (`ExprTree.simplify(my, target)`: a match with MY on the left),
  and every attribute of each ad evaluated in its ad matched against the
  other;
- the symmetric match as the negotiator evaluates it (job on the LEFT,
  machine on the RIGHT: `TARGET.Requirements && MY.Requirements` in the job's
  scope, which is `RIGHT.requirements && LEFT.requirements` of HTCondor's
  MatchClassAd). The bindings' `ClassAd.symmetricMatch` puts each ad on the
  left in turn, which differs for ads that name LEFT or RIGHT; such pairs are
  counted, not compared;
- both Rank values as the negotiator reads them (compat_classad's
  `EvalFloat`, see generate.py's `rank_value`), compared bit for bit (every NaN
  is the same NaN).

Clock and random builtins: the generator only calls `time()`, `random()`,
`currentTime()`, `dayTime()`, `absTime()`, `formatTime()` without arguments
and `CurrentTime` inside deterministic wrappers (`isInteger(time())`,
`random(10) < 10`, ...). To be sure none of them causes a false disagreement,
every case that disagrees is evaluated by HTCondor a second time, at the end of
the run (seconds later) and in a fresh process; a case whose HTCondor results
change is skipped and counted as unstable: "clock or random" when its text
names one of those builtins, else "HTCondor not reproducible" (HTCondor's
splitTime/formatTime of a time beyond C's calendar read uninitialised memory).

HTCondor runs in a separate worker process, one case at a time, so a crash or a
hang of the library (semantics.md section 9 lists some) is reported as its own
kind instead of ending the run (`--timeout` seconds per case, default 30).

Documented deviations: a disagreement that is a deliberate deviation listed in
tests/conformance/deviations.jsonl (entries of file "htcondor_diff.py", each
with its reason and an example that tests/agreement/conformance.rs checks) is counted
under that deviation and does not fail the run: the rules that recognise them
are in DEVIATIONS below. A crash of HTCondor's library is counted under "HTCondor
crashes"; a hang is not documented and fails the run.
"""

import argparse
import json
import os
import re
import select
import struct
import subprocess
import sys
import time
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEVIATIONS_FILE = os.path.join(HERE, "conformance", "deviations.jsonl")

# Names whose value depends on the clock or a random source (see the docstring).
CLOCK = re.compile(
    r"\b(time|currenttime|daytime|random)\s*\(|\b(absTime|formatTime)\s*\(\s*\)"
    r"|\bCurrentTime\b", re.IGNORECASE)


# ---------------------------------------------------------------------------
# The worker: HTCondor's library, one case per line on stdin/stdout
# ---------------------------------------------------------------------------


def worker():
    """Evaluates cases read from stdin with HTCondor; one JSON result a line."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    sys.path.insert(0, os.path.join(HERE, "conformance"))
    import htcondor2  # noqa: F401  (before classad2: daemon semantics)
    import classad2 as c

    # The conformance generator's parser: the text on its own line in an ad with a
    # sentinel after it, so trailing junk or a `//` comment is noticed.
    from generate import parse_expr

    def outcome(tree, *scopes):
        if tree is None:
            return "parse_error"
        try:
            return "value " + repr(tree.simplify(*scopes))
        except c.ClassAdException:
            return "eval_failure"

    MY_RANK = c.ExprTree("MY.Rank")
    TARGET_RANK = c.ExprTree("TARGET.Rank")

    def rank_value(my, target):
        # generate.py's rank_value: compat_classad's EvalFloat(ATTR_RANK, ...).
        try:
            # The attribute itself is evaluated (a reference to it, not its
            # tree, so a Rank that names itself is a cycle as in EvalFloat),
            # in the match with `my` on the LEFT, also when it is target's.
            if "Rank" in my:
                tree = MY_RANK
            elif "Rank" in target:
                tree = TARGET_RANK
            else:
                return 0.0
            value = tree.eval(scope=my, target=target)
            # classad2 gives a relative time as a float; it is no number to
            # EvalFloat.
            if isinstance(value, float) and repr(tree.simplify(my, target)).startswith("relTime("):
                return 0.0
        except c.ClassAdException:
            return 0.0
        # classad2 returns undefined and error as members of the IntEnum
        # classad2.Value, which are ints to isinstance: they are not numbers.
        if isinstance(value, (bool, int, float)) and not isinstance(value, c.Value):
            return float(value)
        return 0.0

    match_expr = c.ExprTree("TARGET.Requirements && MY.Requirements")

    def negotiator_match(job, machine):
        try:
            return match_expr.eval(scope=job, target=machine) is True
        except c.ClassAdException:
            return False

    def printing(ours, theirs):
        """For two values that differ: whether HTCondor reprints our text as
        its own (the same tree, printed differently), and whether HTCondor's
        text reads back to itself."""
        if not (ours.startswith("value ") and theirs.startswith("value ")):
            return None
        mine = parse_expr(ours[6:])
        again = parse_expr(theirs[6:])
        return {
            "same_tree": mine is not None and repr(mine) == theirs[6:],
            "theirs_reads_back": again is not None and repr(again) == theirs[6:],
        }

    for line in sys.stdin:
        case = json.loads(line)
        res = {}
        if case["kind"] == "expr":
            res["theirs"] = outcome(parse_expr(case["expr"]))
            if res["theirs"] != case["ours"]:
                res["printing"] = printing(case["ours"], res["theirs"])
        else:
            ads = {"job": c.ClassAd(case["job"]),
                   "machine": c.ClassAd(case["machine"])}
            exprs = []
            for x in case["exprs"]:
                scopes = [ads[x["my"]]]
                if x["target"] is not None:
                    scopes.append(ads[x["target"]])
                r = {"theirs": outcome(parse_expr(x["expr"]), *scopes)}
                if r["theirs"] != x["ours"]:
                    r["printing"] = printing(x["ours"], r["theirs"])
                exprs.append(r)
            attrs = []
            for a in case["attrs"]:
                my = ads[a["ad"]]
                other = ads["machine" if a["ad"] == "job" else "job"]
                r = {"theirs": outcome(my.lookup(a["name"]), my, other)}
                if r["theirs"] != a["ours"]:
                    r["printing"] = printing(a["ours"], r["theirs"])
                attrs.append(r)
            job, machine = ads["job"], ads["machine"]
            try:
                bindings_match = bool(job.symmetricMatch(machine))
            except c.ClassAdException:
                bindings_match = False
            res.update({
                "exprs": exprs, "attrs": attrs,
                "match": negotiator_match(job, machine),
                "bindings_match": bindings_match,
                "job_rank": rank_value(job, machine),
                "machine_rank": rank_value(machine, job),
            })
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


class Oracle:
    """A worker process running HTCondor's library, restarted after a crash."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.proc = None
        self.buf = b""

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=dict(os.environ, TZ="UTC"))
        self.buf = b""

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None

    def ask(self, case):
        """HTCondor's results for `case`, or {"failed": "crashed" | "hung"}."""
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return {"failed": "crashed"}
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.stop()
                return {"failed": "hung"}
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = self.proc.wait()
                self.stop()
                return {"failed": f"crashed (exit status {code})"}
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


# ---------------------------------------------------------------------------
# Comparison and classification
# ---------------------------------------------------------------------------


def value_class(outcome):
    """A coarse type of an outcome text."""
    if not outcome.startswith("value "):
        return outcome
    v = outcome[6:]
    if v in ("error", "undefined"):
        return v
    if v in ("true", "false"):
        return "boolean"
    first = v[:1]
    if first == '"':
        return "string"
    if first == "{":
        return "list"
    if first == "[":
        return "record"
    if v.startswith("absTime("):
        return "absTime"
    if v.startswith("relTime("):
        return "relTime"
    if v.startswith("real(") or re.fullmatch(r"-?[0-9.]+E[-+][0-9]+|-?0\.0", v):
        return "real"
    if re.fullmatch(r"-?[0-9]+", v):
        return "integer"
    return "other"


def printing_only(p):
    """The values are equal as HTCondor trees; only the printing differs."""
    return p is not None and p["same_tree"]


# Documented deviations: (key of the entry in deviations.jsonl whose file is
# "htcondor_diff.py", predicate over one disagreement). A disagreement matching a
# predicate is counted under the deviation; the reason is the entry's "reason".
# A disagreement `d` holds "ours", "theirs", "printing" (see the worker) and
# "texts" (every text of its case).
UNRESOLVED_OF_MATCH = re.compile(
    r"unresolved\s*\(\s*(ad|left|right|other|target|lctx|rctx|toplevel|root|parent"
    r"|self|my)\s*[,)]", re.IGNORECASE)
MINUS_HEX = re.compile(r"-0[xX][0-9a-fA-F]")
EVAL_CALL = re.compile(r"(?i)\beval\s*\(")
CALENDAR_FUNCTION = re.compile(r"\b(splittime|formattime)\s*\(", re.IGNORECASE)
# An integer literal of 17 digits or more: a time beyond C's calendar.
HUGE_INTEGER = re.compile(r"(?<![0-9.eE])[0-9]{17,}(?![0-9.eE])")
STRING_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def invalid_utf8(outcome):
    """Whether a printed value holds a string literal whose bytes are not UTF-8."""
    for body in STRING_LITERAL.findall(outcome):
        raw = bytearray()
        i = 0
        while i < len(body):
            ch = body[i]
            if ch == "\\" and i + 1 < len(body):
                nxt = body[i + 1]
                if nxt in "01234567":
                    j = i + 1
                    while j < len(body) and j < i + 4 and body[j] in "01234567":
                        j += 1
                    raw.append(int(body[i + 1:j], 8) & 0xFF)
                    i = j
                    continue
                raw.extend(nxt.encode())
                i += 2
                continue
            raw.extend(ch.encode())
            i += 1
        try:
            bytes(raw).decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False


# A quoted name holds no bracket, brace, parenthesis, ';' or ',' here (the
# generator's is 'odd name'), which keeps a match from running over text that
# merely holds .' (a string's contents).
QUOTED_SELECTION = re.compile(r"(?<=[A-Za-z0-9_)\]}'])\.'((?:[^'\\\[\](){};,]|\\.)*)'")
MINUS_ON_NUMBER = re.compile(r"(?<=[\s(,{\[+\-~!]) - (?=[0-9])")
NUMBER_BEFORE_DOT = re.compile(r"(?<=[0-9]) \.(?=[A-Za-z_'])")
QUOTED_MINUS = re.compile(r"(?<=')-' '(?=[0-9])")
# The leading zeros of an absolute time's year: in absTime("0068-...") or a
# string that is one such time ("0068-09-03T13:20:00-00:00").
YEAR_ZEROS = re.compile(r'(?<=absTime\(")0+(?=[0-9])'
                        r'|(?<=^value ")0+(?=[0-9]+-[0-9]{2}-[0-9]{2}T[0-9:]{8}[-+][0-9:]{5}"$)')


def unpadded_years(outcome):
    """Our printed value with absolute times' years as HTCondor prints them."""
    return YEAR_ZEROS.sub("", outcome)


def as_htcondor_prints(outcome, in_strings):
    """Our printed value rewritten the way HTCondor prints the same thing where
    its text does not read back (the printing deviations of unparse.jsonl): a
    selected name unquoted (x.'b c' -> x.b c), a minus on a number joined to it
    (` - 5` -> ` -5`), no space between a number and a selection (1 .a -> 1.a).
    Inside string literals too when `in_strings` (a string made from such a
    value, by join or strcat), else those are left alone."""
    def rewrite(text):
        out = QUOTED_SELECTION.sub(lambda m: "." + m.group(1).replace("\\'", "'"), text)
        out = MINUS_ON_NUMBER.sub(" -", out)
        return NUMBER_BEFORE_DOT.sub(".", out)
    if in_strings:
        # listToArgs quotes the blank after a minus: -' '5 for - 5.
        return QUOTED_MINUS.sub("-", rewrite(outcome))
    # Rewrite what lies between string literals; a quoted name ('...') is
    # kept whole, as a '"' in it starts no string.
    parts, start, i = [], 0, 0
    while i < len(outcome):
        ch = outcome[i]
        if ch in "'\"":
            end = i + 1
            while end < len(outcome) and outcome[end] != ch:
                end += 2 if outcome[end] == "\\" else 1
            if ch == '"':
                parts.append(rewrite(outcome[start:i]))
                parts.append(outcome[i:end + 1])
                start = end + 1
            i = end + 1
        else:
            i += 1
    parts.append(rewrite(outcome[start:]))
    return "".join(parts)


DEVIATIONS = [
    ("printing",
     lambda d: d.get("ours") is not None and d["ours"] != d["theirs"]
     and d["theirs"] in (as_htcondor_prints(d["ours"], False),
                         as_htcondor_prints(d["ours"], True))),
    ("absTime years print with four digits",
     lambda d: d.get("ours") is not None and d["ours"] != d["theirs"]
     and d["theirs"] in (unpadded_years(d["ours"]),
                         as_htcondor_prints(unpadded_years(d["ours"]), False),
                         as_htcondor_prints(unpadded_years(d["ours"]), True))),
    ("strings are bytes",
     lambda d: d.get("theirs") is not None and invalid_utf8(d["theirs"])),
    ("hexadecimal after a minus",
     lambda d: any(MINUS_HEX.search(t) for t in d["texts"])),
    ("beyond the calendar",
     lambda d: any(CALENDAR_FUNCTION.search(t) for t in d["texts"])
     and any(HUGE_INTEGER.search(t) for t in d["texts"])),
    ("eval() reads back HTCondor's printing",
     lambda d: d.get("ours") is not None and any(EVAL_CALL.search(t) for t in d["texts"])
     and unpadded_years(as_htcondor_prints(d["ours"], False)) != d["ours"]),
    ("unresolved() of a match's ad",
     lambda d: any(UNRESOLVED_OF_MATCH.search(t) for t in d["texts"])
     and d.get("in_match", False)),
]

# HTCondor crashing is documented under this key (see its reason).
CRASH_KEY = "HTCondor crashes"


def check_deviation_keys():
    known = set()
    with open(DEVIATIONS_FILE, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d["file"] == "htcondor_diff.py":
                known.add(d["key"])
    for key in [k for k, _ in DEVIATIONS] + [CRASH_KEY]:
        if key not in known:
            sys.exit(f"htcondor_diff.py: deviation {key!r} is not in {DEVIATIONS_FILE}")


def float_bits(x):
    x = float(x)
    if x != x:
        return "nan"
    return struct.pack("<d", x)


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def ad_files(case):
    return (f"cat > job.ad <<'EOF'\n{case['job']}\nEOF\n"
            f"cat > machine.ad <<'EOF'\n{case['machine']}\nEOF\n")


class Report:
    def __init__(self, show, save=None):
        self.show = show
        self.save = save
        self.kinds = OrderedDict()   # kind -> [count, examples]
        self.deviations = OrderedDict()
        self.unstable_examples = []
        self.counts = OrderedDict(
            (k, 0) for k in ["expression cases", "pair cases", "evaluations compared",
                             "matches compared", "ranks compared",
                             "unstable (clock or random)",
                             "unstable (HTCondor not reproducible)",
                             "bindings symmetricMatch differs from the negotiator's"])

    def add(self, kind, text, documented=None, record=None):
        if self.save is not None and record is not None:
            self.save.write(json.dumps(dict(record, kind=documented or kind)) + "\n")
        table = self.deviations if documented else self.kinds
        key = documented or kind
        entry = table.setdefault(key, [0, []])
        entry[0] += 1
        if len(entry[1]) < self.show:
            entry[1].append(text)

    def evaluation(self, where, case, ours, theirs, vm, printing, command, setup):
        """One evaluation compared; `command` reproduces it; `setup` is the
        expression and the texts of its MY and TARGET ads (or None)."""
        self.counts["evaluations compared"] += 1
        if vm is not None:
            self.add(f"{where}: our engines disagree (reference vs VM)",
                     f"{command}\n# reference: {ours}\n# vm: {vm}")
        if ours == theirs:
            return
        d = {"ours": ours, "theirs": theirs, "printing": printing,
             "texts": texts_of(case), "in_match": setup[2] is not None}
        text = f"{command}\n# ours:     {ours}\n# HTCondor: {theirs}"
        record = dict(zip(("expr", "my", "target"), setup), ours=ours, theirs=theirs)
        for key, pred in DEVIATIONS:
            if pred(d):
                self.add(None, text, documented=key, record=record)
                return
        if printing_only(printing):
            kind = f"{where}: printing only (same value as HTCondor's tree)"
        else:
            kind = f"{where}: ours {value_class(ours)}, HTCondor {value_class(theirs)}"
        self.add(kind, text, record=record)

    def case(self, case, res):
        if "failed" in res:
            self.counts["expression cases" if case["kind"] == "expr" else "pair cases"] += 1
            what = res["failed"].split(" ")[0]
            where = "expression" if case["kind"] == "expr" else "pair"
            self.add(f"{where}: HTCondor {what}", self.describe(case) + f"\n# {res['failed']}",
                     documented=CRASH_KEY if what == "crashed" else None,
                     record={"case": case})
            return
        if case["kind"] == "expr":
            self.counts["expression cases"] += 1
            cmd = f"classad eval {shell_quote(case['expr'])}"
            self.evaluation("expression", case, case["ours"], res["theirs"],
                            case.get("vm"), res.get("printing"), cmd,
                            (case["expr"], None, None))
            return
        self.counts["pair cases"] += 1
        files = ad_files(case)
        for x, r in zip(case["exprs"], res["exprs"]):
            opts = f"--my {x['my']}.ad" + (f" --target {x['target']}.ad" if x["target"] else "")
            cmd = f"{files}classad eval {opts} {shell_quote(x['expr'])}"
            where = "expression in a match" if x["target"] else "expression in an ad"
            self.evaluation(where, case, x["ours"], r["theirs"], x.get("vm"),
                            r.get("printing"), cmd,
                            (x["expr"], case[x["my"]], x["target"] and case[x["target"]]))
        for a, r in zip(case["attrs"], res["attrs"]):
            other = "machine" if a["ad"] == "job" else "job"
            cmd = (f"{files}classad eval --my {a['ad']}.ad --target {other}.ad "
                   f"{shell_quote(a['name'])}   # {a['name']} = {a.get('text', '?')}")
            self.evaluation("attribute in a match", case, a["ours"], r["theirs"],
                            a.get("vm"), r.get("printing"), cmd,
                            (a["name"], case[a["ad"]], case[other]))
        vm = case.get("vm")
        if vm is not None:
            self.add("pair: our engines disagree on match or rank (reference vs VM)",
                     f"{files}# reference: {case['match']} {case['job_rank']} "
                     f"{case['machine_rank']}\n# vm: {vm}")
        if res["bindings_match"] != res["match"]:
            self.counts["bindings symmetricMatch differs from the negotiator's"] += 1
        # A match or a rank that differs in a case under a case-wide deviation.
        whole = {"texts": texts_of(case), "in_match": True, "ours": None,
                 "theirs": None, "printing": None}
        documented = next((k for k, pred in DEVIATIONS if pred(whole)), None)
        self.counts["matches compared"] += 1
        if case["match"] != res["match"]:
            self.add(f"symmetric match: ours {case['match']}, HTCondor {res['match']}",
                     f"{files}classad match --all-pairs --jobs job.ad --machines machine.ad",
                     documented=documented)
        for side, my, other in [("job_rank", "job", "machine"), ("machine_rank", "machine", "job")]:
            self.counts["ranks compared"] += 1
            if float_bits(case[side]) != float_bits(res[side]):
                self.add(f"rank ({my} side)",
                         f"{files}classad eval --my {my}.ad --target {other}.ad Rank"
                         f"\n# ours: rank {case[side]}   HTCondor: rank {res[side]!r}",
                         documented=documented)

    def unstable(self, case, first, again, clock):
        """A case whose HTCondor results changed when evaluated again."""
        kind = "unstable (clock or random)" if clock else "unstable (HTCondor not reproducible)"
        self.counts[kind] += 1
        self.counts["expression cases" if case["kind"] == "expr" else "pair cases"] += 1
        if sum(1 for e in self.unstable_examples if e[0] == clock) < self.show:
            self.unstable_examples.append((clock,
                f"{self.describe(case)}\n# HTCondor, first: {json.dumps(first)[:300]}"
                f"\n# HTCondor, again: {json.dumps(again)[:300]}"))

    def describe(self, case):
        if case["kind"] == "expr":
            return f"classad eval {shell_quote(case['expr'])}"
        return ad_files(case) + "\n".join(
            f"classad eval --my {x['my']}.ad" + (f" --target {x['target']}.ad" if x["target"] else "")
            + " " + shell_quote(x["expr"]) for x in case["exprs"])

    def print(self):
        out = sys.stdout
        out.write("== counts\n")
        for k, v in self.counts.items():
            out.write(f"{v:>9}  {k}\n")
        if self.unstable_examples:
            out.write("\n== unstable cases (skipped), examples\n")
            for _, e in self.unstable_examples:
                out.write(e + "\n\n")
        for title, table in [("documented deviations", self.deviations),
                             ("disagreements", self.kinds)]:
            total = sum(n for n, _ in table.values())
            out.write(f"\n== {title}: {total} in {len(table)} kinds\n")
            for kind, (n, examples) in sorted(table.items(), key=lambda kv: -kv[1][0]):
                out.write(f"\n--- {n:>7}  {kind}\n")
                for e in examples:
                    out.write(e + "\n\n")
        out.flush()


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def build_diff_cases():
    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "diff_cases"],
                   cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "examples", "diff_cases")


def generated(seeds, exprs, pairs):
    """Runs diff_cases for each seed; yields its cases."""
    binary = build_diff_cases()
    for seed in seeds:
        proc = subprocess.Popen([binary, seed, exprs, pairs], stdout=subprocess.PIPE,
                                env=dict(os.environ, TZ="UTC"), cwd=ROOT)
        for line in proc.stdout:
            yield json.loads(line)
        if proc.wait() != 0:
            sys.exit(f"diff_cases {seed} {exprs} {pairs} failed")


def regenerated(paths):
    """The cases saved in `paths` (by --save-cases) made again by diff_cases,
    with our results from the current build."""
    binary = build_diff_cases()
    for case in from_files(paths):
        one = f"{case['index']}:1"
        ranges = [one, "0:0"] if case["kind"] == "expr" else ["0:0", one]
        out = subprocess.run([binary, str(case["seed"]), *ranges], stdout=subprocess.PIPE,
                             env=dict(os.environ, TZ="UTC"), cwd=ROOT, check=True)
        yield json.loads(out.stdout)


def from_files(paths):
    for path in paths:
        with (sys.stdin if path == "-" else open(path, encoding="utf-8")) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def disagrees(case, res):
    """Whether HTCondor's results `res` differ from ours anywhere in `case`."""
    if case["kind"] == "expr":
        return res["theirs"] != case["ours"] or "vm" in case
    pairs = list(zip(case["exprs"], res["exprs"])) + list(zip(case["attrs"], res["attrs"]))
    return ("vm" in case or case["match"] != res["match"]
            or any(x["ours"] != r["theirs"] or "vm" in x for x, r in pairs)
            or any(float_bits(case[k]) != float_bits(res[k])
                   for k in ("job_rank", "machine_rank")))


def texts_of(case):
    if case["kind"] == "expr":
        return [case["expr"]]
    return [case["job"], case["machine"]] + [x["expr"] for x in case["exprs"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--seed", action="append",
                    help="master seed (decimal, 0x hex or `default`); repeatable")
    ap.add_argument("--exprs", default="20000", help="N or START:COUNT (default 20000)")
    ap.add_argument("--pairs", default="3000", help="N or START:COUNT (default 3000)")
    ap.add_argument("--input", nargs="+", help="read cases from these files ('-': stdin)")
    ap.add_argument("--again", nargs="+", help="make the cases saved in these files "
                    "(--save-cases) again with the current build, and run them")
    ap.add_argument("--show", type=int, default=3, help="examples shown per kind")
    ap.add_argument("--save", help="write every disagreement to this file as a JSON "
                    "line (kind, expr, my, target, ours, theirs)")
    ap.add_argument("--save-cases", help="write every case that disagrees or crashes "
                    "HTCondor to this file, in diff_cases' format (for --input)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds HTCondor may take for one case")
    args = ap.parse_args()
    if args.worker:
        worker()
        return 0
    check_deviation_keys()
    cases = (from_files(args.input) if args.input
             else regenerated(args.again) if args.again
             else generated(args.seed or ["default"], args.exprs, args.pairs))
    report = Report(args.show, open(args.save, "w", encoding="utf-8") if args.save else None)
    save_cases = open(args.save_cases, "w", encoding="utf-8") if args.save_cases else None
    oracle = Oracle(args.timeout)
    suspects = []
    started = time.monotonic()
    try:
        for n, case in enumerate(cases, 1):
            res = oracle.ask(case)
            if save_cases is not None and ("failed" in res or disagrees(case, res)):
                save_cases.write(json.dumps(case) + "\n")
            if "failed" not in res and disagrees(case, res):
                suspects.append((case, res))
            else:
                report.case(case, res)
            if n % 20000 == 0:
                print(f"{n} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)
    finally:
        oracle.stop()
    # Every case that disagrees is evaluated again by HTCondor, in a fresh
    # process and seconds later: a clock reading, or a value HTCondor reads from
    # uninitialised memory, changes, and the case is skipped as unstable.
    time.sleep(max(0.0, 1.1 - (time.monotonic() - started)))
    again_oracle = Oracle(args.timeout)
    try:
        for case, first in suspects:
            again = again_oracle.ask(case)
            if again != first:
                clock = any(CLOCK.search(t) for t in texts_of(case))
                report.unstable(case, first, again, clock)
                continue
            report.case(case, first)
    finally:
        again_oracle.stop()
    if save_cases is not None:
        save_cases.close()
    report.print()
    return 1 if report.kinds else 0


if __name__ == "__main__":
    sys.exit(main())
