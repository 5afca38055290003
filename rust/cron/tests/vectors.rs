//! Runs `tests/vectors/next_run.txt` (schedule, zone, start => next run, in local ISO time)
//! and `tests/vectors/errors.txt` (one field's text => the error message).

// A test harness: failing loudly on bad fixtures is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use chrono::{DateTime, LocalResult, NaiveDateTime, TimeZone};
use condorx_cron::{next_run, parse_tz, CronFields, CronSchedule, Field, Tz};

fn vector_lines(name: &str) -> Vec<(usize, String)> {
    let path = format!("{}/tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim().to_owned()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// `2024-11-03T01:30`, with optional `:SS` and optional offset `-05:00`, read in `tz`. With
/// an offset, the local time must agree with it (catching typos in the table); without one,
/// the local time must happen exactly once.
fn instant(text: &str, tz: Tz) -> i64 {
    for format in ["%Y-%m-%dT%H:%M:%S%:z", "%Y-%m-%dT%H:%M%:z"] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            let local = t.with_timezone(&tz);
            assert_eq!(
                local.naive_local(),
                t.naive_local(),
                "{text} is not a local time in {tz}"
            );
            return t.timestamp();
        }
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return match tz.from_local_datetime(&t) {
                LocalResult::Single(t) => t.timestamp(),
                other => panic!("{text} in {tz} is {other:?}: write its offset"),
            };
        }
    }
    panic!("bad time {text:?}")
}

fn show(secs: i64, tz: Tz) -> String {
    DateTime::from_timestamp(secs, 0)
        .unwrap()
        .with_timezone(&tz)
        .format("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

#[test]
fn next_run_vectors() {
    let lines = vector_lines("next_run.txt");
    let mut failures = Vec::new();
    for (n, line) in &lines {
        let (lhs, want) = line.split_once(" => ").expect("no =>");
        let [fields, zone, after]: [&str; 3] = lhs
            .split(" | ")
            .map(str::trim)
            .collect::<Vec<_>>()
            .try_into()
            .unwrap_or_else(|_| panic!("line {n}: want fields | zone | start"));
        let texts: Vec<&str> = fields.split_whitespace().collect();
        assert_eq!(texts.len(), 5, "line {n}: five fields");
        let mut given = CronFields::default();
        for (field, text) in Field::ALL.into_iter().zip(texts) {
            given.set(field, (text != "_").then(|| text.to_owned()));
        }
        let schedule = CronSchedule::parse(&given).unwrap_or_else(|e| panic!("line {n}: {e}"));
        let tz = parse_tz(zone).unwrap();
        let got = next_run(&schedule, instant(after, tz), tz);
        let want = (want.trim() != "none").then(|| instant(want.trim(), tz));
        if got != want {
            failures.push(format!(
                "line {n}: {line}\n    got {:?}",
                got.map(|t| show(t, tz))
            ));
        }
    }
    assert!(lines.len() > 60, "too few vectors: {}", lines.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn error_vectors() {
    let lines = vector_lines("errors.txt");
    let mut failures = Vec::new();
    for (n, line) in &lines {
        let (lhs, want) = line.rsplit_once(" => ").expect("no =>");
        let (name, text) = lhs.split_once('=').expect("no =");
        let (name, text) = (name.trim(), text.trim());
        let got = if name == "zone" {
            parse_tz(text).map(|_| ()).unwrap_err()
        } else {
            let field = Field::from_attribute(name).unwrap_or_else(|| panic!("line {n}: {name}"));
            let mut given = CronFields::default();
            given.set(field, Some(text.to_owned()));
            let err = CronSchedule::parse(&given).map(|_| ()).unwrap_err();
            assert_eq!(err.field, Some(field), "line {n}");
            err
        };
        if got.to_string() != want {
            failures.push(format!("line {n}: {line}\n    got {got}"));
        }
    }
    assert!(lines.len() > 20, "too few vectors: {}", lines.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
