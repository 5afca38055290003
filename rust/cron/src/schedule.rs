//! A CronTab schedule (the five fields parsed) and the search for its next run time.
//!
//! The search walks local wall-clock time in the job's time zone, jumping from one allowed
//! month, day, hour and minute to the next (never minute by minute), and turns each
//! candidate into an instant with the zone's rules:
//! - a wall-clock time skipped by a daylight-saving jump does not exist, so it never
//!   matches; the run goes to the next matching time that does exist;
//! - a wall-clock time that happens twice (clocks set back) matches only its first
//!   occurrence, so a job runs once, not twice, at 01:30 on the night clocks go back.

use chrono::{DateTime, Datelike, LocalResult, NaiveDate, NaiveDateTime, TimeDelta, TimeZone};
use chrono_tz::Tz;

use crate::error::CronError;
use crate::field::{Field, FieldSet};

/// How many years past the start year the search looks before deciding a schedule can never
/// match (`CronDayOfMonth = 31, CronMonth = 2`). Eight, not four, because the gap between two
/// Feb 29ths is eight years across a century that is not a leap year (2096 to 2104), and a
/// schedule restricted to Feb 29 must still be found then. Every schedule that can match at
/// all matches within that span: day of week alone repeats weekly, and with both day fields
/// restricted either one matching is enough.
pub const SEARCH_YEARS: i32 = 8;

/// The text of the five fields as given in a job ad; a field not given means `*`.
///
/// The manual: "At least one of these must be defined in order for Condor to calculate a
/// DeferralTime for the job" — [`CronFields::is_empty`] tells the schedd whether a job is
/// a CronTab job at all; [`CronSchedule::parse`] itself accepts all five missing (`* * * * *`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CronFields {
    pub minute: Option<String>,
    pub hour: Option<String>,
    pub day_of_month: Option<String>,
    pub month: Option<String>,
    pub day_of_week: Option<String>,
}

impl CronFields {
    /// Fields from their crontab-order texts: minute, hour, day of month, month, day of week.
    pub fn new(
        minute: &str,
        hour: &str,
        day_of_month: &str,
        month: &str,
        day_of_week: &str,
    ) -> Self {
        let s = |t: &str| Some(t.to_owned());
        CronFields {
            minute: s(minute),
            hour: s(hour),
            day_of_month: s(day_of_month),
            month: s(month),
            day_of_week: s(day_of_week),
        }
    }

    pub fn get(&self, field: Field) -> Option<&str> {
        self.slot(field).as_deref()
    }

    pub fn set(&mut self, field: Field, text: Option<String>) {
        *self.slot_mut(field) = text;
    }

    /// True when no field is given: the job does not use CronTab scheduling.
    pub fn is_empty(&self) -> bool {
        Field::ALL.iter().all(|&f| self.get(f).is_none())
    }

    fn slot(&self, field: Field) -> &Option<String> {
        match field {
            Field::Minute => &self.minute,
            Field::Hour => &self.hour,
            Field::DayOfMonth => &self.day_of_month,
            Field::Month => &self.month,
            Field::DayOfWeek => &self.day_of_week,
        }
    }

    fn slot_mut(&mut self, field: Field) -> &mut Option<String> {
        match field {
            Field::Minute => &mut self.minute,
            Field::Hour => &mut self.hour,
            Field::DayOfMonth => &mut self.day_of_month,
            Field::Month => &mut self.month,
            Field::DayOfWeek => &mut self.day_of_week,
        }
    }
}

/// The five fields parsed: which minutes, hours, days and months a job may run in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CronSchedule {
    minute: FieldSet,
    hour: FieldSet,
    day_of_month: FieldSet,
    month: FieldSet,
    day_of_week: FieldSet,
    /// The day of week was not given, or given as `*` (`*/1`): it does not restrict the
    /// days, even in the union with a restricted day of month.
    day_of_week_wildcard: bool,
}

impl CronSchedule {
    /// Parses every given field; the first field (in crontab order) that fails is reported.
    pub fn parse(fields: &CronFields) -> Result<CronSchedule, CronError> {
        let set = |field| match fields.get(field) {
            Some(text) => FieldSet::parse(field, text),
            None => Ok(FieldSet::all(field)),
        };
        Ok(CronSchedule {
            minute: set(Field::Minute)?,
            hour: set(Field::Hour)?,
            day_of_month: set(Field::DayOfMonth)?,
            month: set(Field::Month)?,
            day_of_week: set(Field::DayOfWeek)?,
            day_of_week_wildcard: fields.get(Field::DayOfWeek).is_none_or(is_wildcard),
        })
    }

    /// The allowed values of one field.
    pub fn field(&self, field: Field) -> FieldSet {
        match field {
            Field::Minute => self.minute,
            Field::Hour => self.hour,
            Field::DayOfMonth => self.day_of_month,
            Field::Month => self.month,
            Field::DayOfWeek => self.day_of_week,
        }
    }

    /// Whether the job may run on `date`. When both day fields are restricted, either one
    /// matching is enough (the manual: "the next runtime will be when either field
    /// matches"); otherwise the restricted one decides. As in HTCondor's CronTab (and
    /// Vixie cron), a day of month is restricted when its set leaves out some day, and a
    /// day of week whenever it is written other than as `*`: `13` with `0-6` is every day,
    /// the 13th with `*` (or `*/1`) only the 13th.
    pub fn day_matches(&self, date: NaiveDate) -> bool {
        let dom = self.day_of_month.contains(date.day());
        let dow = self
            .day_of_week
            .contains(date.weekday().num_days_from_sunday());
        let dom_all = self.day_of_month.is_all(Field::DayOfMonth);
        if dom_all || self.day_of_week_wildcard {
            dom && dow
        } else {
            dom || dow
        }
    }

    /// Whether the wall-clock time `local` (seconds ignored) is in the schedule.
    pub fn matches_local(&self, local: NaiveDateTime) -> bool {
        use chrono::Timelike;
        self.month.contains(local.month())
            && self.day_matches(local.date())
            && self.hour.contains(local.hour())
            && self.minute.contains(local.minute())
    }

    /// See [`next_run`].
    pub fn next_run(&self, after: i64, tz: Tz) -> Option<i64> {
        next_run(self, after, tz)
    }

    /// The first wall-clock time at or after `from` (a whole minute) in the schedule, in a
    /// year no later than `last_year`.
    fn next_local(&self, from: NaiveDateTime, last_year: i32) -> Option<NaiveDateTime> {
        use chrono::Timelike;
        let (mut year, mut month, mut day) = (from.year(), from.month(), from.day());
        let (mut hour, mut minute) = (from.hour(), from.minute());
        // Each pass either returns or moves the cursor forward by at least one minute and
        // resets the smaller fields, so the loop ends once `year` passes `last_year`.
        loop {
            if year > last_year {
                return None;
            }
            match self.month.first_from(month) {
                Some(m) if m == month => {}
                Some(m) => (month, day, hour, minute) = (m, 1, 0, 0),
                None => {
                    (year, month, day, hour, minute) = (year + 1, 1, 1, 0, 0);
                    continue;
                }
            }
            // `None` past the end of the month (Feb 30, Apr 31) or of chrono's calendar.
            let Some(date) = NaiveDate::from_ymd_opt(year, month, day) else {
                (year, month) = if month >= 12 {
                    (year + 1, 1)
                } else {
                    (year, month + 1)
                };
                (day, hour, minute) = (1, 0, 0);
                continue;
            };
            if !self.day_matches(date) {
                (day, hour, minute) = (day + 1, 0, 0);
                continue;
            }
            match self.hour.first_from(hour) {
                Some(h) if h == hour => {}
                Some(h) => (hour, minute) = (h, 0),
                None => {
                    (day, hour, minute) = (day + 1, 0, 0);
                    continue;
                }
            }
            match self.minute.first_from(minute) {
                Some(m) => return date.and_hms_opt(hour, m, 0),
                None => (hour, minute) = (hour + 1, 0),
            }
        }
    }
}

/// The next time the schedule runs, as Unix seconds, at or after `after` rounded up to a
/// whole minute of wall-clock time in `tz`; `None` when it never runs within
/// [`SEARCH_YEARS`] years (e.g. Feb 30) or `after` is outside the calendar.
///
/// Rounding: the manual says the time is "determined based on the current time rounded up
/// to the next minute" ("rounded later in time to the next minute"). Rounding up leaves a
/// time already on a whole minute where it is, so a job whose time is exactly `after` runs
/// at `after` (the result is `>= after`, and `> after` when `after` is not on a minute).
/// A schedd computing the run after one that just happened passes a later `after`.
pub fn next_run(schedule: &CronSchedule, after: i64, tz: Tz) -> Option<i64> {
    let start = DateTime::from_timestamp(after, 0)?
        .with_timezone(&tz)
        .naive_local();
    let mut cursor = round_up_to_minute(start)?;
    let last_year = cursor.year().saturating_add(SEARCH_YEARS);
    let one_minute = TimeDelta::minutes(1);
    while let Some(local) = schedule.next_local(cursor, last_year) {
        match tz.from_local_datetime(&local) {
            // Ambiguous: the earlier of the two is the first occurrence. If that one is
            // already before `after`, we are in the repeat and this time has had its run.
            LocalResult::Single(t) | LocalResult::Ambiguous(t, _) if t.timestamp() >= after => {
                return Some(t.timestamp());
            }
            // Skipped by a jump forward, or a repeat: try the next wall-clock minute.
            _ => cursor = local.checked_add_signed(one_minute)?,
        }
    }
    None
}

/// `*`, `*/1` or a list of them: every value, written as the wildcard.
fn is_wildcard(text: &str) -> bool {
    text.split(',')
        .all(|item| matches!(item.trim(), "*" | "*/1"))
}

fn round_up_to_minute(t: NaiveDateTime) -> Option<NaiveDateTime> {
    use chrono::Timelike;
    let floor = t.with_second(0)?.with_nanosecond(0)?;
    if floor == t {
        Some(t)
    } else {
        floor.checked_add_signed(TimeDelta::minutes(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(min: &str, hour: &str, dom: &str, mon: &str, dow: &str) -> CronSchedule {
        CronSchedule::parse(&CronFields::new(min, hour, dom, mon, dow)).unwrap()
    }

    fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
        chrono::Utc
            .with_ymd_and_hms(y, mo, d, h, mi, s)
            .unwrap()
            .timestamp()
    }

    #[test]
    fn missing_fields_mean_every_value() {
        let fields = CronFields {
            minute: Some("0".into()),
            ..CronFields::default()
        };
        assert!(!fields.is_empty());
        assert!(CronFields::default().is_empty());
        let s = CronSchedule::parse(&fields).unwrap();
        assert_eq!(s, schedule("0", "*", "*", "*", "*"));
    }

    #[test]
    fn first_bad_field_is_reported() {
        let err = CronSchedule::parse(&CronFields::new("1", "24", "*", "13", "*")).unwrap_err();
        assert_eq!(err.field, Some(Field::Hour));
        assert_eq!(err.to_string(), "CronHour: 24 is out of range 0-23");
    }

    #[test]
    fn rounds_up_to_the_minute_and_keeps_an_exact_minute() {
        let every = schedule("*", "*", "*", "*", "*");
        let t = utc(2024, 5, 1, 9, 30, 0);
        assert_eq!(every.next_run(t, Tz::UTC), Some(t));
        assert_eq!(every.next_run(t + 1, Tz::UTC), Some(t + 60));
        assert_eq!(every.next_run(t - 59, Tz::UTC), Some(t));
    }

    #[test]
    fn manual_prep_time_example_top_of_the_hour() {
        let s = schedule("0", "*", "*", "*", "*");
        let at_930 = utc(2024, 5, 1, 9, 30, 0);
        assert_eq!(s.next_run(at_930, Tz::UTC), Some(utc(2024, 5, 1, 10, 0, 0)));
    }

    #[test]
    fn impossible_schedules_give_none() {
        for (dom, mon) in [("31", "2"), ("30", "2"), ("31", "4,6,9,11")] {
            let s = schedule("0", "0", dom, mon, "*");
            assert_eq!(s.next_run(0, Tz::UTC), None, "{dom} {mon}");
        }
    }

    #[test]
    fn outside_the_calendar_gives_none() {
        let every = schedule("*", "*", "*", "*", "*");
        assert_eq!(every.next_run(i64::MAX, Tz::UTC), None);
        assert_eq!(every.next_run(i64::MIN, Tz::UTC), None);
    }

    #[test]
    fn feb_29_across_a_non_leap_century() {
        let s = schedule("0", "0", "29", "2", "*");
        let after = utc(2096, 3, 1, 0, 0, 0);
        assert_eq!(s.next_run(after, Tz::UTC), Some(utc(2104, 2, 29, 0, 0, 0)));
    }
}
