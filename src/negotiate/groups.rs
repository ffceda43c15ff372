//! Group quotas (negotiator.md section 4): HTCondor's hierarchical group quotas
//! as `GroupEntry.cpp` computes them, one cycle's worth.
//!
//! The rules, in the order they run:
//!
//! 1. **Tree.** `GROUP_NAMES`, sorted ignoring case, form a tree under the group
//!    `<none>`: `a.b` is a child of `a` (a group whose parent is not listed is
//!    ignored, with a warning from the knobs). A submitter belongs to the group its
//!    name names (section 4), else to `<none>`.
//! 2. **Demand.** A group's `requested` is the sum over its submitters of their
//!    usage and their idle jobs' weights (section 4(a)).
//! 3. **Quotas** (`hgq_assign_quotas`), from the pool (the sum of weights, or with
//!    weights off the slots counting a partitionable slot as its `Cpus`): each
//!    node's static children get their `GROUP_QUOTA_<g>` (scaled down to fit only
//!    when `NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION` is false); dynamic children
//!    share what is left by their `GROUP_QUOTA_DYNAMIC_<g>` fractions (scaled
//!    when the fractions add up past 1); a group without a quota gets 0; the node
//!    keeps the rest (`<none>`: the pool less all its descendants' quotas).
//! 4. **Fair share** (`hgq_fairshare`): each group is allocated the lesser of its
//!    demand and its quota; what a quota leaves unallocated is surplus, shared
//!    bottom up (`hgq_allocate_surplus`) among a node and those of its children
//!    with `GROUP_ACCEPT_SURPLUS` that still have demand: all of it when the
//!    surplus covers their demand, else first in proportion to their quotas, then
//!    equally among groups of quota 0. With weights off, fractional allocations
//!    are then cut to whole slots and the fractions handed out a slot at a time
//!    (`hgq_round_robin`).
//! 5. **Negotiation**: groups in `GROUP_SORT_EXPR` order (ties in `GROUP_NAMES`
//!    order, `<none>` last), each with an allocation above 0 and submitters left,
//!    runs the pie spins over its submitters with the lesser of its target
//!    (allocation or quota, the larger of the two) as quota, capped by
//!    `NEGOTIATOR_STRICT_ENFORCE_QUOTA` at what each ancestor that does not
//!    accept surplus has left, and passed as a whole number.
//! 6. **Rounds**: up to `GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`; a group that used
//!    less than its allocation gives the rest back as demand met, and the next
//!    round shares again; the rounds stop once every allocation was used.

use super::cycle::Cycle;
use super::knobs::Quota;
use crate::ad::ClassAd;
use crate::engine::{eval_attr_once, eval_once};
use crate::syntax::ast::Expr;
use classad_vm::Value;
use std::sync::Arc;

/// One group of the tree.
#[derive(Clone, Debug, Default)]
struct Node {
    /// Index into the accountant's groups (`groups.len()` for `<none>`).
    account: usize,
    /// Position in `GROUP_NAMES` (`usize::MAX` for `<none>`).
    order: usize,
    name: String,
    children: Vec<usize>,
    parent: Option<usize>,
    static_quota: bool,
    config_quota: f64,
    accept_surplus: bool,
    usage: f64,
    quota: f64,
    requested: f64,
    allocated: f64,
    subtree_quota: f64,
    subtree_requested: f64,
    subtree_usage: f64,
    rr_time: f64,
    subtree_rr_time: f64,
    sort_key: f64,
    submitters: Vec<usize>,
}

/// The tree, root first, in breadth-first order.
struct Tree {
    nodes: Vec<Node>,
    bfs: Vec<usize>,
    oversubscribe: bool,
}

impl Tree {
    fn new(cycle: &Cycle<'_>) -> Tree {
        let knobs = cycle.knobs();
        let mut nodes = vec![Node {
            account: knobs.groups.len(),
            order: usize::MAX,
            name: "<none>".into(),
            accept_surplus: true,
            ..Node::default()
        }];
        let mut sorted: Vec<usize> = (0..knobs.groups.len()).collect();
        sorted.sort_by_cached_key(|&g| knobs.groups[g].name.to_ascii_lowercase());
        let mut node_of_group = vec![0usize; knobs.groups.len()];
        for g in sorted {
            let k = &knobs.groups[g];
            let parent = match k.name.rsplit_once('.') {
                None => 0,
                Some((p, _)) => knobs.groups.position(p).map_or(0, |pg| node_of_group[pg]),
            };
            let (static_quota, config_quota) = match k.quota {
                Some(Quota::Static(q)) => (true, q),
                Some(Quota::Dynamic(q)) => (false, q),
                None => (false, 0.0),
            };
            nodes.push(Node {
                account: g,
                order: g,
                name: k.name.clone(),
                parent: Some(parent),
                static_quota,
                config_quota,
                accept_surplus: k.accept_surplus,
                ..Node::default()
            });
            let n = nodes.len() - 1;
            node_of_group[g] = n;
            nodes[parent].children.push(n);
        }
        let mut bfs = Vec::new();
        let mut queue = std::collections::VecDeque::from([0usize]);
        while let Some(n) = queue.pop_front() {
            bfs.push(n);
            queue.extend(nodes[n].children.iter().copied());
        }
        for s in 0..cycle.submitter_count() {
            let g = cycle.submitter_group(s);
            let n = if g == knobs.groups.len() {
                0
            } else {
                node_of_group[g]
            };
            nodes[n].submitters.push(s);
            nodes[n].requested += cycle.submitter_demand(s);
        }
        for node in &mut nodes {
            node.usage = cycle.group_usage(node.account);
        }
        Tree {
            nodes,
            bfs,
            oversubscribe: knobs.allow_quota_oversubscription,
        }
    }

    /// `hgq_assign_quotas`, from the root down. A child's quota depends only on
    /// its parent's, so a work list stands for HTCondor's recursion.
    fn assign_quotas(&mut self, pool: f64) {
        let mut pending = vec![(0usize, pool)];
        while let Some((n, quota)) = pending.pop() {
            self.assign_quota(n, quota, &mut pending);
        }
    }

    /// `hgq_assign_quotas` at one node: its quota from `quota`, its children's
    /// pushed onto `pending`.
    fn assign_quota(&mut self, n: usize, quota: f64, pending: &mut Vec<(usize, f64)>) {
        if quota <= 0.0 {
            return;
        }
        self.nodes[n].subtree_quota = quota;
        let children = self.nodes[n].children.clone();
        let (mut sqsum, mut dqsum) = (0.0, 0.0);
        for &c in &children {
            if self.nodes[c].static_quota {
                sqsum += self.nodes[c].config_quota;
            } else {
                dqsum += self.nodes[c].config_quota;
            }
        }
        let sqa = if self.oversubscribe {
            sqsum
        } else {
            f64::min(sqsum, quota)
        };
        let dqa = f64::max(0.0, quota - sqa);
        let zs = if sqsum > 0.0 { sqsum } else { 1.0 };
        let zd = f64::max(dqsum, 1.0);
        let mut chq = 0.0;
        for &c in &children {
            let child = &self.nodes[c];
            let mut q = if child.static_quota {
                child.config_quota * (sqa / zs)
            } else {
                child.config_quota * (dqa / zd)
            };
            if q < 0.0 {
                q = 0.0;
            }
            pending.push((c, q));
            chq += q;
        }
        let node = &mut self.nodes[n];
        node.quota = if self.oversubscribe && n != 0 {
            quota
        } else {
            quota - chq
        };
        if node.quota < 0.0 {
            node.quota = 0.0;
        }
    }

    /// `hgq_fairshare`, every node after its children (see [`Tree::bottom_up`]),
    /// each child's surplus added in HTCondor's order.
    fn fairshare(&mut self) {
        let mut surplus_of = vec![0.0; self.nodes.len()];
        for n in self.bottom_up() {
            let node = &mut self.nodes[n];
            node.allocated = f64::min(node.requested, node.quota);
            node.requested -= node.allocated;
            node.subtree_requested = node.requested;
            let mut surplus = node.quota - node.allocated;
            if node.children.is_empty() {
                surplus_of[n] = surplus;
                continue;
            }
            for k in 0..self.nodes[n].children.len() {
                let c = self.nodes[n].children[k];
                surplus += surplus_of[c];
                if self.nodes[c].accept_surplus {
                    self.nodes[n].subtree_requested += self.nodes[c].subtree_requested;
                }
            }
            surplus_of[n] = self.allocate_surplus(n, surplus);
        }
    }

    /// The nodes, each after all of its children: breadth-first order reversed.
    /// HTCondor's passes over the tree recurse; the passes here visit the nodes
    /// in this order instead (sibling subtrees never touch each other, so the
    /// outcome is the same), and a hierarchy thousands of groups deep cannot run
    /// out of stack.
    fn bottom_up(&self) -> Vec<usize> {
        self.bfs.iter().rev().copied().collect()
    }

    /// `hgq_allocate_surplus`: `surplus` shared at `n`, then what each child got
    /// shared in its subtree (a work list for HTCondor's recursion: what a node
    /// keeps does not depend on its children's shares).
    fn allocate_surplus(&mut self, n: usize, surplus: f64) -> f64 {
        let mut pending = Vec::new();
        let left = self.allocate_surplus_at(n, surplus, &mut pending);
        while let Some((c, share)) = pending.pop() {
            self.allocate_surplus_at(c, share, &mut pending);
        }
        left
    }

    /// `hgq_allocate_surplus` at one node, its children's shares pushed onto
    /// `pending`.
    fn allocate_surplus_at(
        &mut self,
        n: usize,
        mut surplus: f64,
        pending: &mut Vec<(usize, f64)>,
    ) -> f64 {
        if surplus <= 0.0 {
            return 0.0;
        }
        if self.nodes[n].subtree_requested <= 0.0 {
            return surplus;
        }
        let mut groups = self.nodes[n].children.clone();
        groups.push(n);
        let mut allocated = vec![0.0; groups.len()];
        let saved = {
            let node = &mut self.nodes[n];
            let saved = (node.accept_surplus, node.subtree_quota);
            node.accept_surplus = true;
            node.subtree_quota = node.quota;
            saved
        };
        let mut requested = self.nodes[n].subtree_requested;
        self.nodes[n].subtree_requested = self.nodes[n].requested;
        if surplus >= requested {
            for (j, &g) in groups.iter().enumerate() {
                let grp = &self.nodes[g];
                if grp.accept_surplus && grp.subtree_requested > 0.0 {
                    allocated[j] = grp.subtree_requested;
                }
            }
            surplus -= requested;
            requested = 0.0;
        } else {
            let mut subtree_requested: Vec<f64> = groups
                .iter()
                .map(|&g| {
                    let grp = &self.nodes[g];
                    if grp.accept_surplus && grp.subtree_requested > 0.0 {
                        grp.subtree_requested
                    } else {
                        0.0
                    }
                })
                .collect();
            for by_quota in [true, false] {
                self.surplus_loop(
                    by_quota,
                    &groups,
                    &mut allocated,
                    &mut subtree_requested,
                    &mut surplus,
                    &mut requested,
                );
            }
        }
        for j in 0..groups.len() - 1 {
            if allocated[j] > 0.0 {
                pending.push((groups[j], allocated[j]));
            }
        }
        let node = &mut self.nodes[n];
        node.allocated += allocated[groups.len() - 1];
        node.requested -= allocated[groups.len() - 1];
        node.subtree_requested = requested;
        node.accept_surplus = saved.0;
        node.subtree_quota = saved.1;
        surplus
    }

    /// `hgq_allocate_surplus_loop`.
    fn surplus_loop(
        &self,
        by_quota: bool,
        groups: &[usize],
        allocated: &mut [f64],
        subtree_requested: &mut [f64],
        surplus: &mut f64,
        requested: &mut f64,
    ) {
        while *surplus > 0.0 {
            let weight = |g: usize| {
                if by_quota {
                    self.nodes[g].subtree_quota
                } else {
                    1.0
                }
            };
            let z: f64 = groups
                .iter()
                .zip(subtree_requested.iter())
                .filter(|(_, r)| **r > 0.0)
                .map(|(&g, _)| weight(g))
                .sum();
            if z <= 0.0 {
                break;
            }
            let mut never_gt = true;
            let mut sumalloc = 0.0;
            for (j, &g) in groups.iter().enumerate() {
                if subtree_requested[j] > 0.0 {
                    let mut a = *surplus * (weight(g) / z);
                    if a > subtree_requested[j] {
                        a = subtree_requested[j];
                        never_gt = false;
                    }
                    allocated[j] += a;
                    subtree_requested[j] -= a;
                    sumalloc += a;
                }
            }
            *surplus -= sumalloc;
            *requested -= sumalloc;
            if never_gt || *surplus < 0.0 {
                *surplus = 0.0;
            }
        }
    }

    /// `hgq_recover_remainders`, every node after its children (see
    /// [`Tree::bottom_up`]).
    fn recover_remainders(&mut self) {
        let mut surplus_of = vec![0.0; self.nodes.len()];
        for n in self.bottom_up() {
            surplus_of[n] = self.recover_remainders_at(n, &surplus_of);
        }
    }

    /// `hgq_recover_remainders` at one node, its children's surpluses in
    /// `surplus_of`.
    fn recover_remainders_at(&mut self, n: usize, surplus_of: &[f64]) -> f64 {
        let node = &mut self.nodes[n];
        let mut surplus = node.allocated - node.allocated.floor();
        node.allocated -= surplus;
        node.requested += surplus;
        node.allocated = (0.5 + node.allocated).floor();
        node.requested = (0.5 + node.requested).floor();
        node.subtree_requested = node.requested;
        node.subtree_rr_time = if node.requested > 0.0 {
            node.rr_time
        } else {
            f64::MAX
        };
        let children = node.children.clone();
        if children.is_empty() {
            return surplus;
        }
        for c in children {
            surplus += surplus_of[c];
            let child = &self.nodes[c];
            if child.accept_surplus {
                let (csr, crr) = (child.subtree_requested, child.subtree_rr_time);
                let node = &mut self.nodes[n];
                node.subtree_requested += csr;
                if csr > 0.0 {
                    node.subtree_rr_time = node.subtree_rr_time.min(crr);
                }
            }
        }
        self.round_robin(n, surplus)
    }

    /// `hgq_round_robin`: `surplus` handed out at `n`, then what each child got
    /// in its subtree (a work list, as in [`Tree::allocate_surplus`]).
    fn round_robin(&mut self, n: usize, surplus: f64) -> f64 {
        let mut pending = Vec::new();
        let left = self.round_robin_at(n, surplus, &mut pending);
        while let Some((c, share)) = pending.pop() {
            self.round_robin_at(c, share, &mut pending);
        }
        left
    }

    /// `hgq_round_robin` at one node, its children's shares pushed onto
    /// `pending`.
    fn round_robin_at(
        &mut self,
        n: usize,
        mut surplus: f64,
        pending: &mut Vec<(usize, f64)>,
    ) -> f64 {
        {
            let node = &mut self.nodes[n];
            node.subtree_requested = node.subtree_requested.floor();
            if node.subtree_requested <= 0.0 || surplus < 1.0 {
                return surplus;
            }
        }
        let mut groups = self.nodes[n].children.clone();
        groups.push(n);
        let mut allocated = vec![0.0; groups.len()];
        let saved = {
            let node = &mut self.nodes[n];
            let saved = (
                node.accept_surplus,
                node.subtree_quota,
                node.subtree_rr_time,
            );
            node.accept_surplus = true;
            node.subtree_quota = node.quota;
            node.subtree_rr_time = node.rr_time;
            saved
        };
        let mut requested = self.nodes[n].subtree_requested;
        self.nodes[n].subtree_requested = self.nodes[n].requested;
        let mut outstanding = 0.0;
        let mut subtree_requested: Vec<f64> = groups
            .iter()
            .map(|&g| {
                let grp = &self.nodes[g];
                if grp.accept_surplus && grp.subtree_requested > 0.0 {
                    outstanding += 1.0;
                    grp.subtree_requested
                } else {
                    0.0
                }
            })
            .collect();
        // First cut: earliest round-robin time, then larger quota, then larger
        // demand (ties: the tree's order; the sort is stable).
        let mut idx: Vec<usize> = (0..groups.len()).collect();
        idx.sort_by(|&a, &b| {
            let (ga, gb) = (&self.nodes[groups[a]], &self.nodes[groups[b]]);
            ga.subtree_rr_time
                .total_cmp(&gb.subtree_rr_time)
                .then(gb.subtree_quota.total_cmp(&ga.subtree_quota))
                .then(gb.subtree_requested.total_cmp(&ga.subtree_requested))
        });
        while surplus >= 1.0 && requested > 0.0 {
            let amax = f64::max(1.0, (surplus / outstanding).floor());
            outstanding = 0.0;
            let mut sumalloc = 0.0;
            for &j in &idx {
                let g = groups[j];
                if self.nodes[g].accept_surplus && subtree_requested[j] > 0.0 {
                    let a = f64::min(subtree_requested[j], amax);
                    allocated[j] += a;
                    subtree_requested[j] -= a;
                    sumalloc += a;
                    surplus -= a;
                    requested -= a;
                    if subtree_requested[j] > 0.0 {
                        outstanding += 1.0;
                    }
                    if surplus < amax {
                        break;
                    }
                }
            }
            if sumalloc < 1.0 {
                break;
            }
        }
        for j in 0..groups.len() - 1 {
            if allocated[j] > 0.0 {
                pending.push((groups[j], allocated[j]));
            }
        }
        let node = &mut self.nodes[n];
        node.allocated += allocated[groups.len() - 1];
        node.requested -= allocated[groups.len() - 1];
        node.subtree_requested = requested;
        node.accept_surplus = saved.0;
        node.subtree_quota = saved.1;
        node.subtree_rr_time = saved.2;
        surplus
    }

    /// `calculate_subtree_usage` of every node, with the accountant's usage now
    /// (see [`Tree::bottom_up`]; the sums in HTCondor's order).
    fn subtree_usage(&mut self, cycle: &Cycle<'_>) {
        for n in self.bottom_up() {
            let mut total = 0.0;
            for &c in &self.nodes[n].children {
                total += self.nodes[c].subtree_usage;
            }
            total += cycle.group_usage(self.nodes[n].account);
            self.nodes[n].subtree_usage = total;
        }
    }

    /// `strict_enforce_quota`.
    fn strict_enforce(&mut self, n: usize, slots: f64, cycle: &Cycle<'_>) -> f64 {
        self.subtree_usage(cycle);
        let usage = self.nodes[n].usage;
        let mut new = slots - usage;
        let mut limiting = Some(n);
        while let Some(g) = limiting {
            let grp = &self.nodes[g];
            if !grp.accept_surplus {
                let base = if grp.static_quota {
                    grp.config_quota
                } else {
                    grp.subtree_quota
                };
                let available = f64::max(base - grp.subtree_usage, 0.0);
                if new > available {
                    new = available;
                }
            }
            limiting = grp.parent;
        }
        new + usage
    }
}

/// The pool as group quotas count it: the sum of weights, or with weights off
/// the slots, a partitionable slot counting as its `Cpus`.
fn quota_pool(cycle: &Cycle<'_>) -> f64 {
    if cycle.knobs().use_slot_weights {
        return cycle.pool_size();
    }
    let slots = cycle.slots();
    slots
        .ads
        .iter()
        .map(|ad| {
            let pslot = matches!(
                eval_attr_once(ad, "PartitionableSlot", None),
                Ok(Value::Bool(true))
            );
            if pslot {
                match eval_attr_once(ad, "Cpus", None) {
                    Ok(Value::Int(c)) => c as f64,
                    Ok(Value::Real(c)) => c.trunc(),
                    _ => 1.0,
                }
            } else {
                1.0
            }
        })
        .sum()
}

/// `GROUP_SORT_EXPR` of a group.
fn sort_key(cycle: &Cycle<'_>, node: &Node) -> f64 {
    let mut ad = ClassAd::new();
    let lit = |v: Value| Expr::literal(v);
    ad.insert_expr("AccountingGroup", lit(Value::str(node.name.as_str())));
    ad.insert_expr("GroupQuota", lit(Value::Real(node.quota)));
    ad.insert_expr("GroupResourcesAllocated", lit(Value::Real(node.allocated)));
    ad.insert_expr(
        "GroupResourcesInUse",
        lit(Value::Real(cycle.group_usage(node.account))),
    );
    let ad = Arc::new(ad);
    match eval_once(&cycle.knobs().group_sort_expr, &ad, None) {
        Ok(v) => v.as_f64_promoted().unwrap_or(f32::MAX as f64),
        Err(_) => f32::MAX as f64,
    }
}

/// Negotiates group by group (`hgq_negotiate_with_all_groups`).
pub(super) fn negotiate_groups(cycle: &mut Cycle<'_>) {
    let knobs = cycle.knobs();
    let total = quota_pool(cycle);
    cycle.set_candidate_slots(cycle.slots().len() as u64);
    let mut tree = Tree::new(cycle);
    tree.assign_quotas(total);
    let global_surplus = knobs.groups.iter().any(|g| g.accept_surplus);
    for _round in 0..knobs.group_max_allocation_rounds {
        for n in 0..tree.nodes.len() {
            let node = &mut tree.nodes[n];
            node.allocated = 0.0;
            node.subtree_requested = 0.0;
        }
        tree.fairshare();
        if !knobs.use_slot_weights {
            tree.recover_remainders();
        }
        let mut maxdelta: f64 = 0.0;
        let mut allocated_total = 0.0;
        for &n in &tree.bfs {
            let g = &tree.nodes[n];
            allocated_total += g.allocated;
            let target = if global_surplus { g.allocated } else { g.quota };
            maxdelta = maxdelta.max(f64::max(0.0, target - g.usage));
        }
        for n in 0..tree.nodes.len() {
            tree.nodes[n].sort_key = sort_key(cycle, &tree.nodes[n]);
        }
        let mut order = tree.bfs.clone();
        order.sort_by(|&a, &b| {
            let (x, y) = (&tree.nodes[a], &tree.nodes[b]);
            x.sort_key
                .total_cmp(&y.sort_key)
                .then(x.order.cmp(&y.order))
        });
        // GROUP_QUOTA_ROUND_ROBIN_RATE is unbounded by default: one pass with the
        // full deltas.
        for n in order {
            let g = &tree.nodes[n];
            if g.allocated <= 0.0
                || (g.usage >= g.allocated && !knobs.consider_preemption)
                || g.submitters.is_empty()
            {
                continue;
            }
            let target = f64::max(g.allocated, g.quota);
            let delta = f64::max(0.0, target - g.usage);
            // One pass with the full deltas: HTCondor's `usage + delta * (n /
            // maxdelta)` with n = maxdelta (when maxdelta is 0 and delta is not,
            // HTCondor divides 0 by 0; here the share is whole).
            let mut slots = if delta > 0.0 { g.usage + delta } else { target };
            slots = slots.min(target);
            if !knobs.use_slot_weights {
                slots = slots.floor();
            }
            if knobs.strict_enforce_quota {
                slots = tree.strict_enforce(n, slots, cycle);
            }
            // HTCondor hands the pie spins a whole number of slots.
            let quota = slots
                .clamp(f64::from(i32::MIN), f64::from(i32::MAX))
                .trunc();
            let account = tree.nodes[n].account;
            let mut subs = std::mem::take(&mut tree.nodes[n].submitters);
            cycle.round(&mut subs, Some(account), quota);
            tree.nodes[n].submitters = subs;
        }
        let mut usage_total = 0.0;
        for n in 0..tree.nodes.len() {
            let usage = cycle.group_usage(tree.nodes[n].account);
            let g = &mut tree.nodes[n];
            g.usage = usage;
            usage_total += f64::min(g.usage, g.allocated);
            if g.usage < g.allocated {
                g.requested = g.usage;
            } else {
                g.requested += g.allocated;
            }
        }
        if usage_total >= allocated_total {
            break;
        }
    }
}
