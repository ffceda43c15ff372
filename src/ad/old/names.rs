//! Attribute names of old-syntax ads: interned per file, and each distinct order of
//! names sorted once and shared by every ad that lists its names in that order.
//!
//! A pool file mixes a few kinds of ad (partitionable and dynamic slots, idle and
//! running jobs), and each kind always lists its names in one order, so most lines
//! only compare their name with the one the same line of a known order holds.

use crate::ad::classad::attr_order;
use classad_vm::Str;
use std::sync::Arc;

/// At most this many orders are remembered per file; past it, ads still read
/// correctly, only slower.
const MAX_ORDERS: usize = 64;

/// One order of names and what an ad listing its names in that order is made of.
#[derive(Debug)]
pub(super) struct Order {
    /// The names as the file lists them.
    file: Vec<Str>,
    /// HTCondor's order without repeats, the first spelling of each: what ads share.
    pub(super) sorted: Arc<Vec<Str>>,
    /// For each sorted name, the line (counted within the ad) whose value it takes:
    /// the last of repeats, as repeated inserts would leave it.
    pub(super) take: Vec<u32>,
}

impl Order {
    fn new(file: Vec<Str>) -> Order {
        let mut perm: Vec<u32> = (0..file.len() as u32).collect();
        // Stable, so repeats stay in file order: first spelling, last value.
        perm.sort_by(|&a, &b| attr_order(&file[a as usize], &file[b as usize]));
        let mut sorted: Vec<Str> = Vec::with_capacity(file.len());
        let mut take: Vec<u32> = Vec::with_capacity(file.len());
        for i in perm {
            let name = &file[i as usize];
            match (sorted.last(), take.last_mut()) {
                (Some(last), Some(t)) if attr_order(last, name).is_eq() => *t = i,
                _ => {
                    sorted.push(name.clone());
                    take.push(i);
                }
            }
        }
        Order {
            file,
            sorted: Arc::new(sorted),
            take,
        }
    }
}

/// The name orders of one file, and the names of the ad being read.
pub(super) struct NameOrders<'s> {
    orders: Vec<Order>,
    /// Orders by their names' identities (interned, so addresses name them).
    by_names: ahash::AHashMap<Vec<usize>, usize>,
    /// Keyed by the text's first occurrence in the file, which outlives the map.
    interned: ahash::AHashMap<&'s str, Str>,
    /// The known order whose first names this ad has listed so far.
    following: Option<usize>,
    /// This ad's names once it has left every known order.
    fresh: Vec<Str>,
    /// How many names this ad has listed.
    count: usize,
    /// An order not kept, when the file has too many.
    spare: Option<Order>,
}

impl<'s> NameOrders<'s> {
    pub(super) fn new() -> NameOrders<'s> {
        NameOrders {
            orders: Vec::new(),
            by_names: ahash::AHashMap::new(),
            // Sized for a pool's names, so that reading one file seldom rehashes.
            interned: ahash::AHashMap::with_capacity(256),
            following: None,
            fresh: Vec::new(),
            count: 0,
            spare: None,
        }
    }

    /// Takes the next name of the ad being read.
    pub(super) fn push(&mut self, name: &'s str) {
        let i = self.count;
        self.count += 1;
        if let Some(k) = self.following {
            let file = &self.orders[k].file;
            if file.get(i).is_some_and(|n| n.as_str() == name) {
                return;
            }
            if let Some(k) = self.other_order(k, i, name) {
                self.following = Some(k);
                return;
            }
            self.fresh.clear();
            self.fresh.extend_from_slice(&self.orders[k].file[..i]);
            self.following = None;
        }
        let name = self.intern(name);
        self.fresh.push(name);
    }

    /// The known order (its index) whose first names this ad has listed so far.
    pub(super) fn following(&self) -> Option<usize> {
        self.following
    }

    /// Takes the next name of the ad being read, known (by the caller, from an ad
    /// of that order) to be the next name of the order being followed.
    pub(super) fn push_followed(&mut self) {
        debug_assert!(self
            .following
            .is_some_and(|k| self.orders[k].file.len() > self.count));
        self.count += 1;
    }

    /// A known order that starts like order `k` for `i` names and then has `name`.
    fn other_order(&self, k: usize, i: usize, name: &str) -> Option<usize> {
        let prefix = &self.orders[k].file[..i];
        self.orders.iter().position(|o| {
            o.file.get(i).is_some_and(|n| n.as_str() == name)
                && o.file[..i].iter().zip(prefix).all(|(a, b)| a.ptr_eq(b))
        })
    }

    fn intern(&mut self, name: &'s str) -> Str {
        self.interned
            .entry(name)
            .or_insert_with(|| Str::from(name))
            .clone()
    }

    /// Ends the ad being read: the order of its names (at least one), and its
    /// index when it is kept.
    pub(super) fn finish(&mut self) -> (Option<usize>, &Order) {
        let n = std::mem::take(&mut self.count);
        if let Some(k) = self.following {
            if self.orders[k].file.len() == n {
                return (Some(k), &self.orders[k]);
            }
            // The ad stopped early: its names are a prefix of that order.
            self.fresh.clear();
            self.fresh.extend_from_slice(&self.orders[k].file[..n]);
        }
        let names = std::mem::take(&mut self.fresh);
        let key: Vec<usize> = names.iter().map(|n| n.as_ptr() as usize).collect();
        let k = match self.by_names.get(&key) {
            Some(&k) => k,
            None if self.orders.len() < MAX_ORDERS => {
                self.orders.push(Order::new(names));
                self.by_names.insert(key, self.orders.len() - 1);
                self.orders.len() - 1
            }
            None => {
                self.following = None;
                return (None, self.spare.insert(Order::new(names)));
            }
        };
        // The next ad most likely lists the same names again.
        self.following = Some(k);
        (Some(k), &self.orders[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<'s>(orders: &mut NameOrders<'s>, names: &[&'s str]) -> (Vec<String>, Vec<u32>) {
        for n in names {
            orders.push(n);
        }
        let (_, o) = orders.finish();
        (
            o.sorted.iter().map(|s| s.to_string()).collect(),
            o.take.clone(),
        )
    }

    #[test]
    fn sorts_and_keeps_first_spelling_and_last_value_of_repeats() {
        let mut o = NameOrders::new();
        let (names, take) = read(&mut o, &["Zeta", "b", "a", "B", "aa"]);
        assert_eq!(names, ["a", "b", "aa", "Zeta"]);
        assert_eq!(take, [2, 3, 4, 0]);
    }

    #[test]
    fn orders_are_shared_and_switched_between() {
        let mut o = NameOrders::new();
        let p = ["MyType", "Name", "PartitionableSlot", "Cpus"];
        let d = ["MyType", "Name", "DynamicSlot", "Cpus", "ParentSlot"];
        let first = {
            read(&mut o, &p);
            for n in p {
                o.push(n);
            }
            o.finish().1.sorted.clone()
        };
        read(&mut o, &d);
        for n in p {
            o.push(n);
        }
        // The same names in the same order share one sorted list.
        assert!(Arc::ptr_eq(&first, &o.finish().1.sorted));
        assert_eq!(o.orders.len(), 2);
        // A prefix of a known order, and a known order left half way.
        let (names, _) = read(&mut o, &["MyType", "Name"]);
        assert_eq!(names, ["Name", "MyType"]);
        let (names, take) = read(&mut o, &["MyType", "Name", "DynamicSlot", "x"]);
        assert_eq!(names, ["x", "Name", "MyType", "DynamicSlot"]);
        assert_eq!(take, [3, 1, 0, 2]);
        assert_eq!(o.orders.len(), 4);
    }

    #[test]
    fn followed_names_count_as_the_order_being_followed() {
        let mut o = NameOrders::new();
        read(&mut o, &["b", "a", "c"]);
        assert_eq!(o.following(), Some(0));
        o.push_followed();
        o.push_followed();
        o.push_followed();
        assert_eq!(o.finish().0, Some(0));
        // Another order shows itself; names then follow it.
        read(&mut o, &["b", "x"]);
        o.push("b");
        assert_eq!(o.following(), Some(1));
        o.push("a");
        assert_eq!(o.following(), Some(0));
        o.push_followed();
        let (k, order) = o.finish();
        assert_eq!((k, order.take.as_slice()), (Some(0), [1, 0, 2].as_slice()));
    }

    #[test]
    fn too_many_orders_still_read_correctly() {
        let names: Vec<String> = (0..MAX_ORDERS + 5).map(|i| format!("n{i}")).collect();
        let mut o = NameOrders::new();
        for name in &names {
            let (sorted, take) = read(&mut o, &[name, "a"]);
            assert_eq!(sorted, ["a", name.as_str()]);
            assert_eq!(take, [1, 0]);
        }
        assert_eq!(o.orders.len(), MAX_ORDERS);
    }
}
