//! Programs shared by the ads of a pool. A program compiled for MY depends on
//! its expression and on nothing of MY but the attributes its names reach
//! (through MY's own expressions, as the compiler folds and inlines them): ads
//! that agree on those share one program, compiled once. A pool's slots are
//! thousands of copies of a few machine kinds that differ in names, addresses and
//! counters their expressions never read, and compiling each slot's expressions
//! anew was most of the cost of reading a large pool (issue 34).
//!
//! The key is exact: the expression's exact text, then each name it reaches,
//! without case (as a number this reuse gives each name), with the exact text of
//! MY's expression of that name or its absence. Every way the compiler reads MY
//! is a lookup of one of those names, so two equal keys compile to the same
//! program. An expression that reaches a builtin whose names are strings
//! (`eval`, `unparse`, ...) is compiled on its own every time.

use crate::ad::ClassAd;
use crate::functions::SCOPED_BUILTINS;
use crate::syntax::ast::{ExprView, Node, NodeId};
use crate::syntax::same::exact_text;
use classad_vm::{Program, SlotTable};
use std::marker::PhantomData;
use std::sync::Arc;

/// Programs kept at most: past this, programs are compiled as without reuse, so
/// a pool whose slots share nothing costs what it cost before and no more memory.
const MAX_KEPT: usize = 1 << 16;

/// The names an expression reads, each with its number in keys.
type NamesRead<'a> = Arc<[(u32, &'a str)]>;

/// Programs compiled for the ads of one pool, each kept under the exact key of
/// what it was compiled from. Lives no longer than the ads (`'a`): it knows
/// expressions by their address.
pub struct ProgramReuse<'a> {
    /// Per expression (its tree's address and node), the names it reads, each
    /// with its number (see `ids`) in the spelling of the tree; `None` when it
    /// cannot be shared.
    names: ahash::AHashMap<(usize, NodeId), Option<NamesRead<'a>>>,
    /// Per name without case, its number in keys.
    ids: ahash::AHashMap<Box<str>, u32>,
    /// Per name's number, the key it was last reached for (names are reached
    /// once per key).
    reached_in: Vec<u64>,
    keys_made: u64,
    /// Per (layout, name's number), where the name is in ads of that layout.
    places: ahash::AHashMap<(usize, u32), Option<u32>>,
    /// Per expression, its exact text (`None`: it has none).
    texts: ahash::AHashMap<(usize, NodeId), Option<Arc<[u8]>>>,
    /// Per layout of ads (see [`ClassAd::layout_id`]), its names' slots.
    layouts: ahash::AHashMap<usize, Arc<[u32]>>,
    programs: ahash::AHashMap<Vec<u8>, Arc<Program>>,
    /// Programs compiled while the slot table held more entries than this are
    /// not kept: they may name slots only that copy of the table has.
    frozen_entries: Option<usize>,
    compiled: usize,
    reused: usize,
    _ads: PhantomData<&'a ClassAd>,
}

impl<'a> ProgramReuse<'a> {
    /// Reuse over one slot table that only grows (every program kept stays
    /// valid for it).
    pub fn new() -> ProgramReuse<'a> {
        ProgramReuse {
            names: Default::default(),
            ids: Default::default(),
            reached_in: Vec::new(),
            keys_made: 0,
            places: Default::default(),
            texts: Default::default(),
            layouts: Default::default(),
            programs: Default::default(),
            frozen_entries: None,
            compiled: 0,
            reused: 0,
            _ads: PhantomData,
        }
    }

    /// Reuse across copies of a slot table holding `entries` entries
    /// ([`SlotTable::entries`]): a program is kept only when its compile added
    /// nothing to the copy it ran on, so that it is valid for every copy.
    pub fn over_copies(entries: usize) -> ProgramReuse<'a> {
        ProgramReuse {
            frozen_entries: Some(entries),
            ..ProgramReuse::new()
        }
    }

    /// How many programs were compiled, and how many were reused.
    pub fn counts(&self) -> (usize, usize) {
        (self.compiled, self.reused)
    }

    /// The slots of `ad`'s names, in order, interned once per layout of ads.
    pub(crate) fn name_slots(&mut self, ad: &'a ClassAd, slots: &mut SlotTable) -> Arc<[u32]> {
        let intern = |slots: &mut SlotTable| -> Arc<[u32]> {
            ad.iter().map(|(name, _)| slots.intern(name)).collect()
        };
        if self.frozen_entries.is_some_and(|n| slots.entries() != n) {
            // This copy of the table has names the others lack.
            return intern(slots);
        }
        self.layouts
            .entry(ad.layout_id())
            .or_insert_with(|| intern(slots))
            .clone()
    }

    /// The program of `e` (an expression evaluated with `my` as MY): the one kept
    /// for its key, or `compile`d (and kept).
    pub(crate) fn program(
        &mut self,
        e: ExprView<'a>,
        my: &'a ClassAd,
        slots: &mut SlotTable,
        compile: impl FnOnce(&mut SlotTable) -> Program,
    ) -> Arc<Program> {
        let Some(key) = self.key(e, my) else {
            self.compiled += 1;
            return Arc::new(compile(slots));
        };
        if let Some(p) = self.programs.get(&key) {
            self.reused += 1;
            return p.clone();
        }
        let p = Arc::new(compile(slots));
        self.compiled += 1;
        let table_unchanged = self.frozen_entries.is_none_or(|n| slots.entries() == n);
        if table_unchanged && self.programs.len() < MAX_KEPT {
            self.programs.insert(key, p.clone());
        }
        p
    }

    /// The exact key of `e` compiled for `my`; `None` when it has none.
    fn key(&mut self, e: ExprView<'a>, my: &'a ClassAd) -> Option<Vec<u8>> {
        let mut key = Vec::with_capacity(256);
        self.exact_text(e, &mut key)?;
        self.keys_made += 1;
        let mut reached: Vec<(u32, Option<ExprView<'a>>)> = Vec::new();
        let mut todo: Vec<(u32, &'a str)> = self.names_of(e)?.to_vec();
        while let Some((id, n)) = todo.pop() {
            let seen = &mut self.reached_in[id as usize];
            if *seen == self.keys_made {
                continue;
            }
            *seen = self.keys_made;
            let found = self.place(my, id, n).map(|i| my.view_at(i));
            if let Some(v) = found {
                if !matches!(v.node(), Node::Lit(_)) {
                    todo.extend(self.names_of(v)?.iter());
                }
            }
            reached.push((id, found));
        }
        reached.sort_unstable_by_key(|&(id, _)| id);
        for (id, found) in reached {
            key.extend_from_slice(&id.to_le_bytes());
            match found {
                None => key.push(0),
                Some(v) => {
                    key.push(1);
                    self.exact_text(v, &mut key)?;
                }
            }
        }
        Some(key)
    }

    /// Where name `n` (number `id`) is in `my`, worked out once per layout.
    fn place(&mut self, my: &ClassAd, id: u32, n: &str) -> Option<usize> {
        let at = *self
            .places
            .entry((my.layout_id(), id))
            .or_insert_with(|| my.position_of(n).map(|i| i as u32));
        at.map(|i| i as usize)
    }

    /// The number of name `n` in keys (one per name without case).
    fn id_of(&mut self, n: &str) -> u32 {
        if let Some(&id) = self.ids.get(n) {
            return id;
        }
        let lower = n.to_ascii_lowercase();
        // Numbers count the names without case (the map holds spellings too).
        let next = self.reached_in.len() as u32;
        let id = *self.ids.entry(lower.into()).or_insert(next);
        if id == next {
            self.reached_in.push(0);
        }
        // The spelling as written finds it at once next time.
        self.ids.insert(n.into(), id);
        id
    }

    /// Appends the exact text of `e` (see [`exact_text`]), memoized for
    /// expressions that are not literals; `None` when it has none.
    fn exact_text(&mut self, e: ExprView<'a>, key: &mut Vec<u8>) -> Option<()> {
        if let Node::Lit(_) = e.node() {
            return exact_text(e.tree, e.id, key).then_some(());
        }
        let at = (Arc::as_ptr(e.tree) as usize, e.id);
        let text = self.texts.entry(at).or_insert_with(|| {
            let mut t = Vec::new();
            exact_text(e.tree, e.id, &mut t).then(|| t.into())
        });
        key.extend_from_slice(text.as_deref()?);
        Some(())
    }

    /// The names the subtree `e` reads, memoized per expression; `None` when it
    /// calls a builtin that reads names from strings or scopes.
    fn names_of(&mut self, e: ExprView<'a>) -> Option<NamesRead<'a>> {
        let at = (Arc::as_ptr(e.tree) as usize, e.id);
        if let Some(n) = self.names.get(&at) {
            return n.clone();
        }
        let found: Option<NamesRead<'a>> =
            read_names(e).map(|names| names.into_iter().map(|n| (self.id_of(n), n)).collect());
        self.names.insert(at, found.clone());
        found
    }
}

impl Default for ProgramReuse<'_> {
    fn default() -> Self {
        ProgramReuse::new()
    }
}

/// Every attribute name in the subtree `e` (scopes and selections included);
/// `None` when it calls a builtin of [`SCOPED_BUILTINS`].
fn read_names<'a>(e: ExprView<'a>) -> Option<Vec<&'a str>> {
    let tree: &'a crate::syntax::ast::Expr = e.tree;
    let mut names = Vec::new();
    let mut stack = vec![e.id];
    while let Some(id) = stack.pop() {
        let node = tree.node(id);
        match node {
            Node::Attr { name, .. } => names.push(name.as_str()),
            Node::Call { name, .. }
                if SCOPED_BUILTINS
                    .iter()
                    .any(|b| b.eq_ignore_ascii_case(name.as_str())) =>
            {
                return None
            }
            _ => {}
        }
        node.for_each_child(|k| stack.push(k));
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile_ad, compile_ad_reusing};

    use crate::ad::test_ads as ads;

    /// Each ad compiled alone and with reuse: the same programs, attribute by
    /// attribute (compared by their full printed form).
    fn same_as_alone(ads: &[Arc<ClassAd>]) -> (usize, usize) {
        let mut slots = SlotTable::new();
        let mut reuse = ProgramReuse::new();
        let shared: Vec<_> = ads
            .iter()
            .map(|a| compile_ad_reusing(a, &mut slots, &mut reuse))
            .collect();
        for (a, s) in ads.iter().zip(&shared) {
            let alone = compile_ad(a, &mut slots);
            assert_eq!(format!("{:?}", alone.vm), format!("{:?}", s.vm), "ad {a:?}");
        }
        reuse.counts()
    }

    #[test]
    fn slots_that_differ_only_where_nothing_reads_share_programs() {
        let text = (0..20)
            .map(|i| {
                format!(
                    "Name = \"slot{i}\"\nCpus = {}\nMemory = 4000\nStart = true\n\
                     Requirements = START && TARGET.RequestCpus <= MY.Cpus\n\
                     Rank = Memory / 1000\n\n",
                    1 + i % 2
                )
            })
            .collect::<String>();
        let (compiled, reused) = same_as_alone(&ads(&text));
        // Two values of Cpus: two Requirements; Rank reads only Memory: one.
        assert_eq!((compiled, reused), (3, 37));
    }

    #[test]
    fn a_value_reached_through_another_attribute_is_in_the_key() {
        let text = "A = B + 1\nB = C * 2\nC = 1\nR = A > 2\n\n\
                    A = B + 1\nB = C * 2\nC = 2\nR = A > 2\n\n\
                    A = B + 1\nB = C * 2\nC = 1.0\nR = A > 2\n\n\
                    A = B + 1\nB = C * 2\nR = A > 2\n\n";
        let (compiled, reused) = same_as_alone(&ads(text));
        assert_eq!(reused, 0, "C differs in every ad (1, 2, 1.0, absent)");
        assert_eq!(compiled, 12);
    }

    #[test]
    fn names_differing_in_case_are_one_name() {
        let text = "cpus = 2\nR = CPUS > 1 && Cpus < 4\n\nCPUS = 2\nR = CPUS > 1 && Cpus < 4\n\n";
        let (compiled, reused) = same_as_alone(&ads(text));
        assert_eq!((compiled, reused), (1, 1));
    }

    #[test]
    fn builtins_that_read_names_from_strings_are_never_shared() {
        let text = "X = 1\nR = eval(\"X\") > 0\n\nX = 1\nR = eval(\"X\") > 0\n\n";
        let (compiled, reused) = same_as_alone(&ads(text));
        assert_eq!((compiled, reused), (2, 0));
    }

    #[test]
    fn a_generated_pool_compiles_as_it_does_alone() {
        let spec = crate::generate::PoolSpec {
            machines: 600,
            jobs: 1,
            seed: 11,
            submitters: None,
            signatures: None,
        };
        let pool = crate::generate::Pool::new(&spec);
        let mut text = Vec::new();
        pool.write_machines(crate::generate::Syntax::Old, &mut text)
            .expect("written");
        let slots = ads(std::str::from_utf8(&text).expect("text"));
        let (compiled, reused) = same_as_alone(&slots);
        assert!(
            reused > 4 * compiled,
            "{compiled} compiled, {reused} reused: slots of one kind should share"
        );
    }
}
