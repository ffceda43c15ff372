#!/usr/bin/env python3
"""Generate xml.jsonl: HTCondor's reading of XML ClassAds, and of the XML we write.

The oracle is HTCondor's own library through its Python bindings, as in
generate.py (whose helpers and ad lists this script uses; see README.md). Three
kinds of case:

- hand-written XML inputs (every element, escaping, white space, nesting, odd and
  broken input) read with `parseAds(text, ParserType.XML)`, each in a worker
  process, since some of them hang HTCondor's reader or crash it;
- the same ads behind different first lines read with HTCondor's file
  auto-detection (`Parse_auto`, which the bindings reach only through
  `_classad_parse_next(text, 6)`), where HTCondor 25 and its manual disagree;
- ads (those of ads.jsonl that HTCondor reads, and the first two of each pool
  file) printed by our `classad format --xml`, and HTCondor's reading of that
  XML.

Run from anywhere, after `cargo build --release` (about 30 s, most of it the
cases that hang HTCondor, each given 5 s):

    python3 tests/conformance/generate_xml.py [--classad target/release/classad]

It writes xml.jsonl next to this script; two runs give the same file.
"""

import argparse
import json
import os
import select
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (sets TZ and imports htcondor2 before classad2)

c = g.c
REPO = os.path.dirname(os.path.dirname(g.HERE))

HEADER = '<?xml version="1.0"?>\n<!DOCTYPE classads SYSTEM "classads.dtd">\n<classads>\n'
FOOTER = "</classads>\n"


def doc(*ads):
    """A whole document as condor_q -xml prints it."""
    return HEADER + "".join(ads) + FOOTER


def attr(value, name="x"):
    """An ad with one attribute holding `value`, and a second one after it (so
    that what HTCondor does after the value shows)."""
    return f'<c><a n="{name}">{value}</a><a n="z"><i>9</i></a></c>'


# The ad of the condor_q-like document below.
JOB = ('<c>\n'
       '    <a n="Args"><s>-n 5 &lt;in &gt;out</s></a>\n'
       '    <a n="Cmd"><s>/bin/sleep</s></a>\n'
       '    <a n="Env"><s>A=1;B="two words"</s></a>\n'
       '    <a n="Err"><s>C:\\\\dir\\\\err.txt</s></a>\n'
       '    <a n="Rank"><r>0.0</r></a>\n'
       '    <a n="Owner"><s>alice</s></a>\n'
       '    <a n="ClusterId"><i>1234</i></a>\n'
       '    <a n="JobPrio"><i>-5</i></a>\n'
       '    <a n="ExitBySignal"><b v="f"/></a>\n'
       '    <a n="WantCheckpoint"><b v="t"/></a>\n'
       '    <a n="LastMatchTime"><un/></a>\n'
       '    <a n="Broken"><er/></a>\n'
       '    <a n="QDate"><i>1700000000</i></a>\n'
       '    <a n="RequestMemory"><e>ifThenElse(MemoryUsage =!= undefined,MemoryUsage,1 * 1024)</e></a>\n'
       '    <a n="Requirements"><e>(TARGET.Arch == "X86_64") &amp;&amp; (TARGET.Memory &gt;= RequestMemory) '
       '&amp;&amp; (TARGET.Disk &lt; 10 || TARGET.HasFileTransfer)</e></a>\n'
       '    <a n="TransferIn"><l><s>a.txt</s><s>b.txt</s></l></a>\n'
       '    <a n="Resources"><c>\n        <a n="Cpus"><i>1</i></a>\n        <a n="GPUs"><i>0</i></a>\n    </c></a>\n'
       '    <a n="Started"><at>2023-11-14T22:13:20-00:00</at></a>\n'
       '    <a n="Runtime"><r>3.600000000000000E+03</r></a>\n'
       '</c>\n')

XML_CASES = [
    # Documents as HTCondor's tools print them, and their frames.
    doc(JOB),
    doc(JOB, '<c>\n    <a n="Owner"><s>bob</s></a>\n</c>\n'),
    doc(),
    "<classads></classads>",
    "",
    "  \n\t\n",
    '<c><a n="A"><i>1</i></a></c>',
    '<classads><c><a n="A"><i>1</i></a></c></classads>',
    '<?xml version="1.0"?>\n<c><a n="A"><i>1</i></a></c>',
    doc('<c><a n="A"><i>1</i></a></c>\n') + doc('<c><a n="B"><i>2</i></a></c>\n'),
    '<classads><c><a n="A"><i>1</i></a></c></classads><c><a n="B"><i>2</i></a></c>',
    '<c>\n</c>\n',
    '<c></c><c><a n="A"><i>1</i></a></c>',
    '<c><a n="A"><i>1</i></a></c><c></c><c><a n="B"><i>2</i></a></c>',
    '<c/><c><a n="A"><i>1</i></a></c>',
    # Integers.
    attr("<i>42</i>"), attr("<i>-9223372036854775808</i>"), attr("<i>9223372036854775807</i>"),
    attr("<i>99999999999999999999</i>"), attr("<i> 12 \n</i>"), attr("<i>007</i>"),
    attr("<i>+5</i>"), attr("<i>-</i>"), attr("<i>abc</i>"), attr("<i>12abc</i>"),
    attr("<i>1.5</i>"), attr("<i></i>"), attr("<i/>"),
    # Reals.
    attr("<r>1.500000000000000E+00</r>"), attr("<r>2.5</r>"), attr("<r>0.0</r>"),
    attr("<r>-0.0</r>"), attr("<r>NaN</r>"), attr("<r>INF</r>"), attr("<r>-INF</r>"),
    attr("<r>nan</r>"), attr("<r>infinity</r>"), attr("<r>1e400</r>"), attr("<r>4.9e-324</r>"),
    attr("<r>0x10</r>"), attr("<r> 2.5 </r>"), attr("<r>abc</r>"), attr("<r>1e3x</r>"),
    attr("<r></r>"),
    # Strings: entities, escapes, white space, bytes.
    attr("<s>plain</s>"), attr("<s>a &amp; &lt;b&gt;</s>"), attr("<s>&amp;lt;</s>"),
    attr("<s>&quot;&#65;&apos;&foo;</s>"), attr("<s>a & b</s>"), attr("<s>x &amp</s>"),
    attr("<s>a &amp b;</s>"), attr('<s>say "hi"</s>'), attr("<s>it's</s>"),
    attr("<s>tab\\there\\nnew\\\\back\\\"q\\'s</s>"), attr("<s>\\303\\251\\101\\q</s>"),
    attr("<s>caf\u00e9</s>"), attr("<s>a\\0b</s>"), attr("<s>\\377</s>"),
    attr("<s>  two  </s>"), attr("<s>line1\nline2</s>"), attr("<s>\t</s>"),
    attr("<s></s>"), attr("<s/>"), attr("<s><![CDATA[x<y]]></s>"),
    attr("<s>a<!-- c -->b</s>"),
    # Booleans, undefined, error.
    attr('<b v="t"/>'), attr('<b v="f"/>'), attr('<b v="T"></b>'), attr('<b v="F"> </b>'),
    attr('<b v="true"/>'), attr('<b v="1"/>'), attr("<b/>"), attr('<b v="t">x</b>'),
    attr("<un/>"), attr("<un></un>"), attr("<er/>"), attr("<er></er>"),
    # Expressions.
    attr("<e>a + 1</e>"), attr("<e>a &lt; b &amp;&amp; c &gt; d</e>"),
    attr('<e>strcat("&lt;", "a\\"b")</e>'), attr("<e>  a +\n  1  </e>"), attr("<e>5</e>"),
    attr('<e>"str"</e>'), attr("<e>[y = 1; z = {1, 2}]</e>"), attr("<e>{}</e>"),
    attr("<e>a b</e>"), attr("<e>a +</e>"), attr("<e></e>"), attr("<e/>"),
    attr("<e>TARGET.Memory >= 1024</e>"), attr("<e>x =?= undefined</e>"),
    # Times.
    attr("<at>2023-11-14T22:13:20Z</at>"), attr("<at>2023-11-14T22:13:20+05:30</at>"),
    attr("<at>2023-11-14T22:13:20-00:00</at>"), attr("<at> 2020</at>"),
    attr("<at>garbage</at>"), attr("<at></at>"),
    attr("<rt>1+01:01:01</rt>"), attr("<rt>90</rt>"), attr("<rt>-01:30</rt>"),
    attr("<rt>1.5</rt>"), attr("<rt>x</rt>"), attr("<rt></rt>"),
    # Lists.
    attr("<l></l>"), attr("<l> <i>1</i>\n<s>a</s> </l>"),
    attr("<l><l><i>1</i></l><c><a n=\"p\"><i>2</i></a></c><e>a + 1</e><un/></l>"),
    attr("<l/>"), attr("<l>junk</l>"), attr("<l><foo/></l>"), attr("<l><i>1</i></a>"),
    # Nested ads.
    attr('<c><a n="p"><i>1</i></a><a n="q"><s>z</s></a></c>'),
    attr('<c><a n="m"><c><a n="o"><c><a n="p"><i>1</i></a></c></a></c></a></c>'),
    attr("<c></c>"), attr("<c/>"), attr('<c><a n="p"><i>1</i></a><a n="P"><i>2</i></a></c>'),
    # Attribute names.
    '<c><a n="a&amp;b"><i>1</i></a><a n="c&lt;d&gt;"><i>2</i></a></c>',
    '<c><a n="q\\"x"><i>1</i></a></c>',
    '<c><a n="t\\tx"><i>1</i></a></c>',
    '<c><a n="a&b"><i>1</i></a></c>',
    '<c><a n="a&foo;b"><i>1</i></a></c>',
    '<c><a n="1x"><i>1</i></a><a n="true"><i>2</i></a><a n="a b"><i>3</i></a></c>',
    '<c><a n="x"><i>1</i></a><a n="X"><i>2</i></a></c>',
    '<c><a  n = "sp" ><i>1</i></a></c>',
    "<c><a n='sq'><i>1</i></a></c>",
    '<c><a n="x" m="y"><i>1</i></a></c>',
    '<c><a><i>1</i></a></c>',
    '<c><a n=""><i>1</i></a></c>',
    '<c><a n="x"></a><a n="y"><i>1</i></a></c>',
    '<c><a n="x">5</a></c>',
    '<c><a n="x"/><a n="y"><i>1</i></a></c>',
    '<c><a n="x"><i>1</i><i>2</i></a><a n="y"><i>3</i></a></c>',
    # What surrounds attributes, and broken structure.
    '<c>junk<a n="a"><i>1</i></a></c>',
    '<c><!-- note --><a n="a"><i>1</i></a></c><c><a n="b"><i>2</i></a></c>',
    '<!-- note --><c><a n="a"><i>1</i></a></c>',
    '<c><a n="a"><i>1</i></a><foo/><a n="b"><i>2</i></a></c><c><a n="c"><i>3</i></a></c>',
    '<foo>bar</foo><c><a n="a"><i>1</i></a></c>',
    'text<c><a n="a"><i>1</i></a></c>',
    '<C><A N="x"><i>1</i></A></C>',
    '< c ><a n="y"><i>1</i></a></ c >',
    '<c><c><a n="a"><i>1</i></a></c></c>',
    '<c><?xml version="1.0"?><a n="a"><i>1</i></a></c>',
    '<c><a n="a"><i>1</i></a>',
    '<c><a n="a"><i>1',
    '<c><a n="a"><i>1</i></a',
    '</c><c><a n="a"><i>1</i></a></c>',
    '<c><a n="a"><i>1</i></b></c>',
]

# Lists nested this deep in one attribute (the input is built from the depth).
LIST_DEPTHS = [165, 166, 300, 100000]


def nested_lists(depth):
    return '<c><a n="x">' + "<l>" * depth + "<i>1</i>" + "</l>" * depth + "</a></c>"


# First lines before a condor_q-like body, for HTCondor's auto-detection. The
# manual says of `condor_qedit -edits[:auto|...]`: "the default auto detects the
# format from the input", and of `condor_transform_ads -in:auto`: "guess format
# by reading the input".
AUTO_BODY = '<classads>\n<c>\n    <a n="A"><i>1</i></a>\n</c>\n</classads>\n'
AUTO_FIRST_LINES = [
    '<?xml version="1.0"?>\n',
    '  <?xml version="1.0"?>  \n',
    '# made by hand\n<?xml version="1.0"?>\n',
    "<?xml version='1.0'?>\n",
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    "",
]
AUTO_MANUAL = ("condor_qedit(1): -edits[:auto|long|xml|json|new]: \"the default auto detects "
               "the format from the input\"; condor_transform_ads(1): -in:auto \"guess format "
               "by reading the input\"")

WORKER = r'''
import json, os, sys, time
os.environ["TZ"] = "UTC"
time.tzset()
import htcondor2
import classad2 as c
from classad2._class_ad import _classad_parse_next
for line in sys.stdin:
    case = json.loads(line)
    text = case["text"]
    if case["mode"] == "auto":
        try:
            ad, _ = _classad_parse_next(text, 6, 0)
            reply = {"first_ad": None if ad is None else repr(ad)}
        except Exception:
            reply = {"error": True}
    else:
        ads = []
        reply = {}
        try:
            for ad in c.parseAds(text, c.ParserType.XML):
                ads.append(repr(ad))
        except Exception:
            reply["error"] = True
        reply["ads"] = ads
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
'''

TIMEOUT = 5.0


class Oracle:
    """HTCondor's library in a worker process, restarted when a case hangs or
    crashes it."""

    def __init__(self):
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)

    def ask(self, mode, text):
        if self.proc is None:
            self.start()
        self.proc.stdin.write(json.dumps({"mode": mode, "text": text}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return {"htcondor": "hangs"}
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.proc = None
            return {"htcondor": "crashes"}
        return json.loads(line)

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


def reading_rows(oracle):
    rows = []
    for text in XML_CASES:
        rows.append({"input_xml": text, **oracle.ask("xml", text)})
    for depth in LIST_DEPTHS:
        rows.append({"input_xml_list_depth": depth, **oracle.ask("xml", nested_lists(depth))})
    for first in AUTO_FIRST_LINES:
        text = first + AUTO_BODY
        rows.append({"input_auto": text, **oracle.ask("auto", text), "manual": AUTO_MANUAL})
    return rows


def sample_ads():
    """(where it is from, HTCondor's new-syntax repr) of the ads printed as XML."""
    ads = []
    parsers = [("input", g.NEW_ADS, g.parse_new_ad),
               ("input_old", g.OLD_ADS, lambda t: c.parseNext(t, c.ParserType.Old)),
               ("input_json", g.JSON_ADS, lambda t: c.parseNext(t, c.ParserType.JSON))]
    for key, inputs, parse in parsers:
        for text in inputs:
            try:
                ad = parse(text)
            except Exception:
                ad = None
            if ad is not None:
                ads.append((f"ads.jsonl {key}", repr(ad)))
    for pool, _, _, _ in g.POOLS:
        for kind in ("machines", "jobs"):
            name = f"{pool}.{kind}.ads"
            with open(os.path.join(g.HERE, "pools", name)) as f:
                for i, ad in enumerate(c.parseAds(f.read(), c.ParserType.Old)):
                    if i == 2:
                        break
                    ads.append((f"pools/{name} ad {i}", repr(ad)))
    # Each once, in first-seen order.
    seen, unique = set(), []
    for source, text in ads:
        if text not in seen:
            seen.add(text)
            unique.append((source, text))
    return unique


def writing_rows(oracle, classad):
    rows = []
    for source, text in sample_ads():
        run = subprocess.run([classad, "format", "--xml", "-"], input=text + "\n",
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"xml: we do not read {text!r} ({run.stderr.strip()}); left out",
                  file=sys.stderr)
            continue
        rows.append({"write": text, "from": source, "xml": run.stdout,
                     **oracle.ask("xml", run.stdout)})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    parser.add_argument("--classad", default=os.path.join(target, "release", "classad"),
                        help="our binary, whose XML printing is held against HTCondor")
    args = parser.parse_args()
    if not os.path.exists(args.classad):
        sys.exit(f"{args.classad}: not found; build it with `cargo build --release`")
    oracle = Oracle()
    rows = reading_rows(oracle) + writing_rows(oracle, args.classad)
    oracle.close()
    odd = sum(1 for r in rows if "htcondor" in r)
    print(f"xml: {len(rows)} cases ({odd} hang or crash HTCondor)", file=sys.stderr)
    g.write_jsonl(os.path.join(g.HERE, "xml.jsonl"), rows)


if __name__ == "__main__":
    main()
