//! Golden tests of compiled code: representative Requirements (one or more for
//! each shape family of `classad gen-pool`, and the constructs the code
//! generator treats apart), compiled against their ad, printed with
//! `Program`'s `Display` and compared with `tests/golden/compiled_code.txt`. A
//! change in code generation shows in review as a change of that file.
//!
//! After a deliberate change: `CLASSAD_UPDATE_GOLDEN=1 cargo test --test
//! compiled_code`, then read the diff.

use classad::ad::read_ads;
use classad::compile::compile_ad;
use classad_vm::{Attr, SlotTable};
use std::fmt::Write;
use std::sync::Arc;

/// Each case: a name, and an ad whose `Requirements` is compiled.
const CASES: &[(&str, &str)] = &[
    (
        "benchmark: TARGET attributes against constants and MY's values",
        "RequestMemory = 2048\nRequestCpus = 2\nRequirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)\n",
    ),
    (
        "target-arithmetic: arithmetic on a TARGET attribute",
        "RequestMemory = 2048\nRequirements = TARGET.Memory * 0.9 >= RequestMemory && TARGET.Cpus >= 2\n",
    ),
    (
        "target-pairs: two TARGET attributes compared",
        "Requirements = TARGET.LoadAvg <= TARGET.CondorLoadAvg && TARGET.Mips < TARGET.KFlops\n",
    ),
    (
        "attribute-lists: membership in MY's list, a string list",
        "WantedArchs = { \"X86_64\", \"aarch64\" }\nDESIRED_Sites = \"CHTC,UNL\"\nRequirements = member(TARGET.Arch, MY.WantedArchs) && stringListMember(TARGET.GLIDEIN_Site, MY.DESIRED_Sites)\n",
    ),
    (
        "start-arithmetic: a slot's START on the job's attributes",
        "Memory = 8192\nCpus = 4\nSTART = (TARGET.ImageSize + 1023) / 1024 <= Memory && TARGET.RequestCpus * 2 <= Cpus + 4\nRequirements = START\n",
    ),
    (
        "records: selections through records of both ads",
        "Request = [ Cpus = 2; Gpus = 1 ]\nWanted = [ Site = \"UChicago\" ]\nRequirements = TARGET.Resources.Gpu.Count >= MY.Request.Gpus && (TARGET.Site.Name == MY.Wanted.Site || MY.Wanted.Site is undefined)\n",
    ),
    (
        "strings: string builtins on TARGET attributes (TARGET-only subexpressions)",
        "Requirements = toLower(TARGET.OpSysName) == \"ubuntu\" && size(TARGET.Machine) > 4 || regexp(\"^e5\", TARGET.Machine)\n",
    ),
    (
        "glidein: a pilot's START and WithinResourceLimits, inlined",
        "GLIDEIN_Site = \"SDSC-PRP\"\nCpus = 4\nMemory = 8192\nSTART = (TARGET.DESIRED_Sites =?= undefined || stringListMember(GLIDEIN_Site, TARGET.DESIRED_Sites, \",\")) && (isUndefined(TARGET.ProjectName) != true && TARGET.ProjectName != \"\")\nWithinResourceLimits = TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory && (TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs)\nRequirements = START && WithinResourceLimits\n",
    ),
    (
        "branches: ?:, ifThenElse and elvis",
        "RequestMemory = 1024\nRequirements = (TARGET.Cpus > 8 ? TARGET.Memory : TARGET.TotalSlotMemory) >= RequestMemory && ifThenElse(isUndefined(TARGET.Swap), TARGET.Memory, TARGET.Memory + TARGET.Swap) >= RequestMemory && (TARGET.HasDocker ?: false)\n",
    ),
    (
        "folding: MY's constants folded, a false conjunct ends it",
        "A = 3\nB = A * 2\nFlag = false\nRequirements = TARGET.X > B + 1 && (Flag || TARGET.Y == A)\n",
    ),
    (
        "the reference: a construct the machine leaves to the reference evaluator",
        "Requirements = eval(\"TARGET.Cpus\") > 1 && parent.x =?= undefined\n",
    ),
];

/// The golden text of every case: its ad, then its compiled `Requirements`.
fn compiled() -> String {
    let mut out = String::new();
    for (name, text) in CASES {
        let ads = read_ads(text, name).expect("case parses");
        let ad = Arc::new(ads[0].clone());
        let mut slots = SlotTable::new();
        let c = compile_ad(&ad, &mut slots);
        let slot = slots.get("Requirements").expect("has Requirements");
        writeln!(out, "=== {name}\n{}--- Requirements", text).unwrap();
        match c.vm.get(slot) {
            Attr::Code(p) => write!(out, "{}", stable(&p.to_string())).unwrap(),
            other => writeln!(out, "{other:?}").unwrap(),
        }
        out.push('\n');
    }
    out
}

/// `text` with the keys of TARGET-only subexpressions (numbered by a
/// process-wide table, in the order of compiling) left out.
fn stable(text: &str) -> String {
    let key = regex::Regex::new(r" \(key 0x[0-9a-f]+\)").unwrap();
    key.replace_all(text, "").into_owned()
}

#[test]
fn compiled_code_is_as_recorded() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/compiled_code.txt"
    );
    let got = compiled();
    if std::env::var_os("CLASSAD_UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &got).expect("write the golden file");
        return;
    }
    let want = std::fs::read_to_string(path).expect("tests/golden/compiled_code.txt");
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .map_or(got.lines().count().min(want.lines().count()), |i| i);
        panic!(
            "compiled code differs from tests/golden/compiled_code.txt from line {}:\n  got:  {:?}\n  want: {:?}\n(after a deliberate change: CLASSAD_UPDATE_GOLDEN=1 cargo test --test engine compiled_code)",
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
}
