//! Deep input without stack overflow: recursion over a tree moves onto a heap-allocated
//! stack segment when the thread's own stack runs low.
//!
//! Why: a Python thread, a Trio worker thread or a test thread may have a stack of a few
//! hundred KiB, and a legitimate expression (a chain of 5,000 `||` clauses, nesting near
//! the parser's limit) recurses deeper than that, most of all in an unoptimised build.

/// Room left before a new segment is taken. It covers the frames between two checks.
const RED_ZONE: usize = 192 * 1024;

/// Size of each new segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Run `f`, on a fresh stack segment if less than the red zone is left.
#[inline]
pub fn guard<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
