//! CronTab schedules for Python: check the five fields, list next run times (one schedule
//! or many at once, with the GIL released).

use condorx_cron::{
    local_tz, next_run, on_arrival, parse_tz, Arrival, CronFields, CronSchedule, Tz,
};
use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{ClassAd, Evaluator, Name, Value};
use pyo3::prelude::*;

use crate::classad::PyClassAd;
use crate::errors::cron_error;

type Spec = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn fields(spec: Spec) -> CronFields {
    let (minute, hour, day_of_month, month, day_of_week) = spec;
    CronFields {
        minute,
        hour,
        day_of_month,
        month,
        day_of_week,
    }
}

fn zone(py: Python<'_>, tz: Option<&str>) -> PyResult<Tz> {
    match tz {
        Some(name) => parse_tz(name).map_err(|e| cron_error(py, &e)),
        None => Ok(local_tz()),
    }
}

/// Check a schedule's five fields (minute, hour, day of month, month, day of week; None
/// for `*`); raises CronError naming the bad field.
#[pyfunction]
fn cron_check(py: Python<'_>, spec: Spec) -> PyResult<()> {
    CronSchedule::parse(&fields(spec))
        .map(|_| ())
        .map_err(|e| cron_error(py, &e))
}

/// The next `n` run times (Unix seconds) of a schedule after `after`, in time zone `tz`
/// (an IANA name; None for the local zone). Fewer when the schedule runs out.
#[pyfunction]
#[pyo3(signature = (spec, after, n, tz=None))]
fn cron_next_runs(
    py: Python<'_>,
    spec: Spec,
    after: i64,
    n: usize,
    tz: Option<&str>,
) -> PyResult<Vec<i64>> {
    let schedule = CronSchedule::parse(&fields(spec)).map_err(|e| cron_error(py, &e))?;
    let tz = zone(py, tz)?;
    Ok(py.detach(|| {
        let mut out = Vec::with_capacity(n.min(10_000));
        let mut from = after;
        while out.len() < n {
            match next_run(&schedule, from, tz) {
                Some(t) => {
                    out.push(t);
                    from = t + 60; // the next whole minute after this run
                }
                None => break,
            }
        }
        out
    }))
}

/// The next run time of each schedule after `after` (None for a schedule that is invalid
/// or never runs): the schedd's pass over its cron jobs on reconfig.
#[pyfunction]
#[pyo3(signature = (specs, after, tz=None))]
fn cron_next_run_each(
    py: Python<'_>,
    specs: Vec<Spec>,
    after: i64,
    tz: Option<&str>,
) -> PyResult<Vec<Option<i64>>> {
    let tz = zone(py, tz)?;
    Ok(py.detach(|| {
        specs
            .into_iter()
            .map(|spec| {
                CronSchedule::parse(&fields(spec))
                    .ok()
                    .and_then(|s| next_run(&s, after, tz))
            })
            .collect()
    }))
}

/// What the execute side does with a deferred job arriving at `now`: `("wait", seconds)`,
/// `("start", 0)` or `("hold", seconds late)` (late by more than `window`).
#[pyfunction]
fn deferral_on_arrival(now: i64, deferral_time: i64, window: i64) -> (&'static str, i64) {
    match on_arrival(now, deferral_time, window) {
        Arrival::Wait { seconds } => ("wait", seconds),
        Arrival::Start => ("start", 0),
        Arrival::Hold => ("hold", now.saturating_sub(deferral_time)),
    }
}

/// What the schedd's pass over its queue found (see [`cron_recompute`]).
type Recomputed = (Vec<(usize, i64)>, Vec<usize>);

/// The schedd's pass on restart and reconfig, over every job ad at once (GIL released):
/// for each idle job (JobStatus 1) with a CronTab field, its next run after `now` less its
/// CronWindow (a run still inside its window is kept), but after the job became idle. Returns the index and new time of
/// each job whose DeferralTime changes, and the index of each job whose schedule is
/// invalid or never runs. Jobs sharing a schedule share one parse.
#[pyfunction]
#[pyo3(signature = (ads, now, tz=None))]
fn cron_recompute(
    py: Python<'_>,
    ads: Vec<PyRef<PyClassAd>>,
    now: i64,
    tz: Option<&str>,
) -> PyResult<Recomputed> {
    let tz = zone(py, tz)?;
    let ads: Vec<Arc<ClassAd>> = ads.iter().map(|a| a.inner().clone()).collect();
    Ok(py.detach(|| recompute(&ads, now, tz)))
}

const CRON_NAMES: [&str; 5] = [
    "CronMinute",
    "CronHour",
    "CronDayOfMonth",
    "CronMonth",
    "CronDayOfWeek",
];

fn recompute(ads: &[Arc<ClassAd>], now: i64, tz: Tz) -> Recomputed {
    let names = CRON_NAMES.map(Name::new);
    let (status, window, deferral, entered) = (
        Name::new("JobStatus"),
        Name::new("CronWindow"),
        Name::new("DeferralTime"),
        Name::new("EnteredCurrentStatus"),
    );
    let mut parsed: HashMap<[Option<String>; 5], Option<CronSchedule>> = HashMap::new();
    let mut changed = Vec::new();
    let mut invalid = Vec::new();
    let mut ev = Evaluator::new(None, None);
    for (i, ad) in ads.iter().enumerate() {
        ev.reset(Some(ad), None);
        if !matches!(ev.eval_my_attr(&status), Value::Int(1)) {
            continue;
        }
        let texts = names.each_ref().map(|n| field_text(&ev.eval_my_attr(n)));
        if texts.iter().all(Option::is_none) {
            continue;
        }
        let late_ok = match ev.eval_my_attr(&window) {
            Value::Int(w) => w.max(0),
            _ => 0,
        };
        let current = match ev.eval_my_attr(&deferral) {
            Value::Int(t) => Some(t),
            _ => None,
        };
        // Never a run from before the job became idle: that one has had its run (a job
        // idle since 09:20 with an hour's window is not sent back to 08:30).
        let idle_since = match ev.eval_my_attr(&entered) {
            Value::Int(t) => t.saturating_add(1),
            _ => i64::MIN,
        };
        let after = now.saturating_sub(late_ok).max(idle_since);
        let schedule = parsed
            .entry(texts)
            .or_insert_with_key(|t| CronSchedule::parse(&fields(t.clone().into())).ok());
        match schedule.as_ref().and_then(|s| next_run(s, after, tz)) {
            Some(t) if Some(t) != current => changed.push((i, t)),
            Some(_) => {}
            None => invalid.push(i),
        }
    }
    (changed, invalid)
}

/// A field's value as the schedule reads it: a string as written, a number as its digits,
/// missing as `*` (None); anything else is passed on as text, for the parse to refuse.
fn field_text(v: &Value) -> Option<String> {
    match v {
        Value::Undefined => None,
        Value::Str(s) => Some(s.to_string()),
        Value::Int(n) => Some(n.to_string()),
        other => Some(format!("{other:?}")),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cron_check, m)?)?;
    m.add_function(wrap_pyfunction!(cron_next_runs, m)?)?;
    m.add_function(wrap_pyfunction!(cron_next_run_each, m)?)?;
    m.add_function(wrap_pyfunction!(deferral_on_arrival, m)?)?;
    m.add_function(wrap_pyfunction!(cron_recompute, m)?)?;
    Ok(())
}
