//! What an ad's record and list literals hold, listed by path when the ad is
//! compiled, for `SelectPath` (`classad_vm::program::PathSelect`); and the
//! interning of every name and path a pool's compilation needs, done before
//! the parallel compile so that each thread's copy of the slot table compiles
//! alike.

use super::codegen;
use crate::ad::ClassAd;
use classad_vm::{CompiledAd, SlotTable, Value};
use std::sync::Arc;

/// Lists what `e`, the expression of the attribute in `slot`, holds when it is
/// a record or list literal, into `vm`; with no `owner` (nothing is evaluated)
/// and no `vm`, only interns the paths.
pub(super) fn list_fields(
    ad: &ClassAd,
    owner: Option<&Arc<ClassAd>>,
    e: crate::syntax::ast::ExprView<'_>,
    slot: u32,
    vm: Option<&mut CompiledAd>,
    slots: &mut SlotTable,
) {
    use crate::syntax::ast::Node;
    // Most attributes are neither (a slot has about 90, compiled per slot).
    if !matches!(e.node(), Node::Record(_) | Node::List(_)) {
        return;
    }
    let mut fields = RecordFields {
        ad,
        owner,
        chain: Vec::new(),
        budget: MAX_FIELDS,
    };
    fields.value(&e.to_expr_ref(), &mut vec![slot], vm, slots);
}

/// Interns every name and path compiling `ad` against `slots` interns: its
/// names, the names its expressions read, the chains they select through and
/// its record literals' paths; so that copies of one table compile ads alike,
/// on several threads (see `matching::pool`).
pub fn intern_ad(ad: &ClassAd, slots: &mut SlotTable, trees_seen: &mut ahash::AHashSet<usize>) {
    for (name, e) in ad.iter() {
        let slot = slots.intern(name);
        intern_tree(e.tree, slots, trees_seen);
        list_fields(ad, None, e, slot, None, slots);
    }
}

/// Interns the names `tree` reads and the chains it selects through, once per
/// tree (`trees_seen` holds the trees done).
pub fn intern_tree(
    tree: &Arc<crate::syntax::ast::Expr>,
    slots: &mut SlotTable,
    trees_seen: &mut ahash::AHashSet<usize>,
) {
    if !trees_seen.insert(Arc::as_ptr(tree) as usize) {
        return;
    }
    for node in tree.nodes() {
        match node {
            crate::syntax::ast::Node::Attr { name, .. } => {
                slots.intern(name);
            }
            crate::syntax::ast::Node::Record(fields) => {
                for (name, value) in fields {
                    slots.intern(name);
                    // A record's string may name TARGET's attribute
                    // (`TARGET[Key]` in `evalInEachContext`, see `codegen`).
                    if let crate::syntax::ast::Node::Lit(Value::Str(s)) = tree.node(*value) {
                        if may_name_attribute(s.as_str()) {
                            slots.intern(s.as_str());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    codegen::intern_chains(tree, slots);
}

/// Whether a record's string is interned as a name (see [`intern_tree`]): one
/// spelled as an attribute name, of at most 64 characters. The compiler loads
/// `TARGET[k]` only for such a `k`, so that the names it needs are in the table
/// before the ads are compiled on several threads.
pub(crate) fn may_name_attribute(s: &str) -> bool {
    let mut chars = s.chars();
    s.len() <= 64
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How many record fields and list elements one ad lists for `SelectPath`.
const MAX_FIELDS: usize = 4096;
/// The most nodes of one field computed from its records' literals, and the
/// most references followed from it (see `RecordFields::closed`).
const MAX_CLOSED_NODES: u32 = 64;
const MAX_CLOSED_LEVELS: u32 = 3;
/// An upper bound on the depth and on the steps HTCondor spends evaluating such
/// a field: each of its expressions, the field's and those it refers to, has
/// at most `MAX_CLOSED_NODES` nodes.
pub(super) const CLOSED_FIELD_BOUND: u32 = (MAX_CLOSED_NODES + 1) * (MAX_CLOSED_LEVELS + 1);

/// The value of `field`, a field of the last of `records` (record literals of
/// `owner`, outermost first, each a field of the one before), when it is
/// computed from those records' literals alone (`Memory = Cpus * MemoryPerCpu`):
/// the same in every match. `None` otherwise, or when it is a list or a record.
pub(super) fn closed_field_value(
    owner: &Arc<ClassAd>,
    records: &[crate::syntax::ast::ExprRef],
    field: &crate::syntax::ast::ExprRef,
) -> Option<Value> {
    if records.is_empty() {
        return None;
    }
    let listing = RecordFields {
        ad: owner,
        owner: Some(owner),
        chain: records.to_vec(),
        budget: 0,
    };
    listing.closed_value(field)
}

/// Lists what an ad's record literals hold for `SelectPath`
/// (`classad_vm::ad::Field`).
struct RecordFields<'a> {
    /// The ad whose literals are listed.
    ad: &'a ClassAd,
    /// The ad (`None`: paths are only interned, nothing evaluated).
    owner: Option<&'a Arc<ClassAd>>,
    /// The record literals around the one being listed, outermost first.
    chain: Vec<crate::syntax::ast::ExprRef>,
    /// How many more fields the ad may list.
    budget: usize,
}

impl RecordFields<'_> {
    /// Lists what the record or list literal `e`, at the end of the path
    /// `path`, holds (see [`Self::list`] and [`Self::items`]).
    fn value(
        &mut self,
        e: &crate::syntax::ast::ExprRef,
        path: &mut Vec<u32>,
        vm: Option<&mut CompiledAd>,
        slots: &mut SlotTable,
    ) {
        match e.node() {
            crate::syntax::ast::Node::Record(_) => self.list(e, path, vm, slots),
            crate::syntax::ast::Node::List(_) => self.items(e, path, vm, slots),
            _ => {}
        }
    }

    /// Lists the elements of the list literal `list` at the end of `path`: its
    /// length, and by index its literals and what its records and lists hold,
    /// the records its plain names refer to included (`AvailableGPUs = {
    /// GPUs_GPU_0 }`, as HTCondor's GPU ads have); any other element is the
    /// reference evaluator's.
    fn items(
        &mut self,
        list: &crate::syntax::ast::ExprRef,
        path: &mut Vec<u32>,
        mut vm: Option<&mut CompiledAd>,
        slots: &mut SlotTable,
    ) {
        use crate::syntax::ast::Node;
        use classad_vm::ad::Field;
        use classad_vm::program::{PathStep, MAX_PATH_INDEX};
        let Node::List(items) = list.node() else {
            return;
        };
        let here = slots.intern_path(path);
        let set = |vm: &mut Option<&mut CompiledAd>, id: u32, field: Field| {
            if let Some(vm) = vm {
                vm.set_field(id, field);
            }
        };
        if path.len() >= codegen::MAX_PATH
            || items.len() > self.budget
            || items.len() >= MAX_PATH_INDEX as usize
        {
            set(&mut vm, here, Field::Other);
            return;
        }
        self.budget -= items.len();
        set(&mut vm, here, Field::List(items.len() as u32));
        for (i, &item) in items.iter().enumerate() {
            let e = list.child(item);
            path.push(PathStep::index_name(i as u32));
            let id = slots.intern_path(path);
            match e.node() {
                Node::Lit(Value::RelTime(r)) => set(&mut vm, id, Field::Value(Value::Real(*r))),
                Node::Lit(v) => set(&mut vm, id, Field::Value(v.clone())),
                Node::Record(_) | Node::List(_) => self.value(&e, path, vm.as_deref_mut(), slots),
                Node::Attr {
                    scope: None,
                    name,
                    absolute: false,
                } => match self.referred_record(name) {
                    Some(record) => self.list(&record, path, vm.as_deref_mut(), slots),
                    None => set(&mut vm, id, Field::Other),
                },
                _ => set(&mut vm, id, Field::Other),
            }
            path.pop();
        }
    }

    /// The record literal a plain name among a list's elements refers to: the
    /// ad's attribute of that name, when the list is no record's field (a
    /// record's field would look the name up in the record first) and the name
    /// is the ad's, not one the scopes above it define. Its fields are then
    /// what they are at the top of the ad: the record's scope is the ad either
    /// way.
    fn referred_record(&self, name: &str) -> Option<crate::syntax::ast::ExprRef> {
        if !self.chain.is_empty() || codegen::is_scope_name(name) {
            return None;
        }
        let e = self.ad.get(name)?.to_expr_ref();
        matches!(e.node(), crate::syntax::ast::Node::Record(_)).then_some(e)
    }

    /// Lists what the record literal `record`, at the end of the path `path`,
    /// holds: the record itself, its fields that are literals or that compute
    /// from literals of its own and enclosing records alone (evaluated here, as
    /// HTCondor would in any match), and the same for the records among them; a
    /// field is found as HTCondor's lookup finds it (the last of a repeated name,
    /// any case). Up to [`codegen::MAX_PATH`] deep and [`MAX_FIELDS`] fields an
    /// ad: a path not listed is absent, which `SelectPath` takes for a missing
    /// field, so a record too deep or too wide is marked `Other` (the reference
    /// evaluator's) instead.
    fn list(
        &mut self,
        record: &crate::syntax::ast::ExprRef,
        path: &mut Vec<u32>,
        mut vm: Option<&mut CompiledAd>,
        slots: &mut SlotTable,
    ) {
        use crate::syntax::ast::Node;
        use crate::values::scope::{record_attr, record_names};
        use classad_vm::ad::Field;
        let set = |vm: &mut Option<&mut CompiledAd>, id: u32, field: Field| {
            if let Some(vm) = vm {
                vm.set_field(id, field);
            }
        };
        let here = slots.intern_path(path);
        let names = record_names(record);
        if path.len() >= codegen::MAX_PATH || names.len() > self.budget {
            set(&mut vm, here, Field::Other);
            return;
        }
        self.budget -= names.len();
        set(&mut vm, here, Field::Record);
        self.chain.push(record.clone());
        for name in names {
            let Some(e) = record_attr(record, &name) else {
                continue;
            };
            path.push(slots.intern(&name));
            let id = slots.intern_path(path);
            match e.node() {
                Node::Lit(Value::RelTime(r)) => set(&mut vm, id, Field::Value(Value::Real(*r))),
                Node::Lit(v) => set(&mut vm, id, Field::Value(v.clone())),
                Node::Record(_) | Node::List(_) => self.value(&e, path, vm.as_deref_mut(), slots),
                _ if vm.is_some() && self.owner.is_some() => {
                    let field = match self.closed_value(&e) {
                        Some(v) => Field::Value(v),
                        None => Field::Other,
                    };
                    set(&mut vm, id, field);
                }
                _ => {}
            }
            path.pop();
        }
        self.chain.pop();
    }

    /// The value of field expression `e` of the innermost record of the chain
    /// when it reads nothing beyond the chain's records (every name it reads is
    /// one of theirs, computed likewise, shallow, with no call that depends on
    /// more than its arguments): the same in every match, so evaluated here by
    /// the reference evaluator in the records' scopes. `None` otherwise, or when
    /// it is not a plain value.
    fn closed_value(&self, e: &crate::syntax::ast::ExprRef) -> Option<Value> {
        use crate::values::scope::{Frame, Scope};
        if !self.closed(e, self.chain.len(), 0) {
            return None;
        }
        let mut scope = Scope::of_ad(self.owner?.clone());
        for r in &self.chain {
            scope = Arc::new(Scope {
                frame: Frame::Record(r.clone()),
                parent: Some(scope),
                alternate: None,
            });
        }
        let v = crate::eval::Evaluator::new(true)
            .eval(e, Some(&scope))
            .ok()?;
        (!matches!(v, Value::List(_) | Value::Ad(_))).then_some(v)
    }

    /// See [`Self::closed_value`]: for `e`, a field of the record `chain[upto - 1]`
    /// (its names are looked up there, then in the records around it);
    /// `level` counts the references followed.
    fn closed(&self, e: &crate::syntax::ast::ExprRef, upto: usize, level: u32) -> bool {
        use crate::functions::{ERROR_ON_FAILED_ARGUMENT, IMPURE_BUILTINS, SCOPED_BUILTINS};
        use crate::syntax::ast::Node;
        use crate::values::scope::record_attr;
        if level > MAX_CLOSED_LEVELS {
            return false;
        }
        let mut stack = vec![e.id];
        let mut nodes = 0;
        while let Some(id) = stack.pop() {
            nodes += 1;
            if nodes > MAX_CLOSED_NODES {
                return false;
            }
            let node = e.tree.node(id);
            match node {
                Node::Attr {
                    scope: None,
                    name,
                    absolute: false,
                } => {
                    if codegen::is_scope_name(name) {
                        return false;
                    }
                    let found = self.chain[..upto]
                        .iter()
                        .enumerate()
                        .rev()
                        .find_map(|(k, r)| record_attr(r, name).map(|f| (k, f)));
                    match found {
                        Some((k, f)) if self.closed(&f, k + 1, level + 1) => {}
                        _ => return false,
                    }
                }
                Node::Attr { .. } | Node::List(_) | Node::Record(_) => return false,
                Node::Call { name, .. } => {
                    let listed = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(name));
                    if listed(&IMPURE_BUILTINS)
                        || listed(&SCOPED_BUILTINS)
                        || listed(&ERROR_ON_FAILED_ARGUMENT)
                    {
                        return false;
                    }
                }
                _ => {}
            }
            node.map_children(|c| {
                stack.push(c);
                c
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interning an ad's names first leaves its compilation nothing to add to
    /// the table: the pool compiles on every core against copies of it, and a
    /// copy that grows makes it compile everything again on one.
    #[test]
    fn interning_an_ad_covers_what_compiling_it_interns() {
        let text = concat!(
            "Requirements = size(TARGET.AvailableGPUs) >= 1 && size(TARGET.Name) > 0 ",
            "&& size(MY.Gpus) == 2 && TARGET.Resources.Gpu.Count >= 1 && size(TARGET.R.L) > 0\n",
            "Gpus = { GPU_a, GPU_b }\nGPU_a = [ Capability = 8.0 ]\n",
            "R = [ L = { 1, 2 }; M = [ n = 3 ] ]\nRank = size(Gpus) + size(TARGET.Devices[0])\n",
        );
        let ad = Arc::new(crate::ad::read_ads(text, "t").unwrap().remove(0));
        let mut slots = SlotTable::new();
        intern_ad(&ad, &mut slots, &mut ahash::AHashSet::new());
        let frozen = slots.entries();
        crate::compile::compile_ad(&ad, &mut slots);
        assert_eq!(slots.entries(), frozen);
    }
}
