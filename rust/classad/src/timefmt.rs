//! Text forms of absolute and relative times, as HTCondor prints and reads them.

use chrono::{DateTime, Datelike, Timelike};

/// `2020-01-01T00:00:00+02:00`; the clock is shown at `offset` seconds east of UTC.
/// HTCondor writes a zero offset as `-00:00`.
pub fn format_abstime(secs: i64, offset: i32) -> String {
    let local = secs.saturating_add(i64::from(offset));
    let Some(dt) = DateTime::from_timestamp(local, 0) else {
        return format!("{secs}");
    };
    let sign = if offset > 0 { '+' } else { '-' };
    let off = offset.unsigned_abs();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second(),
        sign,
        off / 3600,
        (off % 3600) / 60
    )
}

/// `[-][D+][HH:][MM:]SS`: leading zero units are left out (`01:40`, `1+01:01:01`, `-05`).
pub fn format_reltime(d: f64) -> String {
    let neg = d < 0.0;
    let total = d.abs().trunc() as u64;
    let (days, hours, mins, secs) = (
        total / 86400,
        (total / 3600) % 24,
        (total / 60) % 60,
        total % 60,
    );
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if days > 0 {
        s.push_str(&format!("{days}+"));
    }
    if days > 0 || hours > 0 {
        s.push_str(&format!("{hours:02}:"));
    }
    if days > 0 || hours > 0 || mins > 0 {
        s.push_str(&format!("{mins:02}:"));
    }
    s.push_str(&format!("{secs:02}"));
    s
}
