//! One CronTab field: its name and allowed values, and its text parsed to a set of values.
//!
//! Syntax (HTCondor manual, "Operators"): `*`, a number, a range `a-b`, a step after `*` or
//! a range (`*/n`, `a-b/n`), and comma-separated lists of any of these (`*/10,*/6`).

use std::fmt;

use crate::error::{CronError, CronErrorKind};

/// The five CronTab fields, in crontab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

impl Field {
    /// All five, in crontab order (minute first).
    pub const ALL: [Field; 5] = [
        Field::Minute,
        Field::Hour,
        Field::DayOfMonth,
        Field::Month,
        Field::DayOfWeek,
    ];

    /// The job ad attribute holding this field (`CronMinute`, ...).
    pub fn attribute(self) -> &'static str {
        match self {
            Field::Minute => "CronMinute",
            Field::Hour => "CronHour",
            Field::DayOfMonth => "CronDayOfMonth",
            Field::Month => "CronMonth",
            Field::DayOfWeek => "CronDayOfWeek",
        }
    }

    /// The field whose attribute is `name`, compared case-insensitively as ClassAd names are.
    pub fn from_attribute(name: &str) -> Option<Field> {
        Field::ALL
            .into_iter()
            .find(|f| f.attribute().eq_ignore_ascii_case(name))
    }

    /// Smallest value the text may name.
    pub fn min(self) -> u32 {
        match self {
            Field::Minute | Field::Hour | Field::DayOfWeek => 0,
            Field::DayOfMonth | Field::Month => 1,
        }
    }

    /// Largest value the text may name; 7 for the day of week, where 0 and 7 are both Sunday.
    pub fn max(self) -> u32 {
        match self {
            Field::Minute => 59,
            Field::Hour => 23,
            Field::DayOfMonth => 31,
            Field::Month => 12,
            Field::DayOfWeek => 7,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.attribute())
    }
}

/// The allowed values of one field as a bit set: bit `v` set when `v` is allowed.
/// Day of week 7 is stored as 0, so a set over days of week only ever holds 0-6.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldSet(u64);

impl FieldSet {
    /// Every value of `field` (what `*` means).
    pub fn all(field: Field) -> FieldSet {
        let max = if field == Field::DayOfWeek {
            6
        } else {
            field.max()
        };
        FieldSet(bits_between(field.min(), max))
    }

    /// Parses the text of `field`; surrounding blanks and blanks around list items are ignored.
    pub fn parse(field: Field, text: &str) -> Result<FieldSet, CronError> {
        let whole = text.trim();
        if whole.is_empty() {
            return Err(CronError::in_field(field, CronErrorKind::Empty, text));
        }
        let mut bits = 0u64;
        for item in whole.split(',') {
            let item = item.trim();
            if item.is_empty() {
                return Err(CronError::in_field(field, CronErrorKind::Empty, whole));
            }
            bits |= parse_item(field, item)?;
        }
        if field == Field::DayOfWeek && bits & (1 << 7) != 0 {
            bits = (bits & !(1 << 7)) | 1;
        }
        Ok(FieldSet(bits))
    }

    pub fn contains(self, value: u32) -> bool {
        value < 64 && self.0 & (1u64 << value) != 0
    }

    /// The smallest allowed value that is `>= value`.
    pub fn first_from(self, value: u32) -> Option<u32> {
        if value >= 64 {
            return None;
        }
        let above = self.0 & !((1u64 << value) - 1);
        (above != 0).then(|| above.trailing_zeros())
    }

    /// True when the set holds every value of `field`: the field restricts nothing. Used
    /// for the day-of-month / day-of-week rule, so `*`, `*/1` and `0-6` all count as `*`.
    pub fn is_all(self, field: Field) -> bool {
        self == FieldSet::all(field)
    }

    /// The allowed values, smallest first.
    pub fn values(self) -> impl Iterator<Item = u32> {
        (0..64u32).filter(move |&v| self.contains(v))
    }
}

impl fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.values()).finish()
    }
}

/// Bits `lo..=hi` set; both below 64.
fn bits_between(lo: u32, hi: u32) -> u64 {
    (lo..=hi).fold(0, |acc, v| acc | 1u64.checked_shl(v).unwrap_or(0))
}

/// One list item: `*`, `n`, `a-b`, `*/s` or `a-b/s`.
fn parse_item(field: Field, item: &str) -> Result<u64, CronError> {
    let (base, step) = match item.split_once('/') {
        Some((base, step)) => (base, Some(parse_number(field, step, item)?)),
        None => (item, None),
    };
    let (lo, hi) = if base == "*" {
        (field.min(), field.max())
    } else if let Some((a, b)) = base.split_once('-') {
        let (lo, hi) = (in_range(field, a, item)?, in_range(field, b, item)?);
        if lo > hi {
            return Err(CronError::in_field(
                field,
                CronErrorKind::ReversedRange,
                base,
            ));
        }
        (lo, hi)
    } else {
        let v = in_range(field, base, item)?;
        if step.is_some() {
            return Err(CronError::in_field(
                field,
                CronErrorKind::StepWithoutRange,
                item,
            ));
        }
        (v, v)
    };
    let step = match step {
        Some(0) => return Err(CronError::in_field(field, CronErrorKind::ZeroStep, item)),
        Some(s) => s,
        None => 1,
    };
    let step = usize::try_from(step).unwrap_or(usize::MAX);
    Ok((lo..=hi)
        .step_by(step)
        .fold(0, |acc, v| acc | 1u64.checked_shl(v).unwrap_or(0)))
}

/// A number of `field`, checked against its allowed values.
fn in_range(field: Field, text: &str, item: &str) -> Result<u32, CronError> {
    let v = parse_number(field, text, item)?;
    if v < field.min() || v > field.max() {
        let (min, max) = (field.min(), field.max());
        return Err(CronError::in_field(
            field,
            CronErrorKind::OutOfRange { min, max },
            text,
        ));
    }
    Ok(v)
}

/// Decimal digits only (no sign, no blanks inside an item); huge numbers saturate, so they
/// are reported as out of range rather than as bad syntax.
fn parse_number(field: Field, text: &str, item: &str) -> Result<u32, CronError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CronError::in_field(field, CronErrorKind::BadSyntax, item));
    }
    Ok(text.bytes().fold(0u32, |acc, b| {
        acc.saturating_mul(10).saturating_add(u32::from(b - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(field: Field, text: &str) -> Vec<u32> {
        FieldSet::parse(field, text).unwrap().values().collect()
    }

    fn kind(field: Field, text: &str) -> CronErrorKind {
        FieldSet::parse(field, text).unwrap_err().kind
    }

    #[test]
    fn manual_examples() {
        assert_eq!(values(Field::Month, "*"), (1..=12).collect::<Vec<_>>());
        assert_eq!(values(Field::Hour, "0-4"), [0, 1, 2, 3, 4]);
        assert_eq!(values(Field::Minute, "15,20,25,30"), [15, 20, 25, 30]);
        assert_eq!(
            values(Field::Hour, "0-3,9-12,15"),
            [0, 1, 2, 3, 9, 10, 11, 12, 15]
        );
        assert_eq!(values(Field::Minute, "10-30/5"), [10, 15, 20, 25, 30]);
        assert_eq!(values(Field::Hour, "*/3"), [0, 3, 6, 9, 12, 15, 18, 21]);
        assert_eq!(
            values(Field::Minute, "*/10,*/6"),
            [0, 6, 10, 12, 18, 20, 24, 30, 36, 40, 42, 48, 50, 54]
        );
    }

    #[test]
    fn steps_count_from_the_start_of_the_range() {
        assert_eq!(values(Field::DayOfMonth, "*/10"), [1, 11, 21, 31]);
        assert_eq!(values(Field::Minute, "7-20/6"), [7, 13, 19]);
        assert_eq!(values(Field::Minute, "*/60"), [0]);
        assert_eq!(values(Field::Minute, "*/4294967295"), [0]);
    }

    #[test]
    fn sunday_is_zero_or_seven() {
        assert_eq!(values(Field::DayOfWeek, "7"), [0]);
        assert_eq!(values(Field::DayOfWeek, "5-7"), [0, 5, 6]);
        assert_eq!(values(Field::DayOfWeek, "0,7"), [0]);
        assert!(FieldSet::parse(Field::DayOfWeek, "0-7")
            .unwrap()
            .is_all(Field::DayOfWeek));
        assert!(FieldSet::parse(Field::DayOfWeek, "*")
            .unwrap()
            .is_all(Field::DayOfWeek));
        // Monday to Sunday is every day; Monday to Saturday is not.
        assert!(FieldSet::parse(Field::DayOfWeek, "1-7")
            .unwrap()
            .is_all(Field::DayOfWeek));
        assert!(!FieldSet::parse(Field::DayOfWeek, "1-6")
            .unwrap()
            .is_all(Field::DayOfWeek));
    }

    #[test]
    fn blanks_and_leading_zeros() {
        assert_eq!(values(Field::Hour, " 1 , 02 ,3-4 "), [1, 2, 3, 4]);
        assert_eq!(values(Field::Hour, "5-5"), [5]);
    }

    #[test]
    fn errors() {
        let range = |min, max| CronErrorKind::OutOfRange { min, max };
        assert_eq!(kind(Field::Hour, "25"), range(0, 23));
        assert_eq!(kind(Field::DayOfMonth, "0"), range(1, 31));
        assert_eq!(kind(Field::Month, "1-13"), range(1, 12));
        assert_eq!(kind(Field::DayOfWeek, "8"), range(0, 7));
        assert_eq!(kind(Field::Minute, "99999999999999"), range(0, 59));
        assert_eq!(kind(Field::Hour, "5-2"), CronErrorKind::ReversedRange);
        assert_eq!(kind(Field::Hour, "*/0"), CronErrorKind::ZeroStep);
        assert_eq!(kind(Field::Hour, "5/2"), CronErrorKind::StepWithoutRange);
        for bad in [
            "abc", "1-", "-3", "1-2-3", "*/x", "**", "*-5", "1 2", "*/", "/2",
        ] {
            assert_eq!(kind(Field::Hour, bad), CronErrorKind::BadSyntax, "{bad}");
        }
        for empty in ["", "  ", "1,,2", "1,", ",1"] {
            assert_eq!(kind(Field::Hour, empty), CronErrorKind::Empty, "{empty:?}");
        }
    }

    #[test]
    fn messages_name_the_field_and_the_reason() {
        let msg = |field, text| FieldSet::parse(field, text).unwrap_err().to_string();
        assert_eq!(msg(Field::Hour, "25"), "CronHour: 25 is out of range 0-23");
        assert_eq!(
            msg(Field::Hour, "1,25"),
            "CronHour: 25 is out of range 0-23"
        );
        assert_eq!(
            msg(Field::Minute, "5-2"),
            "CronMinute: 5-2: the start of a range must not be after its end"
        );
        assert_eq!(
            msg(Field::Minute, "*/0"),
            "CronMinute: */0: a step must be at least 1"
        );
        assert_eq!(msg(Field::Month, ""), "CronMonth: empty value");
    }

    #[test]
    fn attribute_names_are_case_insensitive() {
        assert_eq!(Field::from_attribute("cronhour"), Some(Field::Hour));
        assert_eq!(
            Field::from_attribute("CronDayOfWeek"),
            Some(Field::DayOfWeek)
        );
        assert_eq!(Field::from_attribute("CronPrepTime"), None);
    }
}
