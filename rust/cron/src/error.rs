//! CronError: the crate's one error type, a kind plus the CronTab field (and item) it is about.

use std::fmt;

use crate::field::Field;

/// What was wrong. Each example is the text of one field (or the time zone name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CronErrorKind {
    /// `""`, `" "`, `1,,2`, `1,` — an empty field or an empty item in a list.
    Empty,
    /// `abc`, `1-`, `-3`, `1-2-3`, `*/x`, `**` — text that is not a number, `*`, a range,
    /// a list or a step.
    BadSyntax,
    /// `5/2` — a step after a single number; the manual only allows a step after a range
    /// or `*` ("appending a range or the all values operator").
    StepWithoutRange,
    /// `25` for CronHour, `0` for CronDayOfMonth, `1-13` for CronMonth — a number outside
    /// the field's allowed values.
    OutOfRange {
        /// Smallest allowed value of the field.
        min: u32,
        /// Largest allowed value of the field.
        max: u32,
    },
    /// `5-2` — a range whose start is after its end ("the lefthand integer must be less
    /// than the righthand integer"; `5-5` is allowed and means 5).
    ReversedRange,
    /// `*/0`, `0-10/0` — a step of zero.
    ZeroStep,
    /// `Mars/Olympus_Mons` — a time zone name that is not in the IANA database.
    UnknownTimeZone,
}

/// A field that does not parse, or a time zone that is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CronError {
    pub kind: CronErrorKind,
    /// The field the text was for; `None` for [`CronErrorKind::UnknownTimeZone`].
    pub field: Option<Field>,
    /// The offending text: the list item (`25` in `1,25`), or the whole field when it is
    /// empty, or the time zone name.
    pub text: String,
}

impl CronError {
    pub(crate) fn in_field(field: Field, kind: CronErrorKind, text: &str) -> CronError {
        CronError {
            kind,
            field: Some(field),
            text: text.to_owned(),
        }
    }

    /// The HTCondor attribute name of the field (`CronHour`), if the error is about one.
    pub fn attribute(&self) -> Option<&'static str> {
        self.field.map(Field::attribute)
    }
}

impl fmt::Display for CronError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(field) = self.field {
            write!(f, "{}: ", field.attribute())?;
        }
        let text = &self.text;
        match &self.kind {
            CronErrorKind::Empty if text.trim().is_empty() => write!(f, "empty value"),
            CronErrorKind::Empty => write!(f, "empty item in list {text:?}"),
            CronErrorKind::BadSyntax => write!(
                f,
                "{text:?} is not a number, *, range (a-b), list (a,b) or step (*/n, a-b/n)"
            ),
            CronErrorKind::StepWithoutRange => {
                write!(f, "{text}: a step needs * or a range before the /")
            }
            CronErrorKind::OutOfRange { min, max } => {
                write!(f, "{text} is out of range {min}-{max}")
            }
            CronErrorKind::ReversedRange => {
                write!(f, "{text}: the start of a range must not be after its end")
            }
            CronErrorKind::ZeroStep => write!(f, "{text}: a step must be at least 1"),
            CronErrorKind::UnknownTimeZone => write!(f, "unknown time zone {text:?}"),
        }
    }
}

impl std::error::Error for CronError {}
