//! Profiling aid: symmetric matching of the benchmark workload, in Rust alone.
//!
//!     cargo run --release -p condorx-matchmaking --example matchbench -- SLOTS.ads JOBS.ads

// A profiling harness: failing loudly on bad input is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::Instant;

use condorx_classad::{parse_old_ads, symmetric_match};
use condorx_matchmaking::PairEval;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let slots_text = std::fs::read_to_string(&args[0]).unwrap();
    let jobs_text = std::fs::read_to_string(&args[1]).unwrap();
    let t = Instant::now();
    let slots: Vec<_> = parse_old_ads(&slots_text)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    let jobs: Vec<_> = parse_old_ads(&jobs_text)
        .unwrap()
        .into_iter()
        .map(Arc::new)
        .collect();
    println!(
        "parsed {} slots, {} jobs in {:?}",
        slots.len(),
        jobs.len(),
        t.elapsed()
    );
    let t = Instant::now();
    let mut n = 0usize;
    for j in &jobs {
        for s in &slots {
            n += usize::from(symmetric_match(j, s));
        }
    }
    let pairs = jobs.len() * slots.len();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "job-major:  {n} matches of {pairs} pairs in {secs:.2}s: {:.0} pairs/s",
        pairs as f64 / secs
    );
    let t = Instant::now();
    let mut n = 0usize;
    let mut pair = PairEval::new();
    for s in &slots {
        for j in &jobs {
            n += usize::from(pair.symmetric(j, s));
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "slot-major: {n} matches of {pairs} pairs in {secs:.2}s: {:.0} pairs/s",
        pairs as f64 / secs
    );
}
