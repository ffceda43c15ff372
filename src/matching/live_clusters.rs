//! Autoclusters and match classes kept across changes to a queue: jobs join
//! and leave them one at a time, and each id lives as long as some job has
//! it. A queue that changes by a few percent between cycles is classified by
//! those few percent ([`LiveClusters::place`]), and every class that existed
//! before keeps its id, so what was worked out for it (its candidates) is
//! kept too.
//!
//! Ids here are places, not HTCondor's numbering (in order of first
//! appearance, as [`super::AutoclusterBuilder`] numbers a queue read
//! afresh): the partition of the jobs is the same, which is what the cycle
//! reads of it.

use super::autocluster::{Autoclusters, SharedAd, SignificantAttributes};
use super::classify::PartClasses;
use crate::ad::ClassAd;
use std::sync::Arc;

/// An autocluster's or a match class's place: how many jobs have it.
#[derive(Clone, Debug, Default)]
struct Held {
    jobs: u32,
}

/// One live match class.
#[derive(Clone, Debug)]
struct LiveClass {
    /// Its autocluster and key; `None`: a class of its own (a job whose
    /// significant expressions cannot be walked, or read the clock).
    key: Option<(u32, Arc<[u8]>)>,
    /// A job of it, standing for all of them.
    representative: Arc<ClassAd>,
    held: Held,
}

/// Where a job was placed: its autocluster and its match class (ids kept
/// while some job has them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placed {
    /// The autocluster.
    pub cluster: u32,
    /// The match class.
    pub class: u32,
}

/// Autoclusters and match classes under changes (see the module).
#[derive(Debug)]
pub struct LiveClusters {
    significant: SignificantAttributes,
    by_signature: ahash::AHashMap<String, u32>,
    /// Per autocluster id, its signature and jobs (`None`: a free id).
    clusters: Vec<Option<(String, Held)>>,
    free_clusters: Vec<u32>,
    by_key: ahash::AHashMap<(u32, Arc<[u8]>), u32>,
    /// Per class id, the class (`None`: a free id).
    classes: Vec<Option<LiveClass>>,
    free_classes: Vec<u32>,
}

impl LiveClusters {
    /// No jobs yet, clustered by `significant`.
    pub fn new(significant: SignificantAttributes) -> LiveClusters {
        LiveClusters {
            significant,
            by_signature: ahash::AHashMap::new(),
            clusters: Vec::new(),
            free_clusters: Vec::new(),
            by_key: ahash::AHashMap::new(),
            classes: Vec::new(),
            free_classes: Vec::new(),
        }
    }

    /// The significant attributes the jobs are clustered by.
    pub fn significant(&self) -> &SignificantAttributes {
        &self.significant
    }

    /// Places `jobs`, whose classes `part` are (from
    /// [`SignificantAttributes::classify`] of the same jobs, in order):
    /// each job's autocluster and class, and the classes that are new (ids
    /// no job had before). A class of its own is always new.
    pub fn place<J: SharedAd>(&mut self, part: PartClasses, jobs: &[J]) -> (Vec<Placed>, Vec<u32>) {
        assert_eq!(part.of_job.len(), jobs.len(), "the part's classes and jobs");
        let mut new = Vec::new();
        let sigs: Vec<u32> = part
            .signatures
            .into_iter()
            .map(|s| match self.by_signature.get(&s) {
                Some(&id) => id,
                None => {
                    let id = take(&mut self.clusters, &mut self.free_clusters);
                    self.clusters[id as usize] = Some((s.clone(), Held::default()));
                    self.by_signature.insert(s, id);
                    id
                }
            })
            .collect();
        let keys: Vec<u32> = part
            .keys
            .iter()
            .map(|(s, first, k)| {
                let cluster = sigs[*s as usize];
                let key = k.clone().map(|k| (cluster, k));
                if let Some(&id) = key.as_ref().and_then(|k| self.by_key.get(k)) {
                    return id;
                }
                let id = take(&mut self.classes, &mut self.free_classes);
                if let Some(k) = &key {
                    self.by_key.insert(k.clone(), id);
                }
                self.classes[id as usize] = Some(LiveClass {
                    key,
                    representative: jobs[*first as usize].shared(),
                    held: Held::default(),
                });
                new.push(id);
                id
            })
            .collect();
        let placed = part
            .of_job
            .iter()
            .map(|&(s, k)| {
                let p = Placed {
                    cluster: sigs[s as usize],
                    class: keys[k as usize],
                };
                self.held_cluster(p.cluster).jobs += 1;
                self.class_mut(p.class).held.jobs += 1;
                p
            })
            .collect();
        (placed, new)
    }

    /// A job placed at `p` leaves: an autocluster or class no job has any
    /// more is freed. True when its class was freed.
    pub fn leave(&mut self, p: Placed) -> bool {
        let held = self.held_cluster(p.cluster);
        held.jobs -= 1;
        if held.jobs == 0 {
            let (sig, _) = self.clusters[p.cluster as usize]
                .take()
                .expect("a live cluster");
            self.by_signature.remove(&sig);
            self.free_clusters.push(p.cluster);
        }
        let class = self.class_mut(p.class);
        class.held.jobs -= 1;
        if class.held.jobs > 0 {
            return false;
        }
        let class = self.classes[p.class as usize].take().expect("a live class");
        if let Some(k) = class.key {
            self.by_key.remove(&k);
        }
        self.free_classes.push(p.class);
        true
    }

    fn held_cluster(&mut self, id: u32) -> &mut Held {
        &mut self.clusters[id as usize]
            .as_mut()
            .expect("a live cluster")
            .1
    }

    fn class_mut(&mut self, id: u32) -> &mut LiveClass {
        self.classes[id as usize].as_mut().expect("a live class")
    }

    /// One more than the largest class id in use (ids below it may be free).
    pub fn class_ids(&self) -> usize {
        self.classes.len()
    }

    /// True when class `id` has jobs.
    pub fn is_live(&self, id: u32) -> bool {
        self.classes.get(id as usize).is_some_and(Option::is_some)
    }

    /// How many classes have jobs.
    pub fn class_count(&self) -> usize {
        self.classes.len() - self.free_classes.len()
    }

    /// How many autoclusters have jobs.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len() - self.free_clusters.len()
    }

    /// True when class `id` is a class of its own (its jobs' expressions read
    /// the clock, or cannot be walked): worked out again at every cycle.
    pub fn is_own(&self, id: u32) -> bool {
        self.classes[id as usize]
            .as_ref()
            .is_some_and(|c| c.key.is_none())
    }

    /// The job that stands for class `id`.
    pub fn representative(&self, id: u32) -> &Arc<ClassAd> {
        &self.classes[id as usize]
            .as_ref()
            .expect("a live class")
            .representative
    }

    /// One more than the largest autocluster id in use.
    pub fn cluster_ids(&self) -> usize {
        self.clusters.len()
    }

    /// The autoclusters of a queue whose jobs are in the autoclusters
    /// `cluster_of` and classes `class_of` (ids here): every id a class
    /// (a free one with an empty ad standing for it, which no job asks for).
    pub fn by_ids(&self, cluster_of: Vec<u32>, class_of: Vec<u32>) -> Autoclusters {
        static NOBODY: std::sync::OnceLock<Arc<ClassAd>> = std::sync::OnceLock::new();
        let nobody = NOBODY.get_or_init(|| Arc::new(ClassAd::new()));
        let representatives = self
            .classes
            .iter()
            .map(|c| c.as_ref().map_or(nobody, |c| &c.representative).clone())
            .collect();
        Autoclusters::of_ids(
            self.significant.clone(),
            cluster_of,
            self.clusters.len(),
            class_of,
            representatives,
        )
    }
}

/// A free id of `places`, or a new one at the end.
fn take<T>(places: &mut Vec<Option<T>>, free: &mut Vec<u32>) -> u32 {
    match free.pop() {
        Some(id) => id,
        None => {
            places.push(None);
            places.len() as u32 - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::test_ads as ads;
    use crate::matching::NegotiatorPolicy;

    /// Jobs placed in parts, some leaving between, are clustered as the
    /// queue they leave read afresh; freed ids are taken again.
    #[test]
    fn placed_in_parts_clustered_as_a_fresh_read() {
        let slots = ads("Requirements = TARGET.RequestCpus <= Cpus\nCpus = 4\n");
        let sig = SignificantAttributes::compute(&slots, &NegotiatorPolicy::default());
        let jobs = ads("RequestCpus = 1\n\nRequestCpus = 8\n\nRequestCpus = 1\n\n\
             RequestCpus = 2\n\nRequestCpus = 8\n\nRequestCpus = 3\n");
        let mut live = LiveClusters::new(sig.clone());
        let (first, new) = live.place(sig.classify(&jobs[..3]), &jobs[..3]);
        assert_eq!(new, [0, 1]);
        let (second, new) = live.place(sig.classify(&jobs[3..]), &jobs[3..]);
        assert_eq!(new, [2, 3], "RequestCpus 8 is known");
        let mut placed: Vec<Placed> = first.into_iter().chain(second).collect();
        // Jobs 1 and 4 (RequestCpus 8) leave: their class and cluster go.
        assert!(!live.leave(placed[1]));
        assert!(live.leave(placed[4]));
        assert_eq!(live.class_count(), 3);
        let kept = [0usize, 2, 3, 5];
        let ids = live.by_ids(
            kept.iter().map(|&j| placed[j].cluster).collect(),
            kept.iter().map(|&j| placed[j].class).collect(),
        );
        let left: Vec<Arc<ClassAd>> = kept.iter().map(|&j| jobs[j].clone()).collect();
        let fresh = Autoclusters::with(&left, sig.clone());
        // The same partitions, under other numbers.
        let same = |f: &dyn Fn(&Autoclusters, usize) -> u32| {
            (0..4).all(|a| {
                (0..4).all(|b| (f(&ids, a) == f(&ids, b)) == (f(&fresh, a) == f(&fresh, b)))
            })
        };
        assert!(same(&|c, j| c.cluster_of(j)) && same(&|c, j| c.class_of(j)));
        assert_eq!(fresh.len(), 3);
        assert_eq!(live.cluster_count(), 3);
        // A new job takes the freed id.
        let more = ads("RequestCpus = 16\n");
        let (p, new) = live.place(sig.classify(&more), &more);
        assert_eq!(new, [1]);
        placed.push(p[0]);
        assert!(live.is_live(1) && !live.is_own(1));
    }
}
