//! Unit tests of code generation: the instructions representative expressions
//! compile to.

use crate::ad::{read_ads, ClassAd};
use crate::compile::compile_expr;
use crate::eval::{eval_in, Semantics};
use crate::syntax::ast::ExprRef;
use crate::syntax::parse_expr;
use classad_vm::{Op, Program, SlotTable};
use std::sync::Arc;

fn ad(text: &str) -> Arc<ClassAd> {
    Arc::new(read_ads(text, "t").unwrap().remove(0))
}

/// The program of `expr` in `my`, after checking that the VM gives exactly
/// what the reference evaluator gives against `target`.
fn compiled(expr: &str, my: &str, target: &str) -> Program {
    let (my, target) = (ad(my), ad(target));
    let e = ExprRef::root_of(Arc::new(parse_expr(expr).unwrap()));
    let reference = eval_in(&e, &my, Some(&target), Semantics::Htcondor);
    let vm = crate::compile::try_eval(&e, Some(&my), Some(&target)).expect("runs on the machine");
    assert_eq!(format!("{vm:?}"), format!("{reference:?}"), "{expr}");
    compile_expr(&e, Some(&my), &mut SlotTable::new())
}

fn ops(p: &Program) -> Vec<Op> {
    p.code.iter().map(|i| i.op).collect()
}

#[test]
fn comparisons_with_constants_read_target_attributes_in_place() {
    let p = compiled("TARGET.Arch == \"x86_64\"", "A = 1", "Arch = \"X86_64\"");
    assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
    // A constant on the left swaps the comparison.
    let p = compiled("4 < Cpus", "A = 1", "Cpus = 8");
    assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
    let p = compiled(
        "MY.Cpus <= TARGET.RequestCpus",
        "Cpus = 2",
        "RequestCpus = 1",
    );
    assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
    // TARGET's attribute may itself be an expression.
    compiled("TARGET.Cpus >= 3", "A = 1", "Cpus = B + 1\nB = 2");
    compiled("TARGET.Missing =?= undefined", "A = 1", "B = 1");
}

#[test]
fn my_attributes_are_inlined_unless_on_a_cycle() {
    let my = "Start = true\nLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus\nCpus = 4\n\
              Requirements = Start && (Limits)";
    let p = compiled("Requirements", my, "RequestCpus = 2");
    assert!(!ops(&p).contains(&Op::LoadMy), "{p}");
    // A -> B -> A: both stay loads, and the cycle gives what HTCondor gives.
    let cyclic = "A = B && TARGET.X > 1\nB = A || TARGET.X < 5\nR = A";
    let p = compiled("R", cyclic, "X = 3");
    assert!(ops(&p).contains(&Op::LoadMy), "{p}");
    compiled("B", cyclic, "X = 3");
    // The clock is read where HTCondor reads it, once per reference, and
    // never when compiled; chance stays a load.
    let p = compiled("T > 0", "T = time()", "X = 1");
    assert_eq!(
        ops(&p),
        [
            Op::InlineEnter,
            Op::Call,
            Op::InlineLeave,
            Op::CmpK,
            Op::Ret
        ]
    );
    let p = compiled("T > 0", "T = random()", "X = 1");
    assert!(ops(&p).contains(&Op::LoadMy), "{p}");
}

#[test]
fn neutral_operands_of_logic_fold_away() {
    let p = compiled("true && TARGET.X > 1", "A = 1", "X = 3");
    assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
    let p = compiled("TARGET.X > 1 || false", "A = 1", "X = 3");
    assert_eq!(ops(&p), [Op::CmpTK, Op::Ret]);
    // A value that is not always logical keeps its `&&`: `true && 5` is true.
    let p = compiled("true && TARGET.X", "A = 1", "X = 5");
    assert!(ops(&p).contains(&Op::And) || ops(&p).contains(&Op::JumpIfFalse));
    compiled("true && TARGET.X", "A = 1", "X = \"s\"");
}

#[test]
fn my_fields_computed_from_their_records_fold() {
    let my = "R = [ C = 2; P = 3; M = C * P; G = [ T = M + P ] ]\nTop = 1";
    for expr in ["MY.R.M", "R.G.T", "MY.R.G.Nothing", "R.Nothing.x"] {
        let p = compiled(expr, my, "X = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret], "{expr}\n{p}");
    }
    // TARGET's chains through lists are cached per TARGET like those
    // through records.
    let p = compiled("TARGET.D[0].S * 2 > 1", my, "D = { [ S = 3 ] }");
    assert!(ops(&p).contains(&Op::TargetCached), "{p}");
    // A name found further up (MY's own `Top`) is not folded.
    let e = ExprRef::root_of(Arc::new(parse_expr("MY.R.G.Top").unwrap()));
    let p = compile_expr(&e, Some(&ad(my)), &mut SlotTable::new());
    assert_ne!(ops(&p), [Op::Const, Op::Ret], "{p}");
}

#[test]
fn membership_in_constant_lists_is_prepared_once() {
    let my = "Groups = \"a, b ,c\"\nNums = { 1, 2.5, \"x\" }";
    for target in [
        "G = \"b\"",
        "G = \"B\"",
        "G = 2.5",
        "G = undefined",
        "G = error",
        "X = 1",
    ] {
        for expr in [
            "stringListMember(TARGET.G, MY.Groups)",
            "stringListIMember(TARGET.G, Groups)",
            "stringListMember(TARGET.G, \"a;b\", \";\")",
            "stringListMember(TARGET.G, \"b c\", undefined)",
            "identicalMember(TARGET.G, { 2.5, undefined, \"B\" })",
            "member(TARGET.G, { \"B\", 1 })",
        ] {
            let p = compiled(expr, my, target);
            assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
        }
    }
    // MY's list of literals is a constant set too.
    for expr in [
        "member(TARGET.G, MY.Nums)",
        "identicalMember(TARGET.G, Nums)",
    ] {
        let p = compiled(expr, my, "G = 2.5");
        assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
    }
    // A list whose elements are names stays a call, and agrees.
    let e = ExprRef::root_of(Arc::new(parse_expr("member(TARGET.G, MY.Names)").unwrap()));
    let my = ad("Names = { A, 2 }\nA = 1");
    let p = compile_expr(&e, Some(&my), &mut SlotTable::new());
    assert!(!ops(&p).contains(&Op::Member), "{p}");
    let p = compiled("member(1, TARGET.L)", "A = 1", "L = { 1 }");
    assert!(!ops(&p).contains(&Op::Member), "{p}");
}

/// `A0 = A1 + A1; ... A{n} = 1`: `A{k}` evaluates about 3 * 2^(n-k) nodes.
fn doubling_ad(n: usize, requirements: &str) -> String {
    let mut s: String = (0..n)
        .map(|i| format!("A{i} = A{} + A{}\n", i + 1, i + 1))
        .collect();
    s.push_str(&format!("A{n} = 1\nRequirements = {requirements}\n"));
    s
}

#[test]
fn my_attributes_past_the_step_limit_fail_without_evaluation() {
    let my = doubling_ad(30, "A0 > 0 && TARGET.Cpus > 0");
    // Every evaluation must evaluate A0's 3 * 2^30 nodes: it fails against any
    // slot, as HTCondor's does at its 10,000,000th step.
    let p = compiled("Requirements", &my, "Cpus = 1");
    assert!(ops(&p).contains(&Op::Fail), "{p}");
    // A8 must evaluate about 12.6 million nodes, A9 6.3 million: A9 has a value.
    let program = |name: &str| {
        let e = ExprRef::root_of(Arc::new(parse_expr(name).unwrap()));
        compile_expr(&e, Some(&ad(&my)), &mut SlotTable::new())
    };
    assert!(ops(&program("A8")).contains(&Op::Fail));
    assert!(
        !ops(&program("A9")).contains(&Op::Fail),
        "{}",
        program("A9")
    );
    // The failure comes only where the operand is evaluated, and is HTCondor's
    // whatever surrounds it (`compiled` holds the VM against the reference).
    for expr in [
        "A30 > 0 || A0",
        "ifThenElse(TARGET.Cpus > 0, 1, A0)",
        "false ? A0 : 2",
    ] {
        compiled(expr, &my, "Cpus = 1");
    }
    compiled("ifThenElse(TARGET.Cpus > 0, 1, A0)", &my, "Cpus = 0");
}

#[test]
fn membership_in_an_undefined_list_keeps_undefined_undefined() {
    // HTCondor: both first arguments undefined give undefined; the set made of
    // an undefined list must say so, not read the value as "" (issue 9).
    let my = "Undef = undefined\nNone = \"\"";
    for target in ["G = \"a\"", "G = undefined", "G = 1", "G = error", "X = 1"] {
        for expr in [
            "stringListMember(TARGET.G, undefined)",
            "!stringListMember(TARGET.G, MY.Missing)",
            "stringListIMember(TARGET.G, MY.Undef)",
            "stringListMember(TARGET.G, Undef, \",\")",
            "stringListIMember(TARGET.G, undefined, undefined)",
            "stringListMember(TARGET.G, MY.None)",
        ] {
            let p = compiled(expr, my, target);
            assert!(ops(&p).contains(&Op::Member), "{expr}\n{p}");
        }
    }
}

#[test]
fn identity_of_constants_folds() {
    let p = compiled("MY.Gone =?= true", "A = 1", "X = 1");
    assert_eq!(ops(&p), [Op::Const, Op::Ret]);
    let p = compiled("Start =!= false", "Start = true", "X = 1");
    assert_eq!(ops(&p), [Op::Const, Op::Ret]);
}

#[test]
fn eval_in_each_context_over_my_records_compiles_in_place() {
    let my = "catalogs = { [ Catalog = \"genomes\"; Key = \"Group\"; Scope = \"bio\"; Size = 100 ], \
              [ Catalog = \"lhc\"; catalog = \"cms\"; Key = \"Owner\"; Scope = \"carol\"; Size = 7 ] }\n\
              Site = \"ap40\"";
    let target =
        "Wanted = { \"genomes\", \"cms\" }\nGid = \"ap40#1\"\nGroup = \"bio\"\nOwner = \"dave\"";
    for expr in [
        "sum(evalInEachContext(member(Catalog, Wanted) && string(TARGET[Key]) == Scope \
         && split(Gid, \"#\")[0] == Site ? Size : 0, catalogs))",
        "evalInEachContext(member(Catalog, Wanted) ? Size : 0, catalogs)",
        "evalInEachContext(TARGET[Key], { [ Key = \"Owner\" ], [ Key = \"Gid\" ] })",
    ] {
        let p = compiled(expr, my, target);
        let ops = ops(&p);
        assert!(
            ops.contains(&Op::FreshEnter) && ops.contains(&Op::List),
            "{expr}: {p}"
        );
        assert!(!ops.contains(&Op::Reference), "{expr}: {p}");
    }
    // An attribute reference is what HTCondor evaluates in each record.
    let e = ExprRef::root_of(Arc::new(
        parse_expr("evalInEachContext(Site, catalogs)").unwrap(),
    ));
    let p = compile_expr(&e, Some(&ad(my)), &mut SlotTable::new());
    assert!(ops(&p).contains(&Op::Reference), "{p}");
}

#[test]
fn calls_on_my_constants_fold() {
    let my = "Text = \"a,b,c\"\nN = 2.5\nSites = \"x, y\"\nSite = \"y\"";
    for expr in [
        "isUndefined(MY.Missing)",
        "size(MY.Text)",
        "size(Text) + 1",
        "floor(N) * 2",
        "toUpper(substr(Text, N))",
        "stringListMember(Site, Sites)",
        "strcat(Text, MY.Missing)",
        "isUndefined(MY.Missing) || MY.Missing",
        "int(\"x\" + N)",
    ] {
        let p = compiled(expr, my, "Missing = 1");
        assert_eq!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
    }
    // Not the clock, nor what reads TARGET (`Missing` is TARGET's, MY lacking it).
    for expr in ["time() + N", "size(Missing)", "strcat(Text, Missing)"] {
        let p = compiled(expr, my, "Missing = \"abc\"");
        assert_ne!(ops(&p), [Op::Const, Op::Ret], "{expr}: {p}");
    }
}

#[test]
fn a_false_conjunct_jumps_straight_to_the_end() {
    let p = compiled(
        "TARGET.A == 1 && TARGET.B == 2 && TARGET.C == 3",
        "X = 1",
        "A = 0\nB = 2\nC = 3",
    );
    let end = (p.code.len() - 1) as u32;
    for i in p.code.iter().filter(|i| i.op == Op::JumpIfFalse) {
        assert_eq!(i.z, end, "{p}");
    }
}
