//! The shared-ordering search finds exactly what evaluating every slot for every cluster
//! finds: the same matches, in the same order, with the same preemptions and rejections.
//! Pools are random: claimed and partitionable slots, START and RANK policies that read
//! the job, slot attributes written as expressions, job Ranks that read job attributes
//! directly and through the slot, and every negotiator rank knob.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::case;
use condorx_classad::unparse;
use condorx_matchmaking::{negotiate, Config, Cycle};
use proptest::prelude::*;

/// Everything a cycle decided, in a comparable form.
fn decisions(c: &Cycle) -> Vec<String> {
    let mut out: Vec<String> = c
        .matches
        .iter()
        .map(|m| {
            let dynamic = m
                .dynamic_slot
                .as_ref()
                .map(|d| unparse(d.lookup("Name").unwrap()));
            format!(
                "match {} {} {} {} {:?} {:?}",
                m.submitter, m.job, m.slot, m.rank, m.preempts, dynamic
            )
        })
        .collect();
    out.extend(
        c.rejections
            .iter()
            .map(|r| format!("reject {} {} {}", r.submitter, r.job, r.reason)),
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn shared_orderings_decide_as_evaluating_everything(seed in any::<u64>()) {
        let (slots, submitters, config) = case(seed);
        let exhaustive = Config { share_orderings: false, ..config.clone() };
        let fast = negotiate(&slots, &submitters, &config);
        let slow = negotiate(&slots, &submitters, &exhaustive);
        prop_assert_eq!(decisions(&fast), decisions(&slow));
        prop_assert!(fast.pairs_evaluated <= slow.pairs_evaluated);
    }
}
