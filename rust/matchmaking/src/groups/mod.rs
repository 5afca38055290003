//! Accounting groups under hierarchical group quotas, as HTCondor's negotiator shares a
//! pool among them.
//!
//! - [`tree`]: GROUP_NAMES as a tree, and the group each submitter is charged to.
//! - [`share`]: each group's quota, and its allocation with surplus.
//! - [`round_robin`]: whole slots from fractional allocations.
//! - [`rounds`]: the allocation rounds of a cycle, the groups' order and their limits.

pub mod round_robin;
pub mod rounds;
pub mod share;
pub mod tree;

pub use rounds::{negotiate_groups, subtree_usage, Inputs, Negotiate, Outcome, Settings};
pub use share::{Share, Shares};
pub use tree::{Group, GroupSpec, Quota, Tree, ROOT};
