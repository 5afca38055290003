//! Matchmaking and negotiation: which job runs on which slot.
//!
//! - [`analyze`]: why a job does not match: its Requirements clause by clause.
//! - [`pair`]: one job against one slot: symmetric Requirements, the two Ranks.
//! - [`autocluster`]: jobs alike in every attribute a match can read are matched once.
//! - [`by_parent`]: one answer for the procs of a cluster that read alike.
//! - [`deps`]: what an expression evaluated between a job and a slot can read of each.
//! - [`fairshare`]: user priorities from usage, decayed with a half-life.
//! - [`groups`]: accounting groups and hierarchical group quotas.
//! - [`grouped`]: a cycle whose pie is spun group by group, each up to its limit.
//! - [`limits`]: concurrency limits, counted through a cycle.
//! - [`negotiate`]: one negotiation cycle over a pool, in fair-share pie slices.
//! - [`party`]: a submitter's progress through a cycle, a job placed at a time.
//! - [`ordering`]: the pool ranked once for every job that ranks it alike.
//! - [`preempt`]: when a claimed slot may go to another job.
//! - [`prefilter`]: slots a job's Requirements rule out before any pair is evaluated.
//! - [`pslot`]: carving dynamic slots out of partitionable ones.
//! - [`slots`]: the pool as a cycle sees it; slots whose Requirements ignore the job.
//! - [`time_limits`]: the negotiator's time limits, per submitter, schedd, cycle, turn.
//! - [`walk`]: a cluster's search for slots, best first.

pub mod analyze;
pub mod autocluster;
pub mod by_parent;
pub mod deps;
pub mod fairshare;
pub mod grouped;
pub mod groups;
pub mod limits;
pub mod negotiate;
pub mod ordering;
pub mod pair;
pub mod party;
pub mod preempt;
pub mod prefilter;
pub mod pslot;
pub mod slots;
pub mod time_limits;
pub mod walk;

pub use analyze::{analyze, Analysis, Clause};
pub use autocluster::{cluster_jobs, cluster_jobs_apart, Cluster};
pub use fairshare::{Accountant, UserRecord};
pub use grouped::GroupPolicy;
pub use limits::{Limits, LimitsConfig};
pub use negotiate::{negotiate, Config, Cycle, Match, Rejection, Submitter};
pub use pair::{rank_value, PairEval};
pub use preempt::Preemption;
pub use pslot::{carve, Request};
pub use time_limits::TimeLimits;
