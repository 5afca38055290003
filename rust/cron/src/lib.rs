//! HTCondor CronTab scheduling: the five `Cron*` fields of a job ad, parsed, and the next
//! time they allow a run, in a given time zone.
//!
//! - [`field`]: one field's name and allowed values, and its text parsed to a bit set;
//! - [`schedule`]: the five fields together and the search for the next run time;
//! - [`zone`]: the time zone a schedule is read in (IANA name, or the local zone);
//! - [`deferral`]: what the schedd and starter do with the result, used as DeferralTime
//!   (CronPrepTime, CronWindow);
//! - [`error`]: [`CronError`], the crate's one error type.
//!
//! ```
//! use condorx_cron::{next_run, parse_tz, CronFields, CronSchedule};
//!
//! // 23 minutes past every second hour (an example from the HTCondor manual).
//! let fields = CronFields { minute: Some("23".into()), hour: Some("0-23/2".into()), ..Default::default() };
//! let schedule = CronSchedule::parse(&fields)?;
//! let chicago = parse_tz("America/Chicago")?;
//! // 2024-05-01 09:30:00 in Chicago (CDT, UTC-5) is 14:30:00 UTC.
//! let after = 1_714_573_800;
//! // Next: 10:23 local, 15:23 UTC.
//! assert_eq!(next_run(&schedule, after, chicago), Some(after + 53 * 60));
//!
//! let err = CronSchedule::parse(&CronFields::new("0", "25", "*", "*", "*")).unwrap_err();
//! assert_eq!(err.to_string(), "CronHour: 25 is out of range 0-23");
//! # Ok::<(), condorx_cron::CronError>(())
//! ```

pub mod deferral;
pub mod error;
pub mod field;
pub mod schedule;
pub mod zone;

pub use deferral::{on_arrival, ready_to_send, Arrival};
pub use error::{CronError, CronErrorKind};
pub use field::{Field, FieldSet};
pub use schedule::{next_run, CronFields, CronSchedule, SEARCH_YEARS};
pub use zone::{local_tz, parse_tz, Tz};
