//! Properties: fields parse to the values a plain model of the syntax gives; parsing and the
//! search never panic; and `next_run` gives the first matching minute, checked against a
//! brute-force minute-by-minute scan over a short window (often across a DST change).

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::OnceLock;

use chrono::{DateTime, Datelike, NaiveDateTime, Offset, TimeZone, Timelike};
use condorx_cron::{next_run, CronFields, CronSchedule, Field, FieldSet, Tz};
use proptest::prelude::*;

/// Zones with daylight saving of one hour, of 30 minutes (Lord Howe), of two hours (Troll),
/// in the southern hemisphere, and with offsets that are not whole hours. All have whole-
/// minute offsets in the years tested, so local and UTC minutes line up.
const ZONES: [Tz; 9] = [
    Tz::UTC,
    Tz::America__Chicago,
    Tz::Europe__Berlin,
    Tz::Australia__Lord_Howe,
    Tz::Antarctica__Troll,
    Tz::America__Sao_Paulo,
    Tz::Pacific__Chatham,
    Tz::America__St_Johns,
    Tz::Asia__Kathmandu,
];

/// 1990-01-01 and 2060-01-01, UTC.
const FROM: i64 = 631_152_000;
const TO: i64 = 2_840_140_800;

/// How far the brute-force scan looks: two days of minutes.
const WINDOW_MINUTES: i64 = 2 * 24 * 60;

#[derive(Clone, Debug)]
enum Item {
    Star(Option<u32>),
    One(u32),
    Range(u32, u32, Option<u32>),
}

impl Item {
    fn text(&self) -> String {
        let step = |s: &Option<u32>| s.map(|s| format!("/{s}")).unwrap_or_default();
        match self {
            Item::Star(s) => format!("*{}", step(s)),
            Item::One(v) => v.to_string(),
            Item::Range(a, b, s) => format!("{a}-{b}{}", step(s)),
        }
    }

    /// The values the manual says the item means, with Sunday as 7 folded into 0.
    fn values(&self, field: Field) -> Vec<u32> {
        let (lo, hi, step) = match *self {
            Item::Star(s) => (field.min(), field.max(), s.unwrap_or(1)),
            Item::One(v) => (v, v, 1),
            Item::Range(a, b, s) => (a, b, s.unwrap_or(1)),
        };
        let mut out = Vec::new();
        let mut v = lo;
        while v <= hi {
            out.push(if field == Field::DayOfWeek && v == 7 {
                0
            } else {
                v
            });
            v += step;
        }
        out
    }
}

fn item(field: Field) -> impl Strategy<Value = Item> {
    let (min, max) = (field.min(), field.max());
    let step = prop::option::of(1..=max + 1);
    prop_oneof![
        step.clone().prop_map(Item::Star),
        (min..=max).prop_map(Item::One),
        (min..=max, min..=max, step).prop_map(|(a, b, s)| Item::Range(a.min(b), a.max(b), s)),
    ]
}

fn field_items() -> impl Strategy<Value = (Field, Vec<Item>)> {
    prop::sample::select(Field::ALL.to_vec())
        .prop_flat_map(|f| (Just(f), prop::collection::vec(item(f), 1..4)))
}

fn field_text(field: Field) -> impl Strategy<Value = Option<Vec<Item>>> {
    // Half the fields are left as `*` (often by not giving them), so that many schedules
    // run within the scanned window.
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(vec![Item::Star(None)])),
        2 => prop::collection::vec(item(field), 1..4).prop_map(Some),
    ]
}

fn fields() -> impl Strategy<Value = CronFields> {
    Field::ALL.map(field_text).prop_map(|items| {
        let mut out = CronFields::default();
        for (field, items) in Field::ALL.into_iter().zip(items) {
            let text =
                items.map(|items| items.iter().map(Item::text).collect::<Vec<_>>().join(","));
            out.set(field, text);
        }
        out
    })
}

/// Instants where a zone in `ZONES` changes its offset, 2023-2025, found hourly.
fn transitions() -> &'static [(Tz, i64)] {
    static FOUND: OnceLock<Vec<(Tz, i64)>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let offset = |tz: &Tz, t: i64| tz.offset_from_utc_datetime(&utc(t).naive_utc()).fix();
        let mut out = Vec::new();
        for tz in &ZONES {
            let mut t = 1_672_531_200; // 2023-01-01
            while t < 1_767_225_600 {
                // 2026-01-01
                if offset(tz, t) != offset(tz, t + 3600) {
                    out.push((*tz, t + 3600));
                }
                t += 3600;
            }
        }
        assert!(out.len() > 20, "too few DST changes found: {}", out.len());
        out
    })
}

fn start_time() -> impl Strategy<Value = i64> {
    prop_oneof![
        FROM..TO,
        (0..transitions().len(), -2 * 86_400..86_400i64)
            .prop_map(|(i, delta)| transitions()[i].1 + delta),
    ]
}

fn utc(t: i64) -> DateTime<chrono::Utc> {
    DateTime::from_timestamp(t, 0).unwrap()
}

/// The fields' allowed values, read out once per case, and the rule for whether they allow
/// a wall-clock time, written out here from the manual rather than calling the crate's own.
struct Oracle {
    allowed: [[bool; 64]; 5],
    either_day: bool,
}

impl Oracle {
    /// `day_of_week` is the field's text: written as `*` (or `*/1`), or not given, it does
    /// not restrict the days; written any other way it does, even naming every day.
    fn new(schedule: &CronSchedule, day_of_week: Option<&str>) -> Oracle {
        let mut allowed = [[false; 64]; 5];
        for (i, field) in Field::ALL.into_iter().enumerate() {
            for v in schedule.field(field).values() {
                allowed[i][v as usize] = true;
            }
        }
        let every_dom = (1..=31).all(|d| allowed[2][d]);
        let dow_star = day_of_week.is_none_or(|t| t.split(',').all(|i| i == "*" || i == "*/1"));
        Oracle {
            allowed,
            either_day: !every_dom && !dow_star,
        }
    }

    fn allows(&self, local: NaiveDateTime) -> bool {
        let [minute, hour, dom, month, dow] = &self.allowed;
        let on_dom = dom[local.day() as usize];
        let on_dow = dow[local.weekday().num_days_from_sunday() as usize];
        let day = if self.either_day {
            on_dom || on_dow
        } else {
            on_dom && on_dow
        };
        day && month[local.month() as usize]
            && hour[local.hour() as usize]
            && minute[local.minute() as usize]
    }

    /// A run time: a whole minute whose local time the fields allow and which is the first
    /// occurrence of that local time (one skipped by a jump forward has none).
    fn is_run_time(&self, tz: Tz, t: i64) -> bool {
        let local = utc(t).with_timezone(&tz).naive_local();
        t % 60 == 0
            && self.allows(local)
            && tz
                .from_local_datetime(&local)
                .earliest()
                .map(|e| e.timestamp())
                == Some(t)
    }
}

/// Checks `next_run` against the oracle: the answer is a run time at or after `start`, and
/// no minute from `start` (rounded up) to the answer, within the window, is one.
fn check_next_run(fields: &CronFields, tz: Tz, start: i64) -> Result<(), TestCaseError> {
    let schedule = CronSchedule::parse(fields).unwrap();
    let oracle = Oracle::new(&schedule, fields.day_of_week.as_deref());
    let got = next_run(&schedule, start, tz);
    let first_minute = start + (60 - start.rem_euclid(60)) % 60;
    if let Some(run) = got {
        prop_assert!(run >= start);
        prop_assert!(
            run > start || start % 60 == 0,
            "ran at {start}, not on a minute"
        );
        prop_assert!(oracle.is_run_time(tz, run), "{run} is not a run time");
        let local = utc(run).with_timezone(&tz).naive_local();
        prop_assert!(schedule.matches_local(local));
    }
    let scan_end = got
        .unwrap_or(i64::MAX)
        .min(first_minute + WINDOW_MINUTES * 60);
    let earlier = (first_minute..scan_end)
        .step_by(60)
        .find(|&t| oracle.is_run_time(tz, t));
    prop_assert_eq!(earlier, None, "a run time before the answer {:?}", got);
    Ok(())
}

/// A start shortly before a zone's offset change, and hours near the local hour of the
/// change, so that the first run often falls in a skipped or a repeated hour.
fn near_a_change() -> impl Strategy<Value = (CronFields, Tz, i64)> {
    (0..transitions().len()).prop_flat_map(|i| {
        let (tz, at) = transitions()[i];
        let before = utc(at - 60).with_timezone(&tz).naive_local().hour();
        let hours = prop::collection::vec(0..3u32, 1..3).prop_map(move |offsets| {
            let hours: Vec<String> = offsets
                .iter()
                .map(|o| ((before + o) % 24).to_string())
                .collect();
            hours.join(",")
        });
        (field_text(Field::Minute), hours, -3 * 3600..1800i64).prop_map(
            move |(minute, hours, delta)| {
                let mut fields = CronFields::default();
                let minute =
                    minute.map(|items| items.iter().map(Item::text).collect::<Vec<_>>().join(","));
                fields.set(Field::Minute, minute);
                fields.set(Field::Hour, Some(hours));
                (fields, tz, at + delta)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fields_parse_to_the_model((field, items) in field_items()) {
        let text = items.iter().map(Item::text).collect::<Vec<_>>().join(",");
        let mut want: Vec<u32> = items.iter().flat_map(|i| i.values(field)).collect();
        want.sort_unstable();
        want.dedup();
        let got: Vec<u32> = FieldSet::parse(field, &text).unwrap().values().collect();
        prop_assert_eq!(got, want, "{}", text);
    }

    #[test]
    fn parsing_any_text_is_total(field in prop::sample::select(Field::ALL.to_vec()),
                                 text in "[-*/,0-9 a]{0,12}") {
        let _ = FieldSet::parse(field, &text);
    }

    #[test]
    fn next_run_is_the_first_matching_minute(
        fields in fields(),
        tz in prop::sample::select(ZONES.to_vec()),
        start in start_time(),
    ) {
        check_next_run(&fields, tz, start)?;
    }

    #[test]
    fn next_run_across_offset_changes((fields, tz, start) in near_a_change()) {
        check_next_run(&fields, tz, start)?;
    }

    #[test]
    fn next_run_is_total(fields in fields(), tz in prop::sample::select(ZONES.to_vec()),
                         start in any::<i64>()) {
        let schedule = CronSchedule::parse(&fields).unwrap();
        if let Some(run) = next_run(&schedule, start, tz) {
            prop_assert!(run >= start);
        }
    }
}
