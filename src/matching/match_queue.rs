//! A queue of jobs made ready to match against a [`SlotSet`]: clustered into
//! HTCondor's autoclusters and match classes (the significant attributes come
//! from the slots and the negotiator's policy), with only a job per class kept,
//! so a queue of millions of jobs read from a file in parts holds a few
//! thousand ads; or every job a class of its own, for comparison.
//!
//! [`QueueReader`] does the clustering, from ads in memory or from a file read
//! in parts on every core; [`SlotSet::pairs`] and [`SlotSet::candidates_by_job`]
//! match the result.
//!
//! [`SlotSet`]: super::SlotSet
//! [`SlotSet::pairs`]: super::SlotSet::pairs
//! [`SlotSet::candidates_by_job`]: super::SlotSet::candidates_by_job

use super::{AutoclusterBuilder, Autoclusters, KeptPart, NegotiatorPolicy, SignificantAttributes};
use crate::ad::files::read_reader_in_parts;
use crate::ad::ClassAd;
use std::io::BufRead;
use std::sync::Arc;

/// A queue made ready to match.
pub struct MatchQueue {
    pub(super) how: Classes,
}

/// How a queue's jobs are put into classes.
pub(super) enum Classes {
    /// HTCondor's autoclusters, refined into match classes.
    Clustered(Autoclusters),
    /// Every job a class of its own.
    EachJob(Vec<Arc<ClassAd>>),
}

impl MatchQueue {
    /// Every job of `jobs` a class of its own, evaluated on its own (to
    /// compare with the classes).
    pub fn each_job(jobs: Vec<Arc<ClassAd>>) -> MatchQueue {
        MatchQueue {
            how: Classes::EachJob(jobs),
        }
    }

    /// How many jobs.
    pub fn len(&self) -> usize {
        match &self.how {
            Classes::Clustered(c) => c.jobs_len(),
            Classes::EachJob(jobs) => jobs.len(),
        }
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many autoclusters, when the jobs were clustered.
    pub fn autoclusters(&self) -> Option<usize> {
        match &self.how {
            Classes::Clustered(c) => Some(c.len()),
            Classes::EachJob(_) => None,
        }
    }

    /// How many classes the jobs are evaluated in.
    pub fn class_count(&self) -> usize {
        self.representatives().len()
    }

    /// The job that stands for each class (its first), by class.
    pub fn representatives(&self) -> &[Arc<ClassAd>] {
        match &self.how {
            Classes::Clustered(c) => c.representatives(),
            Classes::EachJob(jobs) => jobs,
        }
    }

    /// HTCondor's autoclusters of the jobs, when they were clustered (for
    /// analysis: `condor_q -better-analyze` takes a job per autocluster).
    pub fn clusters(&self) -> Option<&Autoclusters> {
        match &self.how {
            Classes::Clustered(c) => Some(c),
            Classes::EachJob(_) => None,
        }
    }

    /// [`MatchQueue::clusters`], given back.
    pub fn into_clusters(self) -> Option<Autoclusters> {
        match self.how {
            Classes::Clustered(c) => Some(c),
            Classes::EachJob(_) => None,
        }
    }

    /// Per class, its first job's index in the queue and how many jobs it
    /// stands for.
    pub fn class_sizes(&self) -> Vec<(usize, usize)> {
        match &self.how {
            Classes::Clustered(c) => c
                .classes()
                .iter()
                .map(|jobs| (jobs[0] as usize, jobs.len()))
                .collect(),
            Classes::EachJob(jobs) => (0..jobs.len()).map(|j| (j, 1)).collect(),
        }
    }
}

/// Clusters queues against a set of slots under a negotiator's policy: the
/// attributes that decide a job's class are worked out once, from the slots
/// and the policy (HTCondor's significant attributes).
pub struct QueueReader {
    significant: SignificantAttributes,
}

impl QueueReader {
    /// A reader for queues to match against `slots` under `policy`.
    pub fn new(slots: &[Arc<ClassAd>], policy: &NegotiatorPolicy) -> QueueReader {
        QueueReader {
            significant: SignificantAttributes::compute(slots, policy),
        }
    }

    /// `jobs` clustered, a job per class kept.
    pub fn cluster(&self, jobs: &[ClassAd]) -> MatchQueue {
        let mut builder = AutoclusterBuilder::new(self.significant.clone());
        builder.add(self.significant.classify(jobs), jobs);
        MatchQueue {
            how: Classes::Clustered(builder.finish()),
        }
    }

    /// The queue `input` holds (`file` names it in errors), read in parts on
    /// every core and each part clustered as it comes, only a job per class
    /// kept. `each_part` is called on the reading thread with every part's
    /// ads, in any order, and `take_part` with what it gave, in queue order:
    /// a caller's way to keep something of every job (its id, say).
    pub fn read<T: Send>(
        &self,
        input: impl BufRead + Send,
        file: &str,
        each_part: impl Fn(&[ClassAd]) -> T + Sync,
        mut take_part: impl FnMut(T),
    ) -> Result<MatchQueue, String> {
        let mut builder = AutoclusterBuilder::new(self.significant.clone());
        // Each part's ads are dropped on the thread that read them (but for
        // the few a new class keeps), not on the one that adds the parts.
        let classify = |ads: Vec<ClassAd>| {
            let mine = each_part(&ads);
            (self.significant.classify(&ads).keeping_firsts(ads), mine)
        };
        read_reader_in_parts(
            input,
            file,
            classify,
            |(part, mine): (KeptPart<ClassAd>, T)| {
                take_part(mine);
                builder.add_kept(part)
            },
        )?;
        Ok(MatchQueue {
            how: Classes::Clustered(builder.finish()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::read_ads;
    use crate::ad::test_ads as ads;

    #[test]
    fn a_queue_read_in_parts_is_the_queue_clustered_in_memory() {
        let slots = ads("Cpus = 4\nRequirements = true\n");
        let reader = QueueReader::new(&slots, &NegotiatorPolicy::default());
        let text: String = (0..300)
            .map(|i| format!("Requirements = TARGET.Cpus >= {}\nJobId = {i}\n\n", i % 3))
            .collect();
        let jobs = read_ads(&text, "q").unwrap();
        let whole = reader.cluster(&jobs);
        let mut seen = 0;
        let read = reader
            .read(text.as_bytes(), "q", |part| part.len(), |n| seen += n)
            .unwrap();
        assert_eq!(seen, 300);
        assert_eq!((read.len(), whole.len()), (300, 300));
        assert_eq!(read.class_count(), 3);
        assert_eq!(read.class_sizes(), whole.class_sizes());
        assert_eq!(read.class_sizes(), [(0, 100), (1, 100), (2, 100)]);
        let each = MatchQueue::each_job(ads("Requirements = true\n\nRequirements = true\n"));
        assert_eq!((each.class_count(), each.autoclusters()), (2, None));
        let err = reader
            .read("A = \n".as_bytes(), "bad.ads", |_| (), |_| ())
            .err()
            .unwrap();
        assert!(err.starts_with("bad.ads:1:"), "{err}");
    }
}
