//! Profiling aid: parse an old-syntax file of ads in Rust alone.
//!
//!     cargo run --release -p condorx-classad --example parsebench -- SLOTS.ads

// A profiling harness: failing loudly on bad input is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let ads = condorx_classad::parse_old_ads(&text).unwrap();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{} ads in {secs:.3}s: {:.0} ads/s",
            ads.len(),
            ads.len() as f64 / secs
        );
    }
}
