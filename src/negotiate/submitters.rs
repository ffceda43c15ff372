//! The submitters' names met while a queue's facts are read, each numbered once,
//! so that a job's facts hold a 4-byte number rather than a name: a million
//! jobs' facts take less fresh memory, and the cycle groups jobs by submitter
//! with an array index rather than a hash of the name. Also how HTCondor forms
//! a submitter's name from a job, and how names with and without their domain
//! are taken as one.

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

/// The name HTCondor's schedd gives the submitter of a job, the name the
/// negotiator and `condor_userprio` know it by (negotiator.md section 1):
/// the job's `AccountingGroup` when it is set and differs from the owner,
/// else the owner, followed by `@` and the accounting domain. The owner is
/// the job's `User` less its `@domain` (`Owner` when there is no `User`).
/// `schedd.cpp`, `Scheduler::get_submitter_and_owner`, picks the group or the
/// owner; the submitter ad's `Name` appends `@` and `ACCOUNTING_DOMAIN`
/// (`USER_IS_THE_NEW_OWNER` is false in HTCondor 25). `ACCOUNTING_DOMAIN`
/// defaults to `UID_DOMAIN`, the domain the schedd wrote into `User`, so the
/// domain is the one in `User`; a job without one takes `domain` (the
/// configuration's `ACCOUNTING_DOMAIN`, else `UID_DOMAIN`), and with none of
/// these the name has no domain. Empty strings count as unset. `None` when the
/// job has no group and no owner.
///
/// ```
/// use classad::negotiate::submitters::submitter_name;
/// let user = Some("alice@example.org");
/// assert_eq!(submitter_name(Some("group_cms.alice"), user, Some("alice"), None).as_deref(),
///            Some("group_cms.alice@example.org"));
/// assert_eq!(submitter_name(None, user, Some("alice"), None).as_deref(), Some("alice@example.org"));
/// assert_eq!(submitter_name(None, None, Some("bob"), Some("d.org")).as_deref(), Some("bob@d.org"));
/// assert_eq!(submitter_name(None, None, Some("bob"), None).as_deref(), Some("bob"));
/// ```
pub fn submitter_name(
    accounting_group: Option<&str>,
    user: Option<&str>,
    owner: Option<&str>,
    domain: Option<&str>,
) -> Option<String> {
    let (user_owner, user_domain) = match set(user) {
        Some(u) => match u.rsplit_once('@') {
            Some((o, d)) => (set(Some(o)), set(Some(d))),
            None => (Some(u), None),
        },
        None => (None, None),
    };
    let owner = user_owner.or(set(owner));
    let base = match set(accounting_group) {
        Some(g) if Some(g) != owner => g,
        _ => owner?,
    };
    Some(match user_domain.or(set(domain)) {
        Some(d) => format!("{base}@{d}"),
        None => base.to_string(),
    })
}

/// `s` unless it is empty.
fn set(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// A submitter's name less its `@domain` (from the last `@`), as
/// `condor_userprio` users often write it.
pub fn without_domain(name: &str) -> &str {
    name.rsplit_once('@').map_or(name, |(bare, _)| bare)
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
    fn names_as_the_schedd_forms_them() {
        // schedd.cpp, Scheduler::get_submitter_and_owner: the group when set and
        // not the owner's own name, else the owner; then "@" ACCOUNTING_DOMAIN.
        for (group, user, owner, domain, want) in [
            (Some("g.a"), Some("a@x"), Some("a"), None, Some("g.a@x")),
            (
                Some("g.a"),
                Some("a@x"),
                Some("a"),
                Some("cfg"),
                Some("g.a@x"),
            ),
            (Some("a"), Some("a@x"), Some("a"), None, Some("a@x")),
            (Some(""), Some("a@x"), Some("a"), None, Some("a@x")),
            (None, Some("a@x"), None, None, Some("a@x")),
            (None, Some("a"), None, Some("cfg"), Some("a@cfg")),
            (None, None, Some("a"), Some("cfg"), Some("a@cfg")),
            (None, None, Some("a"), None, Some("a")),
            (Some("g.a"), None, None, None, Some("g.a")),
            (Some("g.a"), None, None, Some("cfg"), Some("g.a@cfg")),
            (None, Some(""), Some(""), None, None),
            (None, None, None, Some("cfg"), None),
            // The owner is User's, ahead of Owner's.
            (None, Some("u@x"), Some("o"), None, Some("u@x")),
            (Some("u"), Some("u@x"), Some("o"), None, Some("u@x")),
        ] {
            assert_eq!(
                submitter_name(group, user, owner, domain).as_deref(),
                want,
                "{group:?} {user:?} {owner:?} {domain:?}"
            );
        }
        assert_eq!(without_domain("g.a@x.org"), "g.a");
        assert_eq!(without_domain("g.a"), "g.a");
    }

    #[test]
    fn shared_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<SubmitterNames>();
        assert_eq!(std::mem::size_of::<Option<SubmitterId>>(), 4);
    }
}
