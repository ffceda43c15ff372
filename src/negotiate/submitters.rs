//! The submitters' names met while a queue's facts are read, each numbered once,
//! so that a job's facts hold a 4-byte number rather than a name: a million
//! jobs' facts take less fresh memory, and the cycle groups jobs by submitter
//! with an array index rather than a hash of the name.

use std::num::NonZeroU32;
use std::sync::{Arc, RwLock};

/// A submitter's number in the [`SubmitterNames`] that gave it out. Numbers are
/// given in the order names are first asked for, which threads reading parts of
/// a queue at once make unpredictable: they say nothing of any order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SubmitterId(NonZeroU32);

impl SubmitterId {
    /// The number as an index (0 for the first name).
    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The names behind [`SubmitterId`]s, shared by every thread reading a queue:
/// each reader asks once per name it meets, so the lock is rarely taken.
#[derive(Debug, Default)]
pub struct SubmitterNames {
    inner: RwLock<Names>,
}

#[derive(Debug, Default)]
struct Names {
    /// By number.
    names: Vec<Arc<str>>,
    ids: ahash::AHashMap<Arc<str>, SubmitterId>,
}

impl SubmitterNames {
    /// No names yet.
    pub fn new() -> SubmitterNames {
        SubmitterNames::default()
    }

    /// The number of `name`, given now if it has none yet.
    pub fn id(&self, name: &str) -> SubmitterId {
        if let Some(&id) = self.read().ids.get(name) {
            return id;
        }
        let mut w = self.inner.write().unwrap_or_else(|e| e.into_inner());
        if let Some(&id) = w.ids.get(name) {
            return id;
        }
        let number = u32::try_from(w.names.len() + 1).expect("fewer than 2^32 submitters");
        let id = SubmitterId(NonZeroU32::new(number).expect("numbers start at 1"));
        let name: Arc<str> = Arc::from(name);
        w.names.push(name.clone());
        w.ids.insert(name, id);
        id
    }

    /// The name numbered `id`. Panics when `id` was given out by another table.
    pub fn name(&self, id: SubmitterId) -> Arc<str> {
        self.read().names[id.index()].clone()
    }

    /// Every name, by number.
    pub fn names(&self) -> Vec<Arc<str>> {
        self.read().names.clone()
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.read().names.len()
    }

    /// True when no name was given a number.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Names> {
        // A panic elsewhere while the lock was held left the table whole: a
        // name is pushed and filed before the guard drops.
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_number_on_every_thread() {
        let names = SubmitterNames::new();
        let ids: Vec<Vec<SubmitterId>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|t| {
                    let names = &names;
                    s.spawn(move || {
                        (0..100)
                            .map(|i| names.id(&format!("user{}", (i + t * 7) % 10)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(names.len(), 10);
        for (t, ids) in ids.iter().enumerate() {
            for (i, &id) in ids.iter().enumerate() {
                assert_eq!(&*names.name(id), format!("user{}", (i + t * 7) % 10));
            }
        }
        let all = names.names();
        for (i, n) in all.iter().enumerate() {
            assert_eq!(names.id(n).index(), i);
        }
    }

    #[test]
    fn shared_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SubmitterNames>();
        assert_eq!(std::mem::size_of::<Option<SubmitterId>>(), 4);
    }
}
