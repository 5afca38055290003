//! `strftime`: glibc's formats, flags and widths, on a broken-down time.

use crate::calendar::{local_offset, timegm, Tm};

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
pub fn strftime(fmt: &str, t: &Tm) -> String {
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
