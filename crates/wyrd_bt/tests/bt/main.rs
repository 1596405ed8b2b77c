//! The integration tests of `wyrd_bt`.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod blackboard_nodes;
mod breakpoints;
mod conditions;
mod conformance;
mod data_model;
mod layering;
mod malformed;
mod no_dithering;
mod node_table;
mod persist;
mod plugin;
mod resume;
mod rules;
mod schemes;
mod tiers;
mod utility;

/// Counts this thread's allocations while `f` runs (other tests' threads
/// are not counted).
pub(crate) fn count_allocations(f: impl FnOnce()) -> usize {
    COUNTING.with(|c| c.set(true));
    ALLOCATIONS.with(|a| a.set(0));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(|a| a.get())
}

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static ALLOCATIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The system allocator, counting the allocations of threads that asked.
struct Counting;

// SAFETY: every call is forwarded to the system allocator unchanged.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
            let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
        }
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
            let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
        }
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { std::alloc::System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;
