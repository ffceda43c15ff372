"""Reading ads from files and strings: where ``parseNext`` and ``parseAds`` leave
a file (byte offsets, also past non-ASCII text), and the ads read before one that
does not parse."""

import pytest

OLD = 'A = "caf\u00e9"\nB = 1\n\nA = "na\u00efve \u00fcber"\nB = 2\n\nA = "end"\nB = 3\n'
NEW = '[ A = "caf\u00e9"; B = 1 ]\n[ A = "na\u00efve \u00fcber"; B = 2 ]\n[ A = "end"; B = 3 ]\n'


@pytest.mark.parametrize("text", [OLD, NEW], ids=["old", "new"])
def test_parse_next_reads_a_file_ad_after_ad(ours, tmp_path, text):
    path = tmp_path / "ads"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as f:
        got = []
        while True:
            ad = ours.parseNext(f)
            if ad is None:
                break
            got.append((ad["A"], ad["B"]))
    assert got == [("caf\u00e9", 1), ("na\u00efve \u00fcber", 2), ("end", 3)]


@pytest.mark.parametrize("text", [OLD, NEW], ids=["old", "new"])
def test_parse_ads_leaves_a_file_after_each_ad(ours, tmp_path, text):
    path = tmp_path / "ads"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as f:
        ads = ours.parseAds(f)
        first = next(ads)
        assert first["B"] == 1
        # The rest of the file, read from where the generator left it.
        rest = list(ours.parseAds(f.read()))
        assert [ad["B"] for ad in rest] == [2, 3]


def test_parse_ads_gives_the_ads_before_one_that_does_not_parse(ours):
    text = "[ a = 1 ]\n[ b = 2 ]\n[ c = ]\n[ d = 4 ]\n"
    got = []
    with pytest.raises(Exception):
        for ad in ours.parseAds(text):
            got.append(sorted(ad.keys()))
    assert got == [["a"], ["b"]]


def test_parse_ads_reads_many_ads_of_one_string(ours):
    text = "".join(f"Name = \"slot{i}\"\nCpus = {i % 8}\n\n" for i in range(20000))
    ads = list(ours.parseAds(text))
    assert len(ads) == 20000
    assert ads[-1]["Name"] == "slot19999"


# Where a text fails to parse: classad2's sentence, then the line and column in
# the text as given (ads read before it counted) and why, also as the
# exception's `line` and `column`.
WHERE = [
    ("ClassAd", lambda c: c.ClassAd("[\n  a = 1;\n  b = ]"), "ClassAdException", 3, 7),
    ("ClassAd, no ad", lambda c: c.ClassAd("  \n "), "ClassAdException", 2, 2),
    ("ExprTree", lambda c: c.ExprTree("1 + * 2"), "ClassAdException", 1, 5),
    ("parseAds, new", lambda c: list(c.parseAds("[ a = 1 ]\n[ b = 2 ]\n[ c = ]\n")), "ValueError", 3, 7),
    ("parseAds, old", lambda c: list(c.parseAds("A = 1\n\nB = 2\nC = (\n")), "ValueError", 4, 6),
    ("parseNext, after an ad", lambda c: c.parseNext("\n\n[ a = ; ]"), "ValueError", 3, 7),
    ("parseAds, JSON", lambda c: list(c.parseAds('[\n{"a": 1},\n{"b": }\n]', c.ParserType.JSON)),
     "ValueError", 3, 7),
]


@pytest.mark.parametrize("body,kind,line,column", [w[1:] for w in WHERE],
                         ids=[w[0] for w in WHERE])
def test_a_parse_error_says_where(ours, body, kind, line, column):
    with pytest.raises(Exception) as caught:
        body(ours)
    e = caught.value
    assert type(e).__name__ == kind
    assert (e.line, e.column) == (line, column), str(e)
    assert str(e).startswith("Unable to parse "), str(e)
    assert f" At line {line}, column {column}: " in str(e)


def test_all_is_the_api_and_nothing_else(ours):
    namespace = {}
    exec("from classad_rs import *", namespace)
    imported = set(namespace) - {"__builtins__"}
    assert imported == set(ours.__all__)
    assert len(ours.__all__) == len(set(ours.__all__))
    # Every public name of the module is in it (its submodules aside), so that
    # nothing the module imports for itself passes for its API.
    import types

    public = {n for n, v in vars(ours).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(ours.__all__)
    # classad2's names are all there.
    for name in ["ClassAd", "ClassAdException", "ExprTree", "Parser", "ParserType", "Value",
                 "lastError", "parseAds", "parseNext", "parseOne", "quote", "unquote",
                 "version"]:
        assert name in ours.__all__
