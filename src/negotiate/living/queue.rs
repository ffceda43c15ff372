//! A living pool's jobs: each at a place (its id), with its facts and its
//! autocluster and match class. Changed and new jobs wait until the next
//! cycle and are then classified together; a job that changes leaves its
//! class only after its new one is found, so a class that keeps jobs keeps
//! its id (and its candidates).

use crate::ad::ClassAd;
use crate::matching::{Autoclusters, LiveClusters, Placed, SignificantAttributes};
use crate::negotiate::jobs::{classify_with_facts, JobFacts, QueueFacts};
use crate::negotiate::knobs::CycleKnobs;
use crate::negotiate::submitters::SubmitterNames;
use rayon::prelude::*;
use std::sync::Arc;

/// Jobs classified per part on rayon's threads.
const PART: usize = 4096;

/// One job.
#[derive(Debug)]
struct LiveJob {
    ad: Arc<ClassAd>,
    facts: JobFacts,
    /// `None` until the next cycle places it.
    placed: Option<Placed>,
}

/// What placing the waiting jobs did.
#[derive(Debug, Default)]
pub(super) struct Placing {
    /// Jobs classified.
    pub(super) classified: usize,
    /// Classes no job had before (their candidates are to be worked out).
    pub(super) new_classes: Vec<u32>,
    /// Classes no job has any more.
    pub(super) gone_classes: Vec<u32>,
}

/// The jobs of a living pool.
#[derive(Debug)]
pub(super) struct LiveQueue {
    jobs: Vec<Option<LiveJob>>,
    free: Vec<u32>,
    /// Places of jobs added or changed since the last cycle (perhaps gone
    /// again, perhaps listed twice).
    waiting: Vec<u32>,
    /// Where jobs that changed or left were placed: they leave their classes
    /// once the waiting jobs are placed.
    leaving: Vec<Placed>,
    names: SubmitterNames,
    clusters: LiveClusters,
}

impl LiveQueue {
    /// No jobs, clustered by `significant`.
    pub(super) fn new(significant: SignificantAttributes) -> LiveQueue {
        LiveQueue {
            jobs: Vec::new(),
            free: Vec::new(),
            waiting: Vec::new(),
            leaving: Vec::new(),
            names: SubmitterNames::new(),
            clusters: LiveClusters::new(significant),
        }
    }

    /// Adds `ad`; its id (a place a removed job may have had).
    pub(super) fn add(&mut self, ad: Arc<ClassAd>) -> u32 {
        let job = Some(LiveJob {
            ad,
            facts: JobFacts::default(),
            placed: None,
        });
        let id = match self.free.pop() {
            Some(id) => {
                self.jobs[id as usize] = job;
                id
            }
            None => {
                self.jobs.push(job);
                self.jobs.len() as u32 - 1
            }
        };
        self.waiting.push(id);
        id
    }

    /// Job `id`'s ad, when there is such a job.
    pub(super) fn get(&self, id: u32) -> Option<&Arc<ClassAd>> {
        self.jobs.get(id as usize)?.as_ref().map(|j| &j.ad)
    }

    /// Job `id` becomes `ad`; false when there is no such job.
    pub(super) fn replace(&mut self, id: u32, ad: Arc<ClassAd>) -> bool {
        let Some(Some(job)) = self.jobs.get_mut(id as usize) else {
            return false;
        };
        job.ad = ad;
        if let Some(p) = job.placed.take() {
            self.leaving.push(p);
            self.waiting.push(id);
        }
        true
    }

    /// Removes job `id`; its ad, `None` when there is no such job.
    pub(super) fn remove(&mut self, id: u32) -> Option<Arc<ClassAd>> {
        let job = self.jobs.get_mut(id as usize)?.take()?;
        if let Some(p) = job.placed {
            self.leaving.push(p);
        }
        self.free.push(id);
        Some(job.ad)
    }

    /// How many jobs.
    pub(super) fn len(&self) -> usize {
        self.jobs.len() - self.free.len()
    }

    /// Every job, in queue order (by id), with its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Arc<ClassAd>)> {
        self.jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.as_ref().map(|j| (i as u32, &j.ad)))
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
        for (i, j) in self.jobs.iter_mut().enumerate() {
            if let Some(j) = j {
                j.placed = None;
                self.waiting.push(i as u32);
            }
        }
    }

    /// Classifies the jobs waiting (on rayon's threads) and reads their facts
    /// under `knobs`, then lets the changed and removed ones leave.
    pub(super) fn place_waiting(&mut self, knobs: &CycleKnobs) -> Placing {
        let mut waiting = std::mem::take(&mut self.waiting);
        waiting.sort_unstable();
        waiting.dedup();
        waiting.retain(|&i| {
            self.jobs[i as usize]
                .as_ref()
                .is_some_and(|j| j.placed.is_none())
        });
        let ads: Vec<Arc<ClassAd>> = waiting
            .iter()
            .map(|&i| self.jobs[i as usize].as_ref().expect("kept").ad.clone())
            .collect();
        let significant = self.clusters.significant().clone();
        let names = &self.names;
        let parts: Vec<_> = ads
            .par_chunks(PART)
            .map(|part| classify_with_facts(&significant, part, knobs, names))
            .collect();
        let mut placing = Placing {
            classified: ads.len(),
            ..Placing::default()
        };
        let mut at = 0;
        for ((classes, facts), part) in parts.into_iter().zip(ads.chunks(PART)) {
            let (placed, new) = self.clusters.place(classes, part);
            placing.new_classes.extend(new);
            for (p, f) in placed.into_iter().zip(facts) {
                let job = self.jobs[waiting[at] as usize].as_mut().expect("kept");
                job.placed = Some(p);
                job.facts = f;
                at += 1;
            }
        }
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

    /// The queue as a cycle reads it, every job placed: the facts, the
    /// autoclusters numbered as a fresh read numbers them, per class of those
    /// its id here, and per job of the queue its id.
    pub(super) fn snapshot(&self) -> (QueueFacts, Autoclusters, Vec<u32>, Vec<u32>) {
        let live = || {
            self.jobs
                .iter()
                .enumerate()
                .filter_map(|(i, j)| Some((i, j.as_ref()?)))
        };
        let ids: Vec<u32> = live().map(|(i, _)| i as u32).collect();
        // The submitters of the jobs there are now, numbered afresh: a name
        // only a removed job had is no submitter of the queue (the cycle
        // lists the priorities of no submitter).
        let names = SubmitterNames::new();
        let mut renumbered = vec![None; self.names.len()];
        let facts: Vec<JobFacts> = live()
            .map(|(_, j)| {
                let mut f = j.facts.clone();
                f.submitter = f.submitter.map(|id| {
                    *renumbered[id.index()].get_or_insert_with(|| names.id(&self.names.name(id)))
                });
                f
            })
            .collect();
        let (clusters, classes) = self
            .clusters
            .numbered(live().map(|(_, j)| (j.placed.expect("placed"), &j.ad)));
        let facts = QueueFacts {
            jobs: facts,
            submitters: names,
        };
        (facts, clusters, classes, ids)
    }
}
