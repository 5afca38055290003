//! Calendar arithmetic as C's time functions do it: `gmtime`, `timegm`, `localtime`, and
//! the C casts HTCondor applies on the way (its truncations are part of its answers).

use chrono::{Offset, TimeZone};

pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Offset east of UTC, in seconds, of the local zone at `secs`.
pub fn local_offset(secs: i64) -> i32 {
    match chrono::Local.timestamp_opt(secs, 0) {
        chrono::LocalResult::Single(dt) | chrono::LocalResult::Ambiguous(dt, _) => {
            dt.offset().fix().local_minus_utc()
        }
        chrono::LocalResult::None => 0,
    }
}

/// A C `(int)` cast of a double on x86: out of range (and NaN) gives INT_MIN.
pub fn c_int_from_f64(r: f64) -> i32 {
    if r.is_nan() || r >= 2_147_483_648.0 || r <= -2_147_483_649.0 {
        i32::MIN
    } else {
        r as i32
    }
}

/// C's `(long long)` / `(time_t)` cast of a double as x86-64 does it: NaN and values
/// outside the i64 range give i64::MIN (Rust's `as` saturates instead, which HTCondor
/// never does). 2^63 is exactly representable, so both bounds are exact.
pub fn c_cast_i64(r: f64) -> i64 {
    const LIM: f64 = 9_223_372_036_854_775_808.0;
    if (-LIM..LIM).contains(&r) {
        r as i64
    } else {
        i64::MIN
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1..=12, day) of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A broken-down time, as C's `struct tm` holds it (full year, month 0..=11).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tm {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub wday: i64,
    pub yday: i64,
}

/// `gmtime`: the UTC fields of `secs`.
pub fn gmtime(secs: i64) -> Tm {
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    Tm {
        year: y,
        mon: m - 1,
        mday: d,
        hour: rem / 3600,
        min: (rem % 3600) / 60,
        sec: rem % 60,
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(y, 1, 1),
    }
}

/// `timegm`, normalising out-of-range fields the way `mktime` does.
pub fn timegm(year: i64, mon: i64, mday: i64, hour: i64, min: i64, sec: i64) -> i64 {
    let y = year + mon.div_euclid(12);
    let m = mon.rem_euclid(12);
    let days = days_from_civil(y, m + 1, 1) + mday - 1;
    days.saturating_mul(86400) + hour * 3600 + min * 60 + sec
}

/// The local broken-down time of `secs` (`localtime`).
pub fn localtime(secs: i64) -> Tm {
    gmtime(secs.saturating_add(i64::from(local_offset(secs))))
}
