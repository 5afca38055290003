//! Text forms of absolute and relative times, as HTCondor prints and reads them.

use chrono::{DateTime, Datelike, Timelike};

use crate::builtins::strings::is_c_space;
use crate::calendar::{local_offset, timegm};

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
/// A relative-time literal as it prints inside `relTime("...")`: like [`format_reltime`]
/// but the seconds keep their fraction (`01:1.5`), in the fewest digits that read back
/// to the same value. Magnitudes past 2^53 seconds print as a plain number of seconds.
pub fn format_reltime_literal(d: f64) -> String {
    if !d.is_finite() || d.abs() >= 9.007_199_254_740_992e15 {
        return format!("{d:.0}");
    }
    let whole = format_reltime(d);
    let frac = d.abs().fract();
    if frac == 0.0 {
        return whole;
    }
    // Replace the whole seconds at the end with seconds and fraction, shortest first.
    let head = whole.trim_end_matches(|c: char| c.is_ascii_digit());
    let secs = (d.abs().trunc() % 60.0) + frac;
    for digits in 1..=17 {
        let text = format!("{head}{}", trim_zeros(&format!("{secs:.digits$}")));
        if parse_reltime(&text) == Some(d) {
            return text;
        }
    }
    format!("{head}{secs}")
}

fn trim_zeros(t: &str) -> &str {
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.')
    } else {
        t
    }
}

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
