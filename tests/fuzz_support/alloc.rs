//! Per-thread allocation counting.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// A global allocator that counts the bytes each thread holds and the
/// most it held since [`reset_peak`]: the memory an input costs, measured
/// on the thread that loads it. Install with
/// `#[global_allocator] static A: Counting = Counting;`.
pub struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn held_add(n: isize) {
    let _ = HELD.try_with(|h| {
        let v = h.get() + n;
        h.set(v);
        let _ = PEAK.try_with(|p| {
            if v > p.get() {
                p.set(v)
            }
        });
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            held_add(l.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            held_add(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        held_add(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            held_add(new as isize - l.size() as isize);
        }
        q
    }
}

/// Starts a new peak at what this thread holds now.
pub fn reset_peak() {
    let now = HELD.with(Cell::get);
    PEAK.with(|p| p.set(now));
}

/// The most this thread held above `base` since [`reset_peak`].
pub fn peak_above(base: isize) -> u64 {
    (PEAK.with(Cell::get) - base).max(0) as u64
}

pub fn held() -> isize {
    HELD.with(Cell::get)
}
