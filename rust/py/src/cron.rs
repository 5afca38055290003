//! CronTab schedules for Python: check the five fields, list next run times (one schedule
//! or many at once, with the GIL released).

use condorx_cron::{local_tz, next_run, parse_tz, CronFields, CronSchedule, Tz};
use pyo3::prelude::*;

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cron_check, m)?)?;
    m.add_function(wrap_pyfunction!(cron_next_runs, m)?)?;
    m.add_function(wrap_pyfunction!(cron_next_run_each, m)?)?;
    Ok(())
}
