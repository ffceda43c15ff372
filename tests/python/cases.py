"""The script bodies run against classad2 and against classad_rs.

Each case is a name and a function of the module under test (``c``: classad2
or classad_rs, imported the same way) whose result, or the exception it
raises, is turned into text by ``outcome``. ``test_against_classad2.py`` runs
each body on both modules and compares; ``generate_expected.py`` writes
classad2's outcomes to ``expected.json``, which ``test_expected.py`` holds
ours against where HTCondor is not installed.
"""

import datetime
import io
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CONFORMANCE = os.path.join(HERE, "..", "conformance")


def show(x):
    """A value as text that tells types apart (``1`` from ``1.0`` and ``True``,
    an ``ExprTree`` from a string), the same for both modules."""
    if isinstance(x, (list, tuple)):
        inner = ", ".join(show(i) for i in x)
        return f"{type(x).__name__}[{inner}]"
    if isinstance(x, dict):
        inner = ", ".join(f"{show(k)}: {show(v)}" for k, v in x.items())
        return f"dict{{{inner}}}"
    name = type(x).__name__
    if name in ("KeysView", "ItemsView", "ValuesView"):
        return f"{name}{show(list(x))}"
    return f"{name}:{x!r}"


def message(e):
    """The exception's message as classad2 words it. Where a text fails to
    parse, classad_rs goes on after classad2's sentence with where and why
    (`` At line L, column C: ...``, also as ``e.line`` and ``e.column``), which
    classad2 does not say; that part is left out here and checked on its own
    (``test_reading.py``)."""
    text = str(e)
    if hasattr(e, "line") and hasattr(e, "column"):
        where = f" At line {e.line}, column {e.column}: "
        if where in text:
            return text[:text.index(where)]
    return text


def outcome(body, c):
    """What running ``body(c)`` gives: its result, or the exception's type name
    and message."""
    try:
        return "ok " + show(body(c))
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return f"raise {type(e).__name__}: {message(e)}"


CASES = []


def case(name):
    def add(f):
        CASES.append((name, f))
        return f

    return add


def each(prefix, items, make):
    for i, item in enumerate(items):
        CASES.append((f"{prefix}[{i}] {item!r}"[:160], make(item)))


# --- Expressions: evaluated, simplified and printed -------------------------

# Expressions whose value crashes classad2's conversion to Python (a list
# holding the match's own ads): the comparison could not run.
ORACLE_CRASHES = {"evalInEachContext(TARGET, {[b = 1], 2})"}


def _sampled_eval_cases(step=37):
    """Every ``step``-th case of the conformance suite's evaluation cases: an
    expression, an optional scope ad and an optional target ad."""
    out = []
    with open(os.path.join(CONFORMANCE, "eval.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % step == 0:
                j = json.loads(line)
                if j["expr"] not in ORACLE_CRASHES:
                    out.append((j["expr"], j["my"], j["target"]))
    return out


def _eval_case(item):
    expr, my, target = item

    def body(c):
        e = c.ExprTree(expr)
        scope = c.ClassAd(my) if my is not None else None
        tgt = c.ClassAd(target) if target is not None else None
        return [str(e), repr(e), e.eval(scope, tgt), repr(e.simplify(scope, tgt))]

    return body


each("eval", _sampled_eval_cases(), _eval_case)

EXPRESSIONS = [
    "1 + 2", "1 +  2", "2.5 * 2", "\"a\" + 1", "\"x\\ny\"", "{1, 2.5, \"s\", a}",
    "{1 + 1, x, [a = 1], {1}}", "[a = 1; b = a + 1]", "[a = 1; b = a + 1].b",
    "undefined", "error", "true", "false", "absTime(\"2020-01-01T05:00:00+05:00\")",
    "absTime(0)", "absTime(-100000000000)", "relTime(90)", "relTime(-90.5)",
    "relTime(\"1:00:00\")", "real(\"NaN\")", "real(\"INF\")", "-real(\"INF\")",
    "9223372036854775807", "-9223372036854775807 - 1", "1/0", "5 % 0",
    "split(\"a b c\")", "splitTime(3661)", "strcat(\"a\", 2.5, true)", "{}", "[]",
    "{[a = 1], 3}.a", "size({1, 2, 3})", "\"caf\u00e9\"", "'odd name' + 1",
    "ifThenElse(x, 1, 2)", "x =?= undefined", "1 is 1.0", "\"a\" == \"A\"",
    "(1)", "- 5", "a ?: 7", "1 ? 2 : 3", "{1, {2, {3}}}", "toUpper(\"x\")",
    "1; b = 2", "1 ]", "", "1 +", "1 // comment", "[a = ]", "((((1))))",
]


def _expr_case(text):
    def body(c):
        e = c.ExprTree(text)
        return [str(e), repr(e), e.eval(), repr(e.simplify())]

    return body


each("expr", EXPRESSIONS, _expr_case)


@case("ExprTree() is undefined")
def _(c):
    return [repr(c.ExprTree()), repr(c.ExprTree(None)), c.ExprTree().eval()]


@case("ExprTree of an int, a copy, a ClassAd")
def _(c):
    e = c.ExprTree("a + b")
    return [repr(c.ExprTree(5)), repr(c.ExprTree(e)), repr(c.ExprTree(c.ClassAd("[q = 1]")))]


@case("ExprTree of a list does not parse")
def _(c):
    return c.ExprTree([1, 2])


@case("ExprTree equality")
def _(c):
    E = c.ExprTree
    return [
        E("1+2") == E("1 + 2"), E("a") == E("A"), E("(a)") == E("a"), E("1.0") == E("1"),
        E("\"a\"") == E("\"A\""), E("1") == 1, E("1") != E("2"), E("1") != 1,
        E("f(x, {1})") == E("f(x,{1})"), E("[a = 1; b = 2]") == E("[b = 2; a = 1]"),
    ]


@case("ExprTree is unhashable")
def _(c):
    return hash(c.ExprTree("1"))


@case("ExprTree has no arithmetic")
def _(c):
    return c.ExprTree("1") + 1 is None


@case("ExprTree has no and_")
def _(c):
    return c.ExprTree("1").and_


@case("eval scope and target types")
def _(c):
    out = []
    for args in [(5,), (None, 5), (c.ClassAd(), "x")]:
        try:
            c.ExprTree("1").eval(*args)
        except TypeError as e:
            out.append(str(e))
    return out


@case("eval with scope and target")
def _(c):
    my, t = c.ClassAd({"y": 1, "n": "me"}), c.ClassAd({"x": 3, "n": "them"})
    E = c.ExprTree
    return [
        E("TARGET.x + y").eval(my, t), E("x + y").eval(my, t), E("MY.y").eval(my),
        E("TARGET.x").eval(None, t), E("TARGET.n").eval(my, my), E("n").eval(scope=my, target=t),
        E("TARGET.x + y").eval(target=t, scope=my), repr(E("TARGET.x + y").simplify(my, t)),
        E("other.n").eval(my, t), E("my.n").eval(t, my),
    ]


@case("eval failures")
def _(c):
    big = "[" + "; ".join(f"b{i} = b{i - 1} + b{i - 1}" for i in range(1, 40)) + "; b0 = 1]"
    return c.ClassAd(big).eval("b39")


@case("circular references are undefined")
def _(c):
    return c.ClassAd("[a = b; b = a]").eval("a")


@case("deep nesting does not parse")
def _(c):
    return c.ExprTree("(" * 1000 + "1" + ")" * 1000)


# --- ClassAds: construction, printing, the mapping ---------------------------

def _ad_inputs():
    out = []
    with open(os.path.join(CONFORMANCE, "ads.jsonl"), encoding="utf-8") as f:
        for line in f:
            j = json.loads(line)
            if "input" in j:
                out.append(j["input"])
    return out


def _ad_case(text):
    def body(c):
        ad = c.ClassAd(text)
        return [repr(ad), str(ad), ad.printOld(), ad.printJson(), list(ad.keys()), len(ad),
                list(ad.items())]

    return body


each("ad", _ad_inputs(), _ad_case)

AD = ('[a = 1; b = a + 2; s = "x\\ny"; l = {1, 2.5, "s", a}; r = [x = 1]; u = undefined; '
      'e = error; t = absTime("2020-01-01T00:00:00Z"); rt = relTime("1:00:00"); f = 2.5; '
      'bo = true; ls = {[q = 1], {2, y}}]')


@case("ad getitem eval lookup")
def _(c):
    ad = c.ClassAd(AD)
    out = []
    for k in ["a", "b", "s", "l", "r", "u", "e", "t", "rt", "f", "bo", "ls", "A", "missing"]:
        for f in (lambda: ad[k], lambda: ad.eval(k), lambda: ad.lookup(k), lambda: ad.get(k, 7)):
            try:
                out.append(show(f()))
            except KeyError as e:
                out.append(f"KeyError {e}")
    return out


@case("ad keys values items len contains iter")
def _(c):
    ad = c.ClassAd(AD)
    return [list(ad.keys()), list(ad.values()), list(ad.items()), len(ad), "A" in ad,
            "zz" in ad, list(ad), list(iter(ad))]


@case("ad str and repr")
def _(c):
    ad = c.ClassAd(AD)
    return [str(ad), repr(ad), ad.printOld(), ad.printJson()]


@case("ad keys must be strings")
def _(c):
    out = []
    ad = c.ClassAd()
    for f in (lambda: ad[1], lambda: ad.__setitem__(1, 1), lambda: ad.__delitem__(1),
              lambda: ad.lookup(1), lambda: 1 in ad, lambda: ad.eval(1)):
        try:
            f()
        except TypeError as e:
            out.append(str(e))
    return out


@case("ad del and missing keys")
def _(c):
    ad = c.ClassAd("[a = 1; B = 2]")
    del ad["b"]
    out = [repr(ad)]
    try:
        del ad["zz"]
    except KeyError as e:
        out.append(repr(e))
    return out


@case("ad from dict")
def _(c):
    return repr(c.ClassAd({"a": 1, "b": [1, 2, {"c": None}], "d": 2.5, "e": "s", "f": True,
                           "g": c.Value.Undefined, "h": c.Value.Error, "i": c.ExprTree("x + 1"),
                           "j": (1, 2), "k": {1}, "l": b"ab", "m": c.ClassAd({"z": 1})}))


@case("ad from a bad type")
def _(c):
    return c.ClassAd(5)


@case("ad from text that does not parse")
def _(c):
    out = []
    for text in ["[a = ]", "a = 1", "", "[a = 1] junk", "[a = 1] [b = 2]"]:
        try:
            out.append(repr(c.ClassAd(text)))
        except c.ClassAdException as e:
            out.append(message(e))
    return out


SET_VALUES = [
    ("i", 2**63 - 1), ("neg", -5), ("f", float("nan")), ("inf", float("inf")), ("n", None),
    ("l", [1, [2], {"a": 1}, None]), ("d", {"x": {"y": 1}}), ("s", "caf\u00e9"), ("bo", False),
    ("t", (1, "x")), ("fz", frozenset()), ("g", range(3)), ("em", ""), ("z", 0.0), ("mz", -0.0),
    ("dt", datetime.datetime(2020, 1, 1, 5, tzinfo=datetime.timezone(datetime.timedelta(hours=5)))),
    ("du", datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)),
    ("dn", datetime.datetime(2021, 6, 1, 12, 30)),
]


def _set_case(item):
    key, value = item

    def body(c):
        ad = c.ClassAd()
        ad[key] = value
        return [repr(ad.lookup(key)), ad[key], repr(ad), ad.printOld()]

    return body


each("setitem", SET_VALUES, _set_case)


@case("setitem of ExprTree, ClassAd, Value")
def _(c):
    ad = c.ClassAd()
    ad["e"] = c.ExprTree("a + 1")
    ad["c"] = c.ClassAd({"z": 1})
    ad["u"] = c.Value.Undefined
    ad["r"] = c.Value.Error
    ad["l"] = [c.ExprTree("x"), c.ClassAd({"q": 2}), c.Value.Error]
    return [repr(ad), ad["l"], ad["c"], ad["e"]]


@case("setitem of objects that do not convert")
def _(c):
    out = []
    for v in [object(), datetime.timedelta(5), 1j]:
        try:
            c.ClassAd()["x"] = v
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return out


@case("setitem of odd names")
def _(c):
    ad = c.ClassAd()
    ad["a b"] = 1
    ad["A"] = 2
    ad["a"] = 3
    return [repr(ad), list(ad.keys())]


@case("setitem of an empty name")
def _(c):
    c.ClassAd()[""] = 1


@case("mapping mixins")
def _(c):
    ad = c.ClassAd("[a = 1; b = 2; c = 3]")
    out = [ad.pop("a"), ad.pop("zz", 9), ad.setdefault("d", 5), ad.setdefault("b", 7), repr(ad)]
    ad.update({"q": 1, "r": [1]})
    ad.update(z1=1)
    ad.update([("w", "x")])
    out.append(repr(ad))
    out.append(ad.popitem())
    ad.clear()
    out.append([len(ad), repr(ad)])
    return out


@case("pop of a missing key")
def _(c):
    return c.ClassAd().pop("x")


@case("ad equality")
def _(c):
    A = c.ClassAd
    return [
        A("[a=1;b=2]") == A("[b=2;a=1]"), A("[a=1]") == A("[A=1]"), A("[a=1]") == A("[a=1.0]"),
        A("[a=1]") != A("[a=2]"), A("[a=1]") == {"a": 1}, A("[a=1]") == c.ExprTree("[a=1]"),
        A() == A(), A("[a = x + 1]") == A("[a = x+1]"),
    ]


@case("ad is unhashable")
def _(c):
    return hash(c.ClassAd())


@case("ad is a mutable mapping")
def _(c):
    import collections.abc as abc

    ad = c.ClassAd()
    return [isinstance(ad, abc.MutableMapping), isinstance(ad, abc.Mapping)]


@case("pickle round trip")
def _(c):
    import pickle

    ad = c.ClassAd(AD)
    return [repr(pickle.loads(pickle.dumps(ad))), pickle.loads(pickle.dumps(ad)) == ad]


# --- References, flattening, matching ---------------------------------------

REF_AD = ('[Memory = 4; Start = TARGET.RequestMemory <= Memory && Owner != "x"; A = b + 1; '
          'B = c * 2; C = TARGET.x; r = [q = 1]; X = Y; Y = X]')
REF_EXPRS = [
    "Start && TARGET.Resources.Gpu > MY.Cpus", "a + A", "TARGET.a.b + other.c + my.d + MY.memory",
    "r.q + r.z + zz.y + zz.y.w", "X", "x + 1", "foo(bar, baz) + {qq, [k = kk]}",
    "CurrentTime + 1", "1", ".abs", "Zed + zed + ZED", "ifThenElse(u, v, w)",
]


def _refs_case(text):
    def body(c):
        ad = c.ClassAd(REF_AD)
        out = []
        for f in (ad.externalRefs, ad.internalRefs):
            try:
                out.append(f(c.ExprTree(text)))
            except ValueError as e:
                out.append(f"ValueError: {message(e)}")
        return out

    return body


each("refs", REF_EXPRS, _refs_case)


@case("refs need an ExprTree")
def _(c):
    return c.ClassAd().externalRefs("a")


FLAT_AD = ('[a=1; r=3; req = TARGET.Memory > r*1024 && a == 1 && other.x =?= undefined; '
           's = "str"; l = {1,2}; u = undefined; e = error; f = 2.5; rec = [q = a; w = zz]; '
           'n0 = 0; t = true; fa = false; rr = z + 1; ar = {a, z}; sub = a + 1]')
FLAT_EXPRS = [
    "req", "a + 1", "a + z", "z + a + 1", "1 + 2 + z", "z + 1 + 2", "true && z", "z && true",
    "false && z", "z || true", "ifThenElse(a>0, TARGET.Mips, 0)", "strcat(s, \"x\")", "l", "u",
    "e", "u + z", "e + z", "f * z", "z ? a : r", "a ? z : r", "-a", "-z", "!z", "(a)", "(z)",
    "l[0]", "s == \"STR\"", "size(l)", "member(z, l)", "[x = a; y = z]", "{a, z}", "a.b", "z.b",
    "MY.a", "TARGET.a", "a * r * z", "z * a * r", "x =?= undefined", "a is 1", "a =!= z",
    "z > 3 && a == 1", "a == 1 && z > 3", "undefined", "error + z", "absTime(0)", "relTime(5)",
    "z - 1 - 2", "1 - z", "z - a", "z & 1 & 2", "z | a | 2", "z ^ a", "z == a", "z < a",
    "z && y", "a && z", "n0 && z", "u && z", "e || z", "s && z", "z || false", "z || fa",
    "t && z", "z ?: a", "a ?: z", "u ?: z", "z[0]", "u ? a : r", "s ? a : r", "e ? a : r",
    "t ? z : y", "(z + 1) + 2", "(a + z)", "2 + (z + 1)", "z + (1 + 2)", "z * 2 + 3",
    "a + a + z + a", "z / 2 / 2", "z % a", "z << a", "z + y + 1", "1 + z + y", "z + 1 + y + 2",
    "rr", "rr + 1", "sub", "sub + z", "ar", "rec", "rec.q", "rec.w", "rec.zz", "-(z)", "!a",
    "~z", "-u", "a + u", "1/0 + z", "a.b + z", "{z, a, {a, z}}", "[k = a]", "l[1]",
    "{1,2}[1]", "{z,2}[1]", "z is a", "a isnt z", "a =?= 1", "z =?= a", "strcat(z, a)",
    "strcat(s, a)", "ifThenElse(z, a, r)", "ifThenElse(t, a, z)", "isUndefined(z)",
    "isUndefined(u)", "eval(\"a\")", "regexp(\"s\", s)", "a + 2 * z", "2 * z + a", ".a",
    "parent.a", "MY.z", "TARGET.z + a", "target.a", "other.z", "size(z)", "size({z})",
    "unparse(a)", "x ? a : r", "a > 0 ? a : z", "foo(bar, baz)", "split(s)",
]


def _flat_case(text):
    def body(c):
        return c.ClassAd(FLAT_AD).flatten(c.ExprTree(text))

    return body


each("flatten", FLAT_EXPRS, _flat_case)


@case("flatten of a cycle")
def _(c):
    return c.ClassAd("[X = Y; Y = X]").flatten(c.ExprTree("X + 1"))


@case("flatten needs an ExprTree")
def _(c):
    return c.ClassAd().flatten("a")


MATCH_ADS = [
    "[Requirements = TARGET.Cpus >= 2; Rank = TARGET.Cpus; Owner = \"a\"]",
    "[Requirements = true; Cpus = 4]",
    "[Requirements = TARGET.Owner == \"a\"; Cpus = 1]",
    "[Cpus = 8]",
    "[requirements = 1; Cpus = 2]",
    "[requirements = 0.5; Cpus = 2]",
    "[requirements = 0.0]",
    "[requirements = \"true\"]",
    "[requirements = undefined]",
    "[requirements = error]",
    "[requirements = x; x = TARGET.y; y = true]",
    "[requirements = MY.Cpus > 2; Cpus = 4]",
    "[requirements = real(\"NaN\")]",
    "[requirements = Cpus > 2]",
]


@case("matches and symmetricMatch over every pair")
def _(c):
    ads = [c.ClassAd(t) for t in MATCH_ADS]
    return [[a.matches(b), a.symmetricMatch(b)] for a in ads for b in ads]


@case("matches needs a ClassAd")
def _(c):
    return c.ClassAd().matches({"a": 1})


@case("symmetricMatch needs a ClassAd")
def _(c):
    return c.ClassAd().symmetricMatch(None)


# --- Parsing, quoting, the enums, the version -------------------------------

OLD = "a = 1\nb = \"x\"\n\nc = 2\n\n\nd = 3\n"
NEW = "[a = 1; b = \"x\"] [c = 2]\n[d = 3]"
PARSE_INPUTS = [("old", OLD), ("new", NEW), ("empty", ""), ("bad", "a = \n\nb = 2"),
                ("badnew", "[a = ] [b=2]"), ("comment", "# c\na = 1\n"),
                ("slash", "// x\n[a=1]"), ("dup", "a = 1\n\na = 2\nb=3\n")]
PARSERS = ["Auto", "Old", "New", None]


def _parse_case(item):
    (name, text), parser = item

    def body(c):
        args = (text,) if parser is None else (text, getattr(c.ParserType, parser))
        out = []
        for f in (lambda: [repr(a) for a in c.parseAds(*args)], lambda: repr(c.parseOne(*args)),
                  lambda: repr(c.parseNext(*args))):
            try:
                out.append(f())
            except ValueError as e:
                out.append(f"ValueError: {message(e)}")
        return out

    return body


# Old syntax is not asked of new-syntax text (classad2 reads `[a` as a name there).
each("parse", [(i, p) for i in PARSE_INPUTS for p in PARSERS
               if not (p == "Old" and i[0] in ("new", "badnew", "slash"))], _parse_case)


@case("parseAds from a file")
def _(c):
    f = io.StringIO(OLD)
    return [repr(a) for a in c.parseAds(f)]


@case("parseAds is a generator")
def _(c):
    import types

    return isinstance(c.parseAds(OLD), types.GeneratorType)


@case("parseNext of a file leaves it after the ad")
def _(c):
    import tempfile

    with tempfile.TemporaryFile("w+") as f:
        f.write(OLD)
        f.seek(0)
        first = c.parseNext(f, c.ParserType.Old)
        second = c.parseNext(f, c.ParserType.Old)
        return [repr(first), repr(second)]


QUOTED = ['"abc"', '"a\\tb"', 'abc', '"a" "b"', '  "a"  ', '"a', '1', '"\\101"',
          '"caf\\303\\251"', '""', '"a" + "b"']


@case("unquote")
def _(c):
    out = []
    for s in QUOTED:
        try:
            out.append(c.unquote(s))
        except ValueError as e:
            out.append(f"ValueError: {message(e)}")
    return out


@case("quote")
def _(c):
    return [c.quote(s) for s in ['abc', 'a"b', 'a\\b', 'tab\there', 'nl\n', 'caf\u00e9', '\x01', "'"]]


@case("quote needs a string")
def _(c):
    return c.quote(5)


@case("unquote needs a string")
def _(c):
    return c.unquote(5)


@case("the enums")
def _(c):
    return [list(c.Value), list(c.ParserType), c.Parser is c.ParserType,
            int(c.Value.Undefined), c.Value.Error == 1]


@case("version")
def _(c):
    return c.version()


@case("ClassAdException is an Exception")
def _(c):
    return [issubclass(c.ClassAdException, Exception), c.ClassAdException.__name__]
