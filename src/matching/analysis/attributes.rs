//! The attribute values an analysis shows beside an expression: the analyzed ad's
//! own attributes the expression reads ("Job 1.000 defines the following
//! attributes"), and, against a single target, the target's attributes it reads
//! ("slot1@host has the following attributes"), as HTCondor's
//! `AddReferencedAttribsToBuffer` and `AddTargetAttribsToBuffer`
//! (`src/condor_utils/expr_analyze.cpp`) list them.

use crate::ad::ClassAd;
use crate::eval::{eval_attr, eval_in, Semantics};
use crate::matching::refs::{NameSet, References};
use crate::syntax::ast::{Expr, ExprRef, Node};
use crate::syntax::unparse::{unparse_old_node, write_scalar_value_old};
use crate::values::display::unparse_value;
use classad_vm::{Str, Value};
use std::sync::Arc;

/// One line of such a list: a name (with HTCondor's unit, when it adds one) and
/// a value's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The attribute's name.
    pub name: String,
    /// Its text: the expression as written (the ad's own attributes) or its
    /// value (the target's).
    pub value: String,
    /// The unit HTCondor writes after the value (`kb`, `mb`), if any.
    pub unit: Option<&'static str>,
}

/// The attributes of `ad` that `expr` (an expression of `ad`) reads, directly or
/// through other attributes, in HTCondor's name order, leaving out `hidden`; each
/// with its expression in old syntax. Also the names `expr` reads from outside
/// `ad` (the target's), for [`target_attributes`].
pub fn own_attributes(ad: &ClassAd, expr: &ExprRef, hidden: &[&str]) -> (Vec<Shown>, NameSet) {
    let refs = References::of(ad, &expr.tree, expr.id);
    let mut shown = Vec::new();
    for name in refs.internal.iter() {
        if hidden.iter().any(|h| h.eq_ignore_ascii_case(name)) {
            continue;
        }
        let Some(e) = ad.get(name) else { continue };
        let mut value = String::new();
        unparse_old_node(e.tree, e.id, &mut value);
        // HTCondor's "gross empiricism": the units of the two requests.
        let unit = if name.as_str() == "RequestDisk" {
            Some("kb")
        } else if name.as_str() == "RequestMemory" {
            Some("mb")
        } else {
            None
        };
        shown.push(Shown {
            name: name.to_string(),
            value,
            unit,
        });
    }
    let mut external = refs.external;
    // A reference to the GPUs a slot has free reads its GPUs.
    if external.contains("AvailableGPUs") {
        external.insert("GPUs");
    }
    (shown, external)
}

/// The attributes named in `names` that `target` defines, each with its value
/// as `my` sees it (the name evaluated with `my` as MY and `target` as TARGET,
/// so that a name `my` defines too shows `my`'s, as HTCondor's listing shows
/// it), and for a list of references to the target's attributes (a slot's
/// `AvailableGPUs`), each of those after it. Empty when `target` defines none.
pub fn target_attributes(names: &NameSet, my: &Arc<ClassAd>, target: &Arc<ClassAd>) -> Vec<Shown> {
    let mut shown = Vec::new();
    for name in names.iter() {
        let Some(e) = target.get(name) else { continue };
        let unit = if name.as_str() == "Disk" {
            Some("kb")
        } else if name.as_str() == "Memory" {
            Some("mb")
        } else {
            None
        };
        shown.push(Shown {
            name: format!("TARGET.{name}"),
            value: value_seen_by(my, target, name),
            unit,
        });
        if let Node::List(items) = e.node() {
            for &item in items {
                if let Node::Attr {
                    scope: None, name, ..
                } = e.tree.node(item)
                {
                    if target.contains(name) {
                        shown.push(Shown {
                            name: format!("   {name}"),
                            value: value_seen_by(my, target, name),
                            unit: None,
                        });
                    }
                }
            }
        }
    }
    shown
}

/// How HTCondor names a target in these lists: its `Name`, else `Job
/// <ClusterId>.<ProcId>`, else `Target`.
pub fn target_name(target: &Arc<ClassAd>) -> String {
    let sem = Semantics::Htcondor;
    if let Ok(Value::Str(s)) = eval_attr(target, "Name", None, sem) {
        return s.as_str().to_string();
    }
    let int = |n: &str| match eval_attr(target, n, None, sem) {
        Ok(Value::Int(i)) => Some(i),
        _ => None,
    };
    match int("ClusterId") {
        Some(c) => format!("Job {c}.{}", int("ProcId").unwrap_or(0)),
        None => "Target".into(),
    }
}

/// `name` evaluated with `my` as MY and `target` as TARGET, printed as
/// HTCondor prints a value (old syntax, strings quoted).
fn value_seen_by(my: &Arc<ClassAd>, target: &Arc<ClassAd>, name: &str) -> String {
    let attr = Expr::from_parts(
        vec![Node::Attr {
            scope: None,
            name: Str::from(name),
            absolute: false,
        }],
        0,
    );
    let attr = ExprRef::root_of(Arc::new(attr));
    match eval_in(&attr, my, Some(target), Semantics::Htcondor) {
        Ok(v) => {
            let mut text = String::new();
            if write_scalar_value_old(&v, &mut text) {
                text
            } else {
                unparse_value(&v)
            }
        }
        Err(_) => "error".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(read_ads(text, "t").unwrap().remove(0))
    }

    #[test]
    fn the_job_s_own_attributes_with_htcondor_s_units() {
        let job = ad("RequestMemory = 2048\nRequestDisk = 10 * 100\nFileSystemDomain = \"d\"\nOther = 1\nRequirements = TARGET.Memory >= RequestMemory && TARGET.Disk >= MY.RequestDisk && TARGET.FileSystemDomain == FileSystemDomain && TARGET.AvailableGPUs =!= undefined\n");
        let req = job.get("Requirements").unwrap().to_expr_ref();
        let (shown, external) = own_attributes(&job, &req, &["Requirements"]);
        let lines: Vec<String> = shown
            .iter()
            .map(|s| {
                format!(
                    "{} = {}{}",
                    s.name,
                    s.value,
                    s.unit.map(|u| format!(" ({u})")).unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            lines,
            [
                "FileSystemDomain = \"d\"",
                "RequestDisk = 10 * 100 (kb)",
                "RequestMemory = 2048 (mb)"
            ]
        );
        let names: Vec<&str> = external.iter().map(|n| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "AvailableGPUs",
                "Disk",
                "FileSystemDomain",
                "GPUs",
                "Memory"
            ]
        );

        let slot = ad("Name = \"slot1@h\"\nMemory = 4096\nFileSystemDomain = \"e\"\nAvailableGPUs = { GPUs_a }\nGPUs_a = [ Id = \"a\" ]\n");
        let shown = target_attributes(&external, &job, &slot);
        let lines: Vec<String> = shown
            .iter()
            .map(|s| format!("{} = {}", s.name, s.value))
            .collect();
        assert_eq!(
            lines,
            [
                "TARGET.AvailableGPUs = { GPUs_a }",
                "   GPUs_a = [ Id = \"a\" ]",
                // The job defines it too: HTCondor shows the job's value.
                "TARGET.FileSystemDomain = \"d\"",
                "TARGET.Memory = 4096"
            ]
        );
        assert_eq!(target_name(&slot), "slot1@h");
        assert_eq!(target_name(&ad("ClusterId = 5\nProcId = 2\n")), "Job 5.2");
        assert_eq!(target_name(&ad("X = 1\n")), "Target");
    }
}
