//! A living pool's jobs: each at a place (its id), with its facts and its
//! autocluster and match class. Changed and new jobs wait until the next
//! cycle and are then classified together; a job that changes leaves its
//! class only after its new one is found, so a class that keeps jobs keeps
//! its id (and its candidates).
//!
//! The facts are kept by place, as the cycle reads them: a free place holds
//! the facts of no job (not idle, no submitter), which the cycle passes
//! over, so a cycle reads the queue where it is rather than a copy of a
//! million jobs' facts.

use crate::ad::ClassAd;
use crate::matching::{Autoclusters, LiveClusters, Placed, SignificantAttributes};
use crate::negotiate::jobs::{classify_with_facts, FactReader, JobFacts, QueueFacts};
use crate::negotiate::knobs::CycleKnobs;
use crate::negotiate::submitters::SubmitterNames;
use rayon::prelude::*;
use std::sync::Arc;

/// Jobs classified per part on rayon's threads, at most.
const PART: usize = 4096;

/// Jobs classified per part, at least: a cycle's few thousand changed jobs
/// are split among every core rather than left to one.
const PART_MIN: usize = 256;

/// The part size for `n` jobs: a few parts per thread, within bounds.
fn part_size(n: usize) -> usize {
    n.div_ceil(4 * rayon::current_num_threads())
        .clamp(PART_MIN, PART)
}

/// Where no job is placed (a free place, or a job waiting).
const UNPLACED: Placed = Placed {
    cluster: u32::MAX,
    class: u32::MAX,
};

/// What placing the waiting jobs did.
#[derive(Debug, Default)]
pub(super) struct Placing {
    /// Jobs classified.
    pub(super) classified: usize,
    /// Jobs that stayed in their classes, their facts read again.
    pub(super) refacted: usize,
    /// Classes no job had before (their candidates are to be worked out).
    pub(super) new_classes: Vec<u32>,
    /// Classes no job has any more.
    pub(super) gone_classes: Vec<u32>,
}

/// The jobs of a living pool.
#[derive(Debug)]
pub(super) struct LiveQueue {
    /// Per place, its job.
    ads: Vec<Option<Arc<ClassAd>>>,
    /// Per place, its job's facts (a free place's: no job).
    facts: QueueFacts,
    /// Per place, where its job is placed.
    placed: Vec<Placed>,
    free: Vec<u32>,
    /// Places of jobs added or changed since the last cycle (perhaps gone
    /// again, perhaps listed twice).
    waiting: Vec<u32>,
    /// Where jobs that changed or left were placed: they leave their classes
    /// once the waiting jobs are placed.
    leaving: Vec<Placed>,
    /// Places of jobs that changed in nothing their class reads: they keep
    /// their places in their classes, and only their facts are read again.
    refacts: Vec<u32>,
    clusters: LiveClusters,
}

impl LiveQueue {
    /// No jobs, clustered by `significant`.
    pub(super) fn new(significant: SignificantAttributes) -> LiveQueue {
        LiveQueue {
            ads: Vec::new(),
            facts: QueueFacts {
                jobs: Vec::new(),
                submitters: SubmitterNames::new(),
            },
            placed: Vec::new(),
            free: Vec::new(),
            waiting: Vec::new(),
            leaving: Vec::new(),
            refacts: Vec::new(),
            clusters: LiveClusters::new(significant),
        }
    }

    /// Adds `ad`; its id (a place a removed job may have had).
    pub(super) fn add(&mut self, ad: Arc<ClassAd>) -> u32 {
        let id = match self.free.pop() {
            Some(id) => {
                self.ads[id as usize] = Some(ad);
                id
            }
            None => {
                self.ads.push(Some(ad));
                self.facts.jobs.push(JobFacts::default());
                self.placed.push(UNPLACED);
                self.ads.len() as u32 - 1
            }
        };
        self.waiting.push(id);
        id
    }

    /// Job `id`'s ad, when there is such a job.
    pub(super) fn get(&self, id: u32) -> Option<&Arc<ClassAd>> {
        self.ads.get(id as usize)?.as_ref()
    }

    /// Job `id` leaves its class (at the next cycle) and waits to be
    /// placed again, its facts those of no job meanwhile.
    fn unplace(&mut self, id: u32) {
        let p = std::mem::replace(&mut self.placed[id as usize], UNPLACED);
        if p != UNPLACED {
            self.leaving.push(p);
        }
        self.facts.jobs[id as usize] = JobFacts::default();
    }

    /// Job `id` becomes `ad`; false when there is no such job.
    pub(super) fn replace(&mut self, id: u32, ad: Arc<ClassAd>) -> bool {
        let Some(Some(job)) = self.ads.get_mut(id as usize) else {
            return false;
        };
        *job = ad;
        self.unplace(id);
        self.waiting.push(id);
        true
    }

    /// Job `id`, placed in class `class`, becomes `ad`, which its class reads
    /// alike (the caller knows): it stays where it is, its facts read again
    /// at the next cycle (when it is not placed there, it waits to be
    /// classified as [`LiveQueue::replace`] has it). False when there is no
    /// such job.
    pub(super) fn replace_in_class(&mut self, id: u32, class: u32, ad: Arc<ClassAd>) -> bool {
        if self.class_of(id) != Some(class) {
            return self.replace(id, ad);
        }
        let Some(Some(job)) = self.ads.get_mut(id as usize) else {
            return false;
        };
        *job = ad;
        self.refacts.push(id);
        true
    }

    /// The class job `id` is placed in (none while it waits).
    pub(super) fn class_of(&self, id: u32) -> Option<u32> {
        let p = self.placed.get(id as usize)?;
        (*p != UNPLACED).then_some(p.class)
    }

    /// Removes job `id`; its ad, `None` when there is no such job.
    pub(super) fn remove(&mut self, id: u32) -> Option<Arc<ClassAd>> {
        let ad = self.ads.get_mut(id as usize)?.take()?;
        self.unplace(id);
        self.free.push(id);
        Some(ad)
    }

    /// How many jobs.
    pub(super) fn len(&self) -> usize {
        self.ads.len() - self.free.len()
    }

    /// Every job, in queue order (by id), with its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Arc<ClassAd>)> {
        self.ads
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.as_ref().map(|j| (i as u32, j)))
    }

    /// The classes of the jobs.
    pub(super) fn clusters(&self) -> &LiveClusters {
        &self.clusters
    }

    /// Every job classified again from nothing by `significant` (the slots
    /// now read other attributes of jobs).
    pub(super) fn reclassify(&mut self, significant: SignificantAttributes) {
        self.clusters = LiveClusters::new(significant);
        self.leaving.clear();
        self.waiting.clear();
        self.refacts.clear();
        self.placed.fill(UNPLACED);
        self.facts.jobs.fill(JobFacts::default());
        let live = self.ads.iter().enumerate().filter(|(_, a)| a.is_some());
        self.waiting.extend(live.map(|(i, _)| i as u32));
    }

    /// Classifies the jobs waiting (on rayon's threads) and reads their facts
    /// under `knobs`, then lets the changed and removed ones leave.
    pub(super) fn place_waiting(&mut self, knobs: &CycleKnobs) -> Placing {
        let mut waiting = std::mem::take(&mut self.waiting);
        waiting.sort_unstable();
        waiting.dedup();
        waiting.retain(|&i| self.ads[i as usize].is_some() && self.placed[i as usize] == UNPLACED);
        let ads: Vec<Arc<ClassAd>> = waiting
            .iter()
            .map(|&i| self.ads[i as usize].clone().expect("kept"))
            .collect();
        let significant = self.clusters.significant().clone();
        let names = &self.facts.submitters;
        let parts: Vec<_> = ads
            .par_chunks(part_size(ads.len()))
            .map(|part| classify_with_facts(&significant, part, knobs, names))
            .collect();
        let mut placing = Placing {
            classified: ads.len(),
            ..Placing::default()
        };
        let mut at = 0;
        for ((classes, facts), part) in parts.into_iter().zip(ads.chunks(part_size(ads.len()))) {
            let (placed, new) = self.clusters.place(classes, part);
            placing.new_classes.extend(new);
            for (p, f) in placed.into_iter().zip(facts) {
                let place = waiting[at] as usize;
                self.placed[place] = p;
                self.facts.jobs[place] = f;
                at += 1;
            }
        }
        // Jobs that stayed in their classes (and are still placed there):
        // their facts read again.
        let mut refacts = std::mem::take(&mut self.refacts);
        refacts.sort_unstable();
        refacts.dedup();
        refacts.retain(|&i| self.placed[i as usize] != UNPLACED);
        let names = &self.facts.submitters;
        let facts: Vec<JobFacts> = refacts
            .par_chunks(part_size(refacts.len()))
            .flat_map_iter(|part| {
                let mut reader = FactReader::new(knobs, names);
                let ads = &self.ads;
                part.iter()
                    .map(move |&i| reader.read(ads[i as usize].as_ref().expect("kept")))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (&i, f) in refacts.iter().zip(facts) {
            self.facts.jobs[i as usize] = f;
        }
        placing.refacted = refacts.len();
        for p in std::mem::take(&mut self.leaving) {
            if self.clusters.leave(p) {
                placing.gone_classes.push(p.class);
            }
        }
        // Only jobs placed before leave: a class they free is an old one.
        debug_assert!(placing
            .new_classes
            .iter()
            .all(|c| !placing.gone_classes.contains(c)));
        placing
    }

    /// The queue as a cycle reads it, by place: the facts, and the
    /// autoclusters with the ids here (a free place is in the cluster and
    /// class of id 0, which no job of it asks for).
    pub(super) fn snapshot(&self) -> (&QueueFacts, Autoclusters) {
        let (cluster_of, class_of): (Vec<u32>, Vec<u32>) = self
            .placed
            .par_iter()
            .map(|p| match *p {
                UNPLACED => (0, 0),
                p => (p.cluster, p.class),
            })
            .unzip();
        (&self.facts, self.clusters.by_ids(cluster_of, class_of))
    }

    /// Per autocluster id, its number as a fresh read of the queue numbers
    /// it (in order of first appearance); `u32::MAX` for an id no job has.
    pub(super) fn fresh_numbers(&self) -> Vec<u32> {
        let mut numbers = vec![u32::MAX; self.clusters.cluster_ids()];
        let mut next = 0;
        for p in &self.placed {
            if *p != UNPLACED && numbers[p.cluster as usize] == u32::MAX {
                numbers[p.cluster as usize] = next;
                next += 1;
            }
        }
        numbers
    }
}
