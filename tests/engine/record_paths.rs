//! Selection chains through record literals (`TARGET.Resources.Gpu.Count`,
//! `MY.Request.Memory`, `Resources.Cpus`), which compiled code resolves with
//! `SelectPath` where HTCondor's lookups need no evaluation: every case here on
//! both engines, in a match, with the same answer; the cases the machine
//! leaves to the reference evaluator (a name found further up, a list, a record
//! as the result, a field that reads the ad) included.

use classad::ad::{read_ads, ClassAd};
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::syntax::{ast::ExprRef, parse_expr};
use classad::values::display::unparse_value;
use std::sync::Arc;

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

fn eval(engine: Engine, my: &Arc<ClassAd>, target: &Arc<ClassAd>, expr: &str) -> String {
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    match eval_in_with(engine, &e, my, Some(target), Semantics::Htcondor) {
        Ok(v) => unparse_value(&v),
        Err(_) => "failed".to_string(),
    }
}

#[test]
fn chains_through_records_agree_with_the_reference_evaluator() {
    let slot = ad(concat!(
        "Memory = 4096\nCpus = 8\nName = \"slot1\"\n",
        "Resources = [ Cpus = 40; MemoryPerCpu = 4096; Memory = Cpus * MemoryPerCpu; ",
        "Gpu = [ Count = 2; Cap = 7.5; Twice = Count * 2; Outer = MemoryPerCpu + 1; ",
        "Up = Cpus + 0 ]; Missing = Nowhere + 1; Mine = Name; Lst = { 1, 2 }; ",
        "Dup = 1; DUP = 2; When = relTime(\"1:00\") ]\n",
        "Site = [ Name = \"SDSC\"; Policy = [ MaxHours = 72; AllowGpu = true ] ]\n",
        "Flat = 7\nText = \"abc\"\nList = { [ a = 1 ] }\nUndef = undefined\n",
        "Devices = { [ Kind = \"nvme\"; SizeGb = 3100; Half = SizeGb / 2 ], [ Kind = \"gpu\" ], 5, ",
        "{ 1, [ z = 2 ] }, Flat }\nGPU_a = [ Capability = 8.0; Twice = Capability * 2 ]\n",
        "GPU_b = [ Capability = 6.1; Derived = Memory + 1 ]\nNotARecord = 3\n",
        "AvailableGPUs = { GPU_a, GPU_b, NotARecord, Absent, Flat, { GPU_a } }\n",
        "Nest = [ L = { [ q = 1; r = Kind ], 2 }; Kind = \"outer\"; G = { GPU_a }; ",
        "GPU_a = [ Capability = 1.0 ] ]\n",
        "Requirements = true\n",
    ));
    let job = ad(concat!(
        "Request = [ Cpus = 16; Memory = 8192; Gpus = 0; Inner = [ Deep = 3 ]; ",
        "Twice = Cpus * 2; When = relTime(\"0:30\"); Lst = { 4, [ w = 6 ] } ]\n",
        "Devs = { [ Size = 3 ], [ Size = 5; Up = Site ], 7 }\n",
        "Wanted = [ MinCapability = 7.0 ]\n",
        "Site = \"mine\"\nRequirements = true\n",
    ));
    let cases = [
        "TARGET.Resources.Gpu.Count",
        "TARGET.Resources.Gpu.Cap >= MY.Wanted.MinCapability",
        "TARGET.Resources.Memory",
        "TARGET.Resources.Gpu.Twice",
        "TARGET.Resources.Gpu.Outer",
        "TARGET.Resources.Gpu.Up",
        "TARGET.Resources.Missing",
        "TARGET.Resources.Mine",
        "TARGET.Resources.Lst",
        "TARGET.Resources.Lst.a",
        "TARGET.Resources.dup",
        "TARGET.Resources.When",
        "TARGET.Resources.Gpu",
        "TARGET.Resources.Gpu.Nothing",
        "TARGET.Resources.Gpu.Cpus",
        "TARGET.Resources.Gpu.Name",
        "TARGET.Resources.Gpu.Flat",
        "TARGET.Resources.Nothing.Count",
        "TARGET.Resources.Cpus.x",
        "TARGET.Resources.Gpu.Count.x",
        "TARGET.Flat.x",
        "TARGET.Text.x.y",
        "TARGET.Undef.x",
        "TARGET.Nothing.x",
        "TARGET.List.a",
        "TARGET.Site.Policy.MaxHours * 60",
        "TARGET.Site.Policy.AllowGpu && TARGET.Site.Name == \"sdsc\"",
        "TARGET.Resources.TARGET",
        "TARGET.Resources.MY.Cpus",
        "TARGET.Resources.Gpu.other",
        "other.Resources.Cpus",
        "MY.Request.Memory <= TARGET.Memory",
        "MY.Request.Inner.Deep",
        "MY.Request.Site",
        // MY's chains that end at a literal are folded when compiled.
        "MY.Request.Twice",
        "MY.Request.When",
        "MY.Request.Lst[0]",
        "MY.Request.Lst[1].w",
        "MY.Request.Lst[2]",
        "MY.Request.Lst.w",
        "MY.Devs[1].Size + MY.Devs[0].Size",
        "Devs[1].Size",
        "Devs[1].Up",
        "Devs[2]",
        "Devs[2].x",
        "Devs[3].Size",
        "MY.Devs[0].Memory",
        "MY.Request.Memory <= TARGET.Resources.Memory",
        "Request.Cpus",
        "Request.Inner.Deep + 1",
        "self.Request.Gpus == 0",
        "Resources.Cpus",
        "Wanted.MinCapability",
        "MY.Site.x",
        "MY.Nothing.x",
        "TARGET.Devices[0].SizeGb * 1000000",
        "TARGET.Devices[0].Half",
        "TARGET.Devices[1].SizeGb",
        "TARGET.Devices[1].Kind",
        "TARGET.Devices[1].Memory",
        "TARGET.Devices[1].Cpus",
        "TARGET.Devices[2]",
        "TARGET.Devices[2].x",
        "TARGET.Devices[3][0]",
        "TARGET.Devices[3][1].z",
        "TARGET.Devices[3][2]",
        "TARGET.Devices[4]",
        "TARGET.Devices[5]",
        "TARGET.Devices[0]",
        "TARGET.Devices[0][0]",
        "TARGET.AvailableGPUs[0].Capability",
        "TARGET.Nest.L[0].q",
        "TARGET.Nest.L[0].r",
        "TARGET.Nest.L[0].Kind",
        "TARGET.Nest.L[1]",
        "TARGET.Nest.L[2]",
        "TARGET.Resources[0]",
        "TARGET.Resources.Gpu[1]",
        "TARGET.Flat[0]",
        "TARGET.Undef[0]",
        "TARGET.Nothing[0].x",
        "TARGET.Text[0]",
        "TARGET.Devices.Kind",
        "TARGET.Devices[0].SizeGb[0]",
        // Constant string subscripts: the record's own field only. These and the
        // lists of references below give what HTCondor 25.14.1's classad2 gives
        // (checked with `ExprTree.eval(scope=job, target=slot)`), its quirk
        // included: nothing is selected from what a string subscript gave
        // (`TARGET.Site["Policy"].MaxHours` is undefined, where
        // `TARGET.Site["Policy"]["MaxHours"]` and `TARGET.Site.Policy.MaxHours`
        // are 72).
        "TARGET.Resources[\"Memory\"]",
        "TARGET.Resources[\"memory\"] * 2",
        "TARGET.Resources[\"Gpu\"][\"Count\"]",
        "TARGET.Resources[\"Gpu\"].Cpus",
        "TARGET.Resources[\"Flat\"]",
        "TARGET.Resources.Gpu[\"Cpus\"]",
        "TARGET.Resources[\"Nothing\"]",
        "TARGET.Resources[\"Lst\"]",
        "TARGET.Resources[\"Lst\"][1]",
        "TARGET.Resources[\"\"]",
        "TARGET.Devices[\"Kind\"]",
        "TARGET.Devices[0][\"SizeGb\"]",
        "TARGET.Devices[0][\"Cpus\"]",
        "TARGET.Flat[\"x\"]",
        "TARGET.Undef[\"x\"]",
        "TARGET.Nothing[\"x\"]",
        "TARGET.Text[\"x\"]",
        "TARGET.Site[\"Policy\"].MaxHours",
        "TARGET.Site[\"Policy\"][\"MaxHours\"]",
        "MY.Request[\"Memory\"] <= TARGET.Memory",
        "Request[\"Inner\"][\"Deep\"]",
        // Lists of references to the ad's records.
        "TARGET.AvailableGPUs[0].Capability >= 7.5",
        "TARGET.AvailableGPUs[0][\"Capability\"]",
        "TARGET.AvailableGPUs[0].Memory",
        "TARGET.AvailableGPUs[0].Nothing",
        "TARGET.AvailableGPUs[1].Capability",
        "TARGET.AvailableGPUs[2]",
        "TARGET.AvailableGPUs[2].Capability",
        "TARGET.AvailableGPUs[3].Capability",
        "TARGET.AvailableGPUs[4].Capability",
        "TARGET.AvailableGPUs[5][0].Capability",
        "TARGET.AvailableGPUs[0].Twice",
        "TARGET.AvailableGPUs[1].Derived",
        "TARGET.Nest.G[0].Capability",
    ];
    for expr in cases {
        let vm = eval(Engine::Vm, &job, &slot, expr);
        let reference = eval(Engine::Reference, &job, &slot, expr);
        assert_eq!(vm, reference, "{expr}");
    }
    // And from the slot's side.
    for expr in [
        "TARGET.Request.Cpus <= Resources.Cpus",
        "TARGET.Request.Memory <= MY.Resources.Memory",
        "Resources.Gpu.Twice + Site.Policy.MaxHours",
        "TARGET.Request.Inner.Deep",
        "Request.Cpus",
        // MY's fields computed from their records' literals are folded when
        // compiled, and names no record nor MY has are undefined; the rest
        // (a name found further up, a field reading the ad) are not.
        "MY.Resources.Gpu.Twice",
        "MY.Resources.Gpu.Outer",
        "MY.Resources.Gpu.Up",
        "MY.Resources.Missing",
        "MY.Resources.Mine",
        "MY.Resources.Gpu.Nothing",
        "MY.Resources.Gpu.Nothing.x",
        "MY.Resources.Gpu.Name",
        "MY.Resources.Gpu.Flat",
        "MY.Resources.Gpu.Cpus",
        "MY.Resources.Nothing.Count",
        "MY.Devices[0].Half",
        "MY.Devices[1].SizeGb",
        "TARGET.Wanted.Site =?= undefined",
        // `size()` of a chain: a list's elements are not evaluated; anything
        // but a list literal is the builtin's on the value.
        "size(MY.AvailableGPUs)",
        "size(TARGET.Devs)",
        "size(TARGET.Request.Lst)",
        "size(MY.Resources.Lst)",
        "size(MY.Resources.Gpu)",
        "size(MY.Resources)",
        "size(MY.Devices[3])",
        "size(MY.Devices[0])",
        "size(MY.Text)",
        "size(MY.Flat)",
        "size(MY.Undef)",
        "size(MY.Nothing)",
        "size(MY.Site.Name)",
        "size(MY.Site.Policy.MaxHours)",
        "size(MY.Site.Nothing)",
        "size(MY.List)",
        "size(TARGET.Wanted)",
        "size(TARGET.Site)",
        "size(TARGET.Nothing)",
        "size(MY.Nest.L)",
        "size(MY.Nest.G)",
    ] {
        let vm = eval(Engine::Vm, &slot, &job, expr);
        let reference = eval(Engine::Reference, &slot, &job, expr);
        assert_eq!(vm, reference, "{expr} from the slot");
    }
}

/// A job whose own attribute shadows a scope name keeps the chain on the
/// reference evaluator, and agrees.
#[test]
fn an_ad_that_names_an_attribute_target_agrees() {
    let slot = ad("Resources = [ Cpus = 4 ]\nRequirements = true\n");
    let job = ad("TARGET = [ Resources = [ Cpus = 1 ] ]\nRequirements = true\n");
    for expr in ["TARGET.Resources.Cpus", "MY.TARGET.Resources.Cpus"] {
        assert_eq!(
            eval(Engine::Vm, &job, &slot, expr),
            eval(Engine::Reference, &job, &slot, expr),
            "{expr}"
        );
    }
}

/// The forms `SelectPath` resolves stay on the machine: a constant string
/// subscript of a record, and a list of references to the ad's records (as
/// HTCondor's GPU ads hold, `AvailableGPUs = { GPUs_GPU_0 }`).
#[test]
fn subscripts_and_lists_of_references_stay_on_the_machine() {
    use classad::compile::host::VmHost;
    use classad::matching::CompiledPool;
    use classad_vm::{Halt, Machine, Sides};
    let slot = ad(concat!(
        "Memory = 4096\nResources = [ Cpus = 40; Memory = 2048; Gpu = [ Count = 2 ] ]\n",
        "GPUs_GPU_0 = [ Capability = 8.0; GlobalMemoryMb = 16000 ]\n",
        "AvailableGPUs = { GPUs_GPU_0 }\nRequirements = true\n",
        // Lists of literals are values of the compiled ad, listed by path too.
        "Devices = { }\nSizes = { 10, 20 }\nName = \"slot1\"\n",
        "Computed = strcat(\"a\", \"bc\")\nPair = ifThenElse(Memory > 1, { 1, 2 }, { })\n",
    ));
    for req in [
        "TARGET.Devices[0] =?= error",
        "TARGET.Sizes[1] == 20",
        "TARGET.Sizes[2] =?= error",
        "size(TARGET.Sizes) == 2 && member(20, TARGET.Sizes)",
        "TARGET.Resources[\"Memory\"] >= 1024",
        "TARGET.Resources[\"Gpu\"][\"Count\"] >= 1",
        "TARGET.Resources[\"Nothing\"] =?= undefined",
        "TARGET.AvailableGPUs[0].Capability >= 7.5",
        "TARGET.AvailableGPUs[0][\"GlobalMemoryMb\"] > 8000",
        // `size()` of a list of references needs none of its elements; of
        // anything else, the value (code included) as the builtin measures it.
        "size(TARGET.AvailableGPUs) == 1 && size(TARGET.Devices) == 0",
        "size(TARGET.Sizes) == 2 && size(TARGET.Name) == 5",
        "size(TARGET.Nothing) =?= undefined && size(TARGET.Memory) =?= error",
        "size(TARGET.Computed) == 3 && size(TARGET.Pair) == 2",
    ] {
        let job = ad(&format!("Requirements = {req}\n"));
        let pool = CompiledPool::new(std::slice::from_ref(&job), std::slice::from_ref(&slot));
        let requirements = pool.slots.get("Requirements").expect("interned");
        let sides = Sides::new(&pool.jobs[0].vm, Some(&pool.machines[0].vm));
        let got = Machine::new().eval_attr(0, requirements, 2, sides, &mut VmHost);
        assert!(
            !matches!(got, Err(Halt::NeedReference)),
            "{req} reached the reference evaluator"
        );
        assert_eq!(
            got.ok().map(|v| unparse_value(&v)),
            Some("true".to_string()),
            "{req}"
        );
    }
}

/// HTCondor 25.14.1 selects nothing from what a string subscript of a record
/// gave (`classad2`: `Site["Policy"].MaxHours` is undefined), though the same
/// field is found by a selection chain or by a second subscript; both engines
/// give what it gives.
#[test]
fn a_string_subscripts_result_selects_nothing_as_in_htcondor() {
    let slot = ad("Site = [ Policy = [ MaxHours = 72 ] ]\nRequirements = true\n");
    let job = ad("Requirements = true\n");
    for (expr, want) in [
        ("TARGET.Site[\"Policy\"].MaxHours", "undefined"),
        ("TARGET.Site[\"Policy\"][\"MaxHours\"]", "72"),
        ("TARGET.Site.Policy.MaxHours", "72"),
        ("TARGET.Site[\"policy\"][\"maxhours\"]", "72"),
        ("TARGET.Site[\"MaxHours\"]", "undefined"),
    ] {
        for engine in [Engine::Vm, Engine::Reference] {
            assert_eq!(eval(engine, &job, &slot, expr), want, "{expr} {engine:?}");
        }
    }
}
