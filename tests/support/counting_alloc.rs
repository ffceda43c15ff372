//! An allocator that counts this thread's allocations and the bytes they ask for,
//! for tests that hold code to what it allocates. A test file takes it with
//! `#[path = "support/counting_alloc.rs"] mod counting_alloc;`, which installs it
//! as the test binary's global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    ALLOCATIONS.with(|n| n.set(n.get() + 1));
    BYTES.with(|n| n.set(n.get() + bytes as u64));
}

// SAFETY: every call is passed to the system allocator unchanged; the counters
// are const-initialised thread locals, which themselves never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract is forwarded as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// How many allocations (and reallocations) this thread has made.
#[allow(dead_code)]
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// How many bytes this thread's allocations (and reallocations) have asked for.
#[allow(dead_code)]
pub fn bytes() -> u64 {
    BYTES.with(Cell::get)
}
