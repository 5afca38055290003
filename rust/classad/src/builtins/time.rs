//! Built-in functions: time (`time`, `absTime`, `relTime`, `formatTime`, `splitTime`, ...).
//!
//! HTCondor works on `struct tm` and C `int`s in several places; the conversions below
//! (`c_int_*`, `time_t_from_f64`) reproduce its truncations, which the reference shows
//! (`absTime(4294967296)` is the epoch, `interval(-9223372036854775808)` is `"0"`).

use chrono::{Offset, TimeZone};

use super::Builtin;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::Evaluator;
use crate::name::Name;
use crate::value::{AdValue, Value};

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "time",
        f: epoch_time,
    },
    Builtin {
        name: "currentTime",
        f: current_time,
    },
    Builtin {
        name: "timeZoneOffset",
        f: time_zone_offset,
    },
    Builtin {
        name: "dayTime",
        f: day_time,
    },
    Builtin {
        name: "absTime",
        f: abs_time,
    },
    Builtin {
        name: "relTime",
        f: rel_time,
    },
    Builtin {
        name: "getYear",
        f: get_year,
    },
    Builtin {
        name: "getMonth",
        f: get_month,
    },
    Builtin {
        name: "getDayOfYear",
        f: get_day_of_year,
    },
    Builtin {
        name: "getDayOfMonth",
        f: get_day_of_month,
    },
    Builtin {
        name: "getDayOfWeek",
        f: get_day_of_week,
    },
    Builtin {
        name: "getDays",
        f: get_days,
    },
    Builtin {
        name: "getHours",
        f: get_hours,
    },
    Builtin {
        name: "getMinutes",
        f: get_minutes,
    },
    Builtin {
        name: "getSeconds",
        f: get_seconds,
    },
    Builtin {
        name: "splitTime",
        f: split_time,
    },
    Builtin {
        name: "formatTime",
        f: format_time,
    },
    Builtin {
        name: "interval",
        f: interval,
    },
];

// ---------------------------------------------------------------------------------------
// clock, zone and C conversions
// ---------------------------------------------------------------------------------------

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Offset east of UTC, in seconds, of the local zone at `secs`.
pub(crate) fn local_offset(secs: i64) -> i32 {
    match chrono::Local.timestamp_opt(secs, 0) {
        chrono::LocalResult::Single(dt) | chrono::LocalResult::Ambiguous(dt, _) => {
            dt.offset().fix().local_minus_utc()
        }
        chrono::LocalResult::None => 0,
    }
}

/// A C `(int)` cast of a double on x86: out of range (and NaN) gives INT_MIN.
fn c_int_from_f64(r: f64) -> i32 {
    if r.is_nan() || r >= 2_147_483_648.0 || r <= -2_147_483_649.0 {
        i32::MIN
    } else {
        r as i32
    }
}

/// A C `(time_t)` / `(long long)` cast of a double on x86: out of range gives INT64_MIN.
fn time_t_from_f64(r: f64) -> i64 {
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month 1..=12, day) of a day count since the epoch.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
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
struct Tm {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: i64,
    wday: i64,
    yday: i64,
}

/// `gmtime`: the UTC fields of `secs`.
fn gmtime(secs: i64) -> Tm {
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
fn timegm(year: i64, mon: i64, mday: i64, hour: i64, min: i64, sec: i64) -> i64 {
    let y = year + mon.div_euclid(12);
    let m = mon.rem_euclid(12);
    let days = days_from_civil(y, m + 1, 1) + mday - 1;
    days.saturating_mul(86400) + hour * 3600 + min * 60 + sec
}

/// The local broken-down time of `secs` (`localtime`).
fn localtime(secs: i64) -> Tm {
    gmtime(secs.saturating_add(i64::from(local_offset(secs))))
}

// ---------------------------------------------------------------------------------------
// time(), currentTime(), timeZoneOffset(), dayTime()
// ---------------------------------------------------------------------------------------

fn epoch_time(_ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !args.is_empty() {
        return Value::Error;
    }
    Value::Int(now())
}

fn current_time(_ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !args.is_empty() {
        return Value::Error;
    }
    let secs = now();
    Value::AbsTime {
        secs,
        offset: local_offset(secs),
    }
}

fn time_zone_offset(_ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !args.is_empty() {
        return Value::Error;
    }
    Value::RelTime(f64::from(local_offset(now())))
}

fn day_time(_ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !args.is_empty() {
        return Value::Error;
    }
    let t = localtime(now());
    Value::RelTime((t.hour * 3600 + t.min * 60 + t.sec) as f64)
}

// ---------------------------------------------------------------------------------------
// absTime, relTime
// ---------------------------------------------------------------------------------------

fn abs_time(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.is_empty() {
        return current_time(ev, args);
    }
    // A string literal is an absolute-time literal (the parser folds these).
    if let [Expr::Lit(Value::Str(s))] = args {
        return match parse_abstime(s) {
            Some((secs, offset)) => Value::AbsTime { secs, offset },
            None => Value::Error,
        };
    }
    if args.len() > 2 {
        return Value::Error;
    }
    let Some(first) = args.first() else {
        return Value::Error;
    };
    let arg = ev.eval(first);
    let offset = match args.get(1) {
        Some(e) => match ev.eval(e) {
            Value::Int(i) => Some(i as i32),
            Value::Real(r) => Some(c_int_from_f64(r)),
            Value::RelTime(r) => Some(time_t_from_f64(r) as i32),
            _ => return Value::Error,
        },
        None => None,
    };
    let secs = match arg {
        Value::Undefined => return Value::Undefined,
        Value::Int(i) => i64::from(i as i32),
        Value::Real(r) => i64::from(c_int_from_f64(r)),
        Value::RelTime(r) => time_t_from_f64(r),
        // HTCondor hands back a string, and an absolute time, unchanged.
        v @ (Value::Str(_) | Value::AbsTime { .. }) => return v,
        _ => return Value::Error,
    };
    let offset = offset.unwrap_or_else(|| local_offset(secs));
    Value::AbsTime { secs, offset }
}

fn rel_time(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    if let Expr::Lit(Value::Str(s)) = a {
        return match parse_reltime(s) {
            Some(r) => Value::RelTime(r),
            None => Value::Error,
        };
    }
    match ev.eval(a) {
        Value::Undefined => Value::Undefined,
        Value::Int(i) => Value::RelTime(f64::from(i as i32)),
        Value::Real(r) => Value::RelTime(r),
        // A string computed at run time is not parsed: HTCondor gives a zero duration.
        Value::Str(_) => Value::RelTime(0.0),
        Value::AbsTime { secs, .. } => Value::RelTime(secs as f64),
        v @ Value::RelTime(_) => v,
        _ => Value::Error,
    }
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C `atoi` of a text that starts with a digit: its leading digits.
fn atoi(b: &[u8]) -> i64 {
    b.iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |n, c| {
            n.saturating_mul(10).saturating_add(i64::from(c - b'0'))
        })
}

fn at(t: &[u8], i: isize) -> u8 {
    usize::try_from(i)
        .ok()
        .and_then(|i| t.get(i))
        .copied()
        .unwrap_or(0)
}

/// `[+-]hhmm` at the end of `t`: removed, and returned as seconds east of UTC.
fn extract_zone(t: &mut Vec<u8>) -> Option<i32> {
    let len = t.len();
    let start = len.checked_sub(5)?;
    let off = t.get(start..)?.to_vec();
    let (sign, digits) = off.split_first()?;
    if !matches!(sign, b'+' | b'-') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    t.truncate(start);
    let hr = atoi(digits.get(0..2)?) as i32;
    let min = atoi(digits.get(2..4)?) as i32;
    let secs = hr * 3600 + min * 60;
    Some(if *sign == b'+' { secs } else { -secs })
}

/// An absolute time in the forms HTCondor reads: `D* dddd [D* dd [D* dd [D* dd [D* dd
/// [D* dd D*]]]]] [-dd:dd | +dd:dd | -dddd | +dddd | z | Z]` (D: a non-digit).
/// Out-of-range fields roll over, as `mktime` does.
pub fn parse_abstime(s: &str) -> Option<(i64, i32)> {
    let mut t: Vec<u8> = s.as_bytes().to_vec();
    let len = t.len() as isize;
    let mut i = len - 1;
    while i >= 0 && is_c_space(at(&t, i)) {
        i -= 1;
    }
    let mut zone = None;
    if i > 0 && matches!(at(&t, i), b'z' | b'Z') {
        t.remove(i as usize);
        zone = Some(0);
    } else if len > 5 && matches!(at(&t, len - 5), b'+' | b'-') {
        zone = extract_zone(&mut t);
    } else if len > 6 && matches!(at(&t, len - 6), b'+' | b'-') && at(&t, len - 3) == b':' {
        t.remove((len - 3) as usize);
        zone = extract_zone(&mut t);
    }

    let len = t.len() as isize;
    let mut i: isize = 0;
    let next_digit = |i: &mut isize| {
        while *i < len && !at(&t, *i).is_ascii_digit() {
            *i += 1;
        }
    };
    let field = |i: isize, n: isize| atoi(t.get(i as usize..(i + n) as usize).unwrap_or(&[]));
    next_digit(&mut i);
    if i > len - 4 {
        return None;
    }
    let year = field(i, 4);
    i += 4;
    let mut f = [0i64; 5]; // month, day, hour, minute, second
    for (k, slot) in f.iter_mut().enumerate() {
        next_digit(&mut i);
        if i <= len - 2 {
            *slot = field(i, 2) - i64::from(k == 0);
            i += 2;
        }
    }
    next_digit(&mut i);
    if i < len {
        return None; // a digit left over
    }
    let [mon, mday, hour, min, sec] = f;
    let utc = timegm(year, mon, mday, hour, min, sec);
    // mktime reads the fields as local time, and -1 is its failure value.
    let mk = utc - i64::from(local_offset(utc));
    if mk == -1 {
        return None;
    }
    let offset = zone.unwrap_or_else(|| local_offset(mk));
    Some((utc - i64::from(offset), offset))
}

/// A relative time `[-][D+|Dd][HH:|HHh][MM:|MMm]SS[.sss][s]`, read from the right.
pub fn parse_reltime(s: &str) -> Option<f64> {
    let t = s.as_bytes();
    let mut i = t.len() as isize - 1;
    let skip_space = |i: &mut isize| {
        while *i >= 0 && is_c_space(at(t, *i)) {
            *i -= 1;
        }
    };
    let digits_back = |i: &mut isize| {
        let end = *i;
        while *i >= 0 && at(t, *i).is_ascii_digit() {
            *i -= 1;
        }
        t.get((*i + 1) as usize..(end + 1) as usize).unwrap_or(&[])
    };
    // revInt: `from_chars` into an int, 0 when it does not fit.
    let int_of = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse::<i32>().ok())
            .unwrap_or(0)
    };

    let mut secs = 0.0;
    skip_space(&mut i);
    let c = at(t, i);
    if i >= 0 && (c == b's' || c == b'S' || c.is_ascii_digit()) {
        if c == b's' || c == b'S' {
            i -= 1;
        }
        skip_space(&mut i);
        let end = i;
        digits_back(&mut i);
        if i >= 0 && at(t, i) == b'.' {
            i -= 1;
            digits_back(&mut i);
        }
        let text = t.get((i + 1) as usize..(end + 1) as usize).unwrap_or(&[]);
        secs = std::str::from_utf8(text)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
    }
    let unit = |i: &mut isize, marks: &[u8]| -> i32 {
        skip_space(i);
        if *i >= 0 && marks.contains(&at(t, *i)) {
            *i -= 1;
            skip_space(i);
            int_of(digits_back(i))
        } else {
            0
        }
    };
    let mins = unit(&mut i, b"mM:");
    let hrs = unit(&mut i, b"hH:");
    let days = unit(&mut i, b"dD+");
    skip_space(&mut i);
    let negative = i >= 0 && at(t, i) == b'-';
    if negative {
        i -= 1;
    }
    skip_space(&mut i);
    if i >= 0 {
        return None;
    }
    let whole = days
        .wrapping_mul(86400)
        .wrapping_add(hrs.wrapping_mul(3600))
        .wrapping_add(mins.wrapping_mul(60));
    let r = f64::from(whole) + secs;
    Some(if negative { -r } else { r })
}

// ---------------------------------------------------------------------------------------
// getYear ... getSeconds
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

fn get_field(ev: &mut Evaluator, args: &[Expr], field: Field) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    match ev.eval(a) {
        Value::AbsTime { secs, .. } => {
            let t = localtime(secs);
            Value::Int(match field {
                Field::Year => t.year,
                Field::Month => t.mon + 1,
                Field::DayOfYear => t.yday,
                Field::DayOfMonth => t.mday,
                Field::DayOfWeek => t.wday,
                Field::Hours => t.hour,
                Field::Minutes => t.min,
                Field::Seconds => t.sec,
                Field::Days => return Value::Error,
            })
        }
        Value::RelTime(r) => {
            let s = i64::from(c_int_from_f64(r));
            Value::Int(match field {
                Field::Days => s / 86400,
                Field::Hours => (s % 86400) / 3600,
                Field::Minutes => (s % 3600) / 60,
                Field::Seconds => s % 60,
                _ => return Value::Error,
            })
        }
        _ => Value::Error,
    }
}

fn get_year(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Year)
}
fn get_month(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Month)
}
fn get_day_of_year(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::DayOfYear)
}
fn get_day_of_month(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::DayOfMonth)
}
fn get_day_of_week(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::DayOfWeek)
}
fn get_days(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Days)
}
fn get_hours(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Hours)
}
fn get_minutes(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Minutes)
}
fn get_seconds(ev: &mut Evaluator, args: &[Expr]) -> Value {
    get_field(ev, args, Field::Seconds)
}

// ---------------------------------------------------------------------------------------
// splitTime, formatTime
// ---------------------------------------------------------------------------------------

/// The absolute time a number or absTime denotes, as (seconds, offset).
fn abs_of(v: &Value) -> Option<(i64, i32)> {
    match v {
        Value::Int(i) => Some((*i, local_offset(*i))),
        Value::Real(r) => {
            let s = i64::from(c_int_from_f64(*r));
            Some((s, local_offset(s)))
        }
        Value::AbsTime { secs, offset } => Some((*secs, *offset)),
        _ => None,
    }
}

fn lit(v: Value) -> Expr {
    Expr::Lit(v)
}

fn split_abs(secs: i64, offset: i32) -> ClassAd {
    let t = gmtime(secs.saturating_add(i64::from(offset)));
    let mut ad = ClassAd::new();
    ad.insert_str("Type", lit(Value::str("AbsoluteTime")));
    ad.insert_str("Year", Expr::int(t.year));
    ad.insert_str("Month", Expr::int(t.mon + 1));
    ad.insert_str("Day", Expr::int(t.mday));
    ad.insert_str("Hours", Expr::int(t.hour));
    ad.insert_str("Minutes", Expr::int(t.min));
    ad.insert_str("Seconds", Expr::int(t.sec));
    ad.insert_str("Offset", Expr::int(i64::from(offset)));
    ad
}

fn split_rel(r: f64) -> ClassAd {
    let neg = r < 0.0;
    let a = r.abs();
    let whole = c_int_from_f64(a);
    let hrs = whole % 86400;
    let mins = hrs % 3600;
    let mut secs = f64::from(mins % 60) + (a - a.floor());
    let mut days = whole / 86400;
    let mut hrs = hrs / 3600;
    let mut mins = mins / 60;
    if neg {
        if days > 0 {
            days = -days;
        } else if hrs > 0 {
            hrs = -hrs;
        } else if mins > 0 {
            mins = -mins;
        } else {
            secs = -secs;
        }
    }
    let mut ad = ClassAd::new();
    ad.insert_str("Type", lit(Value::str("RelativeTime")));
    ad.insert_str("Days", Expr::int(i64::from(days)));
    ad.insert_str("Hours", Expr::int(i64::from(hrs)));
    ad.insert_str("Minutes", Expr::int(i64::from(mins)));
    ad.insert_str("Seconds", lit(Value::Real(secs)));
    ad
}

fn split_time(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let v = ev.eval(a);
    match v {
        Value::Undefined => Value::Undefined,
        Value::RelTime(r) => Value::ad(split_rel(r)),
        _ => match abs_of(&v) {
            Some((secs, offset)) => Value::ad(split_abs(secs, offset)),
            None => Value::Error,
        },
    }
}

/// An integer attribute of a split-time ad (`EvaluateAttrInt`).
fn int_attr(ev: &mut Evaluator, adv: &AdValue, name: &str) -> Option<i64> {
    match ev.attr_of(adv, &Name::new(name)) {
        Value::Int(i) => Some(i64::from(i as i32)),
        _ => None,
    }
}

/// `day_numbers`: the weekday and day of the year of a (possibly unnormalised) date.
fn with_day_numbers(mut t: Tm) -> Tm {
    let first = days_from_civil(t.year, 1, 1);
    let y = t.year + t.mon.div_euclid(12);
    let days = days_from_civil(y, t.mon.rem_euclid(12) + 1, 1) + t.mday - 1;
    t.wday = (days + 4).rem_euclid(7);
    t.yday = days - first;
    t
}

fn format_time(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.len() > 2 {
        return Value::Error;
    }
    let Some(first) = args.first() else {
        return Value::string(strftime("%c", &localtime(now())));
    };
    let v = ev.eval(first);
    let tm = match &v {
        Value::Ad(adv) => {
            let year = int_attr(ev, adv, "Year").unwrap_or(1900);
            let mon = int_attr(ev, adv, "Month").map_or(0, |m| m - 1);
            Tm {
                year,
                mon,
                mday: int_attr(ev, adv, "Day").unwrap_or(0),
                hour: int_attr(ev, adv, "Hours").unwrap_or(0),
                min: int_attr(ev, adv, "Minutes").unwrap_or(0),
                sec: int_attr(ev, adv, "Seconds").unwrap_or(0),
                ..Tm::default()
            }
        }
        _ => match abs_of(&v) {
            Some((secs, offset)) => gmtime(secs.saturating_add(i64::from(offset))),
            None => return Value::Error,
        },
    };
    let tm = with_day_numbers(tm);
    let format = match args.get(1) {
        None => "%c".to_string(),
        Some(e) => match ev.eval(e) {
            Value::Str(s) => s.to_string(),
            _ => return Value::Error,
        },
    };
    Value::string(strftime(&format, &tm))
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// glibc's `iso_week_days`.
fn iso_week_days(yday: i64, wday: i64) -> i64 {
    let big = (366 / 7 + 2) * 7;
    yday - (yday - wday + 4 + big) % 7 + 3
}

/// (ISO year, ISO week) of `t`.
fn iso_week(t: &Tm) -> (i64, i64) {
    let mut year = t.year;
    let mut days = iso_week_days(t.yday, t.wday);
    if days < 0 {
        year -= 1;
        days = iso_week_days(t.yday + 365 + i64::from(is_leap(year)), t.wday);
    } else {
        let d = iso_week_days(t.yday - (365 + i64::from(is_leap(year))), t.wday);
        if d >= 0 {
            year += 1;
            days = d;
        }
    }
    (year, days / 7 + 1)
}

/// Padding asked for by a conversion's flag.
#[derive(Clone, Copy, PartialEq)]
enum Pad {
    Default,
    None,
    Space,
    Zero,
}

fn pad_num(out: &mut String, n: i64, width: usize, pad: Pad, default_pad: char) {
    let digits = n.unsigned_abs().to_string();
    let sign = if n < 0 { "-" } else { "" };
    let fill = match pad {
        Pad::None => {
            out.push_str(sign);
            out.push_str(&digits);
            return;
        }
        Pad::Space => ' ',
        Pad::Zero => '0',
        Pad::Default => default_pad,
    };
    let len = sign.len() + digits.len();
    let n_fill = width.saturating_sub(len);
    if fill == '0' {
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', n_fill));
    } else {
        out.extend(std::iter::repeat_n(' ', n_fill));
        out.push_str(sign);
    }
    out.push_str(&digits);
}

fn pad_str(out: &mut String, s: &str, width: usize, pad: Pad) {
    let n_fill = width.saturating_sub(s.chars().count());
    let fill = if pad == Pad::Zero { '0' } else { ' ' };
    out.extend(std::iter::repeat_n(fill, n_fill));
    out.push_str(s);
}

/// C-locale `strftime` as glibc does it, with its flags (`_-0^#`) and field widths.
fn strftime(fmt: &str, t: &Tm) -> String {
    let b: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut k = 0;
    while let Some(&c) = b.get(k) {
        if c != '%' {
            out.push(c);
            k += 1;
            continue;
        }
        let start = k;
        k += 1;
        let (mut pad, mut upcase, mut swapcase) = (Pad::Default, false, false);
        while let Some(&f) = b.get(k) {
            match f {
                '_' => pad = Pad::Space,
                '-' => pad = Pad::None,
                '0' => pad = Pad::Zero,
                '^' => upcase = true,
                '#' => swapcase = true,
                _ => break,
            }
            k += 1;
        }
        let mut width: Option<usize> = None;
        while let Some(d) = b.get(k).and_then(|c| c.to_digit(10)) {
            width = Some(
                width
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d as usize)
                    .min(1024),
            );
            k += 1;
        }
        if matches!(b.get(k), Some('E' | 'O')) {
            k += 1;
        }
        let conv = b.get(k).copied();
        let w = width.unwrap_or(0);
        let num = |out: &mut String, n: i64, dw: usize, dp: char| {
            pad_num(out, n, width.unwrap_or(dw), pad, dp)
        };
        let text = |out: &mut String, s: &str, flip_lower: bool| {
            let s = if upcase || (swapcase && !flip_lower) {
                s.to_uppercase()
            } else if swapcase {
                s.to_lowercase()
            } else {
                s.to_string()
            };
            pad_str(out, &s, w, pad);
        };
        let name = |names: &[&'static str], i: i64| {
            usize::try_from(i)
                .ok()
                .and_then(|i| names.get(i))
                .copied()
                .unwrap_or("?")
        };
        let sub = |out: &mut String, f: &str| {
            let s = strftime(f, t);
            let s = if upcase { s.to_uppercase() } else { s };
            pad_str(out, &s, w, pad);
        };
        match conv {
            Some('a') => text(&mut out, name(&DAYS, t.wday).get(..3).unwrap_or("?"), false),
            Some('A') => text(&mut out, name(&DAYS, t.wday), false),
            Some('b' | 'h') => text(
                &mut out,
                name(&MONTHS, t.mon).get(..3).unwrap_or("?"),
                false,
            ),
            Some('B') => text(&mut out, name(&MONTHS, t.mon), false),
            Some('p') => text(&mut out, if t.hour >= 12 { "PM" } else { "AM" }, true),
            Some('P') => text(&mut out, if t.hour >= 12 { "pm" } else { "am" }, false),
            Some('Z') => text(&mut out, "UTC", true),
            Some('c') => sub(&mut out, "%a %b %e %H:%M:%S %Y"),
            Some('D' | 'x') => sub(&mut out, "%m/%d/%y"),
            Some('F') => sub(&mut out, "%Y-%m-%d"),
            Some('r') => sub(&mut out, "%I:%M:%S %p"),
            Some('R') => sub(&mut out, "%H:%M"),
            Some('T' | 'X') => sub(&mut out, "%H:%M:%S"),
            Some('C') => num(&mut out, t.year.div_euclid(100), 2, '0'),
            Some('d') => num(&mut out, t.mday, 2, '0'),
            Some('e') => num(&mut out, t.mday, 2, ' '),
            Some('g') => num(&mut out, iso_week(t).0.rem_euclid(100), 2, '0'),
            Some('G') => num(&mut out, iso_week(t).0, 1, '0'),
            Some('H') => num(&mut out, t.hour, 2, '0'),
            Some('I') => num(&mut out, (t.hour + 11).rem_euclid(12) + 1, 2, '0'),
            Some('j') => num(&mut out, t.yday + 1, 3, '0'),
            Some('k') => num(&mut out, t.hour, 2, ' '),
            Some('l') => num(&mut out, (t.hour + 11).rem_euclid(12) + 1, 2, ' '),
            Some('m') => num(&mut out, t.mon + 1, 2, '0'),
            Some('M') => num(&mut out, t.min, 2, '0'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('s') => {
                let utc = timegm(t.year, t.mon, t.mday, t.hour, t.min, t.sec);
                num(&mut out, utc - i64::from(local_offset(utc)), 1, '0')
            }
            Some('S') => num(&mut out, t.sec, 2, '0'),
            Some('u') => num(&mut out, (t.wday - 1).rem_euclid(7) + 1, 1, '0'),
            Some('U') => num(&mut out, (t.yday - t.wday + 7) / 7, 2, '0'),
            Some('V') => num(&mut out, iso_week(t).1, 2, '0'),
            Some('w') => num(&mut out, t.wday, 1, '0'),
            Some('W') => num(&mut out, (t.yday - (t.wday - 1 + 7) % 7 + 7) / 7, 2, '0'),
            Some('y') => num(&mut out, t.year.rem_euclid(100), 2, '0'),
            Some('Y') => num(&mut out, t.year, 1, '0'),
            Some('z') => {
                let off = local_offset(timegm(t.year, t.mon, t.mday, t.hour, t.min, t.sec));
                let sign = if off < 0 { '-' } else { '+' };
                let a = off.unsigned_abs() / 60;
                let s = format!("{sign}{:02}{:02}", a / 60, a % 60);
                pad_str(&mut out, &s, w, pad);
            }
            Some('%') => out.push('%'),
            _ => {
                // Not a conversion: the text is copied, right-aligned in the width.
                let end = if conv.is_some() { k + 1 } else { k };
                let s: String = b.get(start..end).unwrap_or(&[]).iter().collect();
                pad_str(&mut out, &s, w, Pad::Space);
                k = end;
                continue;
            }
        }
        k += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------
// interval
// ---------------------------------------------------------------------------------------

/// The leading number of a string, as HTCondor's string-to-integer conversion reads it.
fn int_of_str(s: &str) -> Option<i64> {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let b = t.as_bytes();
    let mut k = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        k += 1;
    }
    let int_start = k;
    while b.get(k).is_some_and(u8::is_ascii_digit) {
        k += 1;
    }
    let mut is_real = false;
    let mut digits = k > int_start;
    if b.get(k) == Some(&b'.') {
        let mut j = k + 1;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if digits || j > k + 1 {
            digits = true;
            is_real = true;
            k = j;
        }
    }
    if !digits {
        return None;
    }
    if matches!(b.get(k), Some(b'e' | b'E')) {
        let mut j = k + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let e0 = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > e0 {
            is_real = true;
            k = j;
        }
    }
    let num = t.get(..k)?;
    if is_real {
        num.parse::<f64>().ok().map(time_t_from_f64)
    } else {
        // strtoll saturates.
        Some(num.parse::<i64>().unwrap_or(if num.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        }))
    }
}

fn interval(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let n = match ev.eval(a) {
        Value::Int(i) => i,
        Value::Real(r) | Value::RelTime(r) => time_t_from_f64(r),
        Value::Bool(b) => i64::from(b),
        Value::AbsTime { secs, .. } => secs,
        Value::Str(s) => match int_of_str(&s) {
            Some(i) => i,
            None => return Value::Error,
        },
        _ => return Value::Error,
    };
    // HTCondor keeps the count in a C int.
    let mut t = n as i32;
    let days = t / 86400;
    t %= 86400;
    let hours = t / 3600;
    t %= 3600;
    let (min, secs) = (t / 60, t % 60);
    let s = if days != 0 {
        format!(
            "{days}+{:02}:{:02}:{:02}",
            hours.abs(),
            min.abs(),
            secs.abs()
        )
    } else if hours != 0 {
        format!("{hours}:{:02}:{:02}", min.abs(), secs.abs())
    } else if min != 0 {
        format!("{min}:{:02}", secs.abs())
    } else {
        format!("{secs}")
    };
    Value::string(s)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::panic)]
mod tests {
    use crate::{eval_standalone, parse_expr, Value};

    fn ev(s: &str) -> Value {
        eval_standalone(&parse_expr(s).expect("parses"))
    }

    fn string(s: &str) -> String {
        match ev(s) {
            Value::Str(x) => x.to_string(),
            v => panic!("{s}: {v:?}"),
        }
    }

    #[test]
    fn abstime_literals() {
        assert!(matches!(
            ev(r#"absTime("2020-01-01T00:00:00+05:00")"#),
            Value::AbsTime {
                secs: 1577818800,
                offset: 18000
            }
        ));
        assert!(matches!(
            ev(r#"absTime("20200101T000000Z")"#),
            Value::AbsTime {
                secs: 1577836800,
                ..
            }
        ));
        assert!(matches!(
            ev(r#"absTime("2020-02-30")"#),
            Value::AbsTime {
                secs: 1583020800,
                ..
            }
        ));
        assert!(parse_expr(r#"absTime("")"#).is_err());
        assert!(parse_expr(r#"absTime("2020-01-01T00:00:00-05")"#).is_err());
        assert!(matches!(
            ev("absTime(4294967296)"),
            Value::AbsTime { secs: 0, .. }
        ));
    }

    #[test]
    fn reltime_literals() {
        assert!(matches!(ev(r#"relTime("1+00:00:05")"#), Value::RelTime(r) if r == 86405.0));
        assert!(matches!(ev(r#"relTime("2d3h")"#), Value::RelTime(r) if r == 183600.0));
        assert!(matches!(ev(r#"relTime("-1:30")"#), Value::RelTime(r) if r == -90.0));
        assert!(parse_expr(r#"relTime("abc")"#).is_err());
        assert!(parse_expr(r#"relTime("1:2:3:4:5")"#).is_err());
    }

    #[test]
    fn format_and_split() {
        assert_eq!(string("formatTime(0)"), "Thu Jan  1 00:00:00 1970");
        assert_eq!(string(r#"formatTime(4294967296, "%Y")"#), "2106");
        assert_eq!(
            string(r#"formatTime(1700000000, "%I %p %M %S %j %-d %5Y")"#),
            "10 PM 13 20 318 14 02023"
        );
        assert!(matches!(
            ev("splitTime(absTime(86399)).Hours"),
            Value::Int(23)
        ));
        assert!(matches!(
            ev("getDayOfWeek(absTime(951782400))"),
            Value::Int(2)
        ));
        assert!(matches!(ev("getSeconds(relTime(-61))"), Value::Int(-1)));
    }

    #[test]
    fn intervals() {
        assert_eq!(string("interval(1300000)"), "15+01:06:40");
        assert_eq!(string("interval(-3661)"), "-1:01:01");
        assert_eq!(string("interval(-9223372036854775807 - 1)"), "0");
        assert_eq!(string(r#"interval("1e3")"#), "16:40");
    }
}
