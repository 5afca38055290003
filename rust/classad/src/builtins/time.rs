//! Built-in functions: time (`time`, `absTime`, `relTime`, `formatTime`, `splitTime`, ...).
//!
//! HTCondor works on `struct tm` and C `int`s in several places; the conversions below
//! (`c_int_*`, `c_cast_i64`) reproduce its truncations, which the reference shows
//! (`absTime(4294967296)` is the epoch, `interval(-9223372036854775808)` is `"0"`).

use super::strings::is_c_space;
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::{
    c_cast_i64, c_int_from_f64, days_from_civil, gmtime, local_offset, localtime, now, Tm,
};
use crate::classad::ClassAd;
use crate::eval::Evaluator;
use crate::name::Name;
use crate::strftime::strftime;
use crate::timefmt::{parse_abstime, parse_reltime};
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
            Value::RelTime(r) => Some(c_cast_i64(r) as i32),
            _ => return Value::Error,
        },
        None => None,
    };
    let secs = match arg {
        Value::Undefined => return Value::Undefined,
        Value::Int(i) => i64::from(i as i32),
        Value::Real(r) => i64::from(c_int_from_f64(r)),
        Value::RelTime(r) => c_cast_i64(r),
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
        num.parse::<f64>().ok().map(c_cast_i64)
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
        Value::Real(r) | Value::RelTime(r) => c_cast_i64(r),
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
mod tests {
    use crate::testing::{ev, string};
    use crate::{parse_expr, Value};

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
