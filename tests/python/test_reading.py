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
