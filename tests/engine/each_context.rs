//! `evalInEachContext` over a list of records that MY holds (a pilot's
//! `catalogs`, summed into the disk its jobs may use), compiled in place: every
//! way the records, MY and TARGET can define the names the expression reads,
//! against the reference evaluator, value by value, in blocks and pair by pair.

use crate::tiers;

use classad::ad::ClassAd;
use classad::engine::{eval_in_with, Engine};
use classad::eval::Semantics;
use classad::syntax::ast::ExprRef;
use classad::syntax::parse_expr;
use classad::values::display::unparse_value;
use std::sync::Arc;
use tiers::{ad, assert_matches_reference};

/// Expressions evaluated in each record: names the records define (`Catalog`,
/// `Scope`, `Key`, `Size`), MY's constants and code (`Site`, `Busy`), TARGET's
/// (`Wanted`, `Gid`, `Group`, `Owner`, `Code`), `TARGET[k]` with `k` a record's
/// string, and what is left to the reference evaluator (a reference, `MY`,
/// a record's name selected from).
const EXPRESSIONS: &[&str] = &[
    "member(Catalog, Wanted) && string(TARGET[Key]) == Scope && split(Gid, \"#\")[0] == Site ? Size : 0",
    "member(Catalog, Wanted) ? Size : 0",
    "TARGET[Key] == Scope ? Size : 1",
    "TARGET[Key]",
    "TARGET.Group == Scope",
    "strcat(Catalog, \"/\", Scope, \"/\", Site)",
    "Size * 2 + Cores",
    "Busy ? Size : 0",
    "Missing =?= undefined",
    "Catalog",
    "(Size)",
    "MY.Site",
    "Size > 10 ? Catalog : Size",
    "Code + Size",
    "isUndefined(Scope) || Scope == Owner",
    "ifThenElse(Size > 100, TARGET[Key], Size)",
];

/// Lists of records: MY's attribute `catalogs` holds one.
const CATALOGS: &[&str] = &[
    "{ [ Catalog = \"genomes\"; Key = \"Group\"; Scope = \"bio\"; Size = 100 ], [ Catalog = \"lhc\"; Key = \"Owner\"; Scope = \"carol\"; Size = 7 ] }",
    "{ [ Catalog = \"lhc\"; Key = \"owner\"; Scope = \"carol\"; Size = 3000 ] }",
    "{ }",
    "{ [ Catalog = \"genomes\"; Key = \"Code\"; Scope = 5; Size = 2.5 ], [ Key = \"Nothing\" ], [ Catalog = \"x\"; catalog = \"lhc\"; Size = undefined ] }",
    "{ [ Catalog = \"genomes\"; Key = \"MY\"; Size = 1 ] }",
    "{ [ Catalog = \"genomes\"; Key = 7; Size = 1 ], [ Site = \"other\"; Key = \"Gid\"; Size = 2 ] }",
    "{ [ Catalog = \"genomes\"; Size = Cores ] }",
    "{ [ Catalog = \"genomes\"; Size = 1 ], undefined }",
];

fn slots() -> Vec<Arc<ClassAd>> {
    let mut out = Vec::new();
    for (i, e) in EXPRESSIONS.iter().enumerate() {
        for (j, catalogs) in CATALOGS.iter().enumerate() {
            let summed = if (i + j) % 2 == 0 {
                format!("sum(evalInEachContext({e}, catalogs))")
            } else {
                format!("size(evalInEachContext({e}, catalogs)) > 0 && member(true, evalInEachContext({e}, catalogs)) =!= true")
            };
            out.push(ad(&format!(
                "Site = \"ap40\"\nCores = 4\nBusy = Cores > 2\ncatalogs = {catalogs}\n\
                 Listed = evalInEachContext({e}, catalogs)\n\
                 Disk = 10000 - ({summed})\nWithin = ({summed}) isnt error\n\
                 Requirements = TARGET.RequestDisk <= Disk || Within\n"
            )));
        }
    }
    // The list written in the call, and the call read by the job through
    // TARGET (a value computed against an empty other side, then pair by pair).
    out.push(ad(
        "Requirements = sum(evalInEachContext(Size + TARGET.RequestDisk, { [ Size = 1 ], [ Size = 2 ] })) > 2000\n",
    ));
    out.push(ad(
        "catalogs = { [ Size = 1 ] }\nWithin = sum(evalInEachContext(Size + RequestDisk, catalogs))\nRequirements = true\n",
    ));
    out
}

fn jobs() -> Vec<Arc<ClassAd>> {
    [
        "Wanted = { \"genomes\", \"lhc\" }\nGid = \"ap40#1.0#17\"\nGroup = \"bio\"\nOwner = \"carol\"\nCode = 2",
        "Wanted = { \"lhc\" }\nGid = \"ap20#3.0#1\"\nOwner = \"carol\"\nCode = RequestDisk + 1",
        "Wanted = \"genomes\"\nGroup = \"chem\"\nOwner = \"dave\"",
        "Gid = 17\nGroup = TARGET.Site\nOwner = \"carol\"",
        // Read afresh in a record, this comes back to the slot's attribute
        // being evaluated: HTCondor recurses without end there.
        "Wanted = { \"genomes\" }\nGroup = TARGET.Disk\nCode = TARGET.Within",
        "",
    ]
    .iter()
    .enumerate()
    .map(|(i, t)| {
        ad(&format!(
            "{t}\nRequestDisk = {}\nRequirements = TARGET.Within =!= false\n",
            1000 * i
        ))
    })
    .collect()
}

#[test]
fn records_of_my_lists_evaluate_as_the_reference_evaluates_them() {
    let matched = assert_matches_reference(&jobs(), &slots());
    assert!(matched > 0, "some pairs match");
}

/// Every value the slots' expressions give each job, by both engines.
#[test]
fn each_records_value_is_the_reference_evaluators() {
    let exprs = ["Listed", "Disk", "Within", "Requirements"]
        .map(|t| ExprRef::root_of(Arc::new(parse_expr(t).expect("parses"))));
    let mut compared = 0;
    for slot in slots() {
        for job in jobs() {
            for e in &exprs {
                let [r, v] = [Engine::Reference, Engine::Vm].map(|engine| {
                    match eval_in_with(engine, e, &slot, Some(&job), Semantics::Htcondor) {
                        Ok(v) => unparse_value(&v),
                        Err(_) => "<failed>".to_string(),
                    }
                });
                assert_eq!(v, r, "{e:?} of\n{slot:?}\nagainst\n{job:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 1000);
}

/// The names `TARGET[k]` loads are in the slot table once the ads are interned,
/// before any is compiled: the pool compiles its ads on several threads, each
/// on a copy of the table, and compiles them all again, on one thread, when a
/// copy gained a name.
#[test]
fn records_strings_that_name_attributes_are_interned_before_compiling() {
    use classad::compile::{compile_ad, intern_ad};
    let mut table = classad_vm::SlotTable::new();
    let mut seen = ahash::AHashSet::new();
    let slots = slots();
    for s in &slots {
        intern_ad(s, &mut table, &mut seen);
    }
    let before = table.entries();
    for s in &slots {
        compile_ad(s, &mut table);
    }
    assert_eq!(table.entries(), before);
}
