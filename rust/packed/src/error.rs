//! What is wrong with a body, and where: the ad's index and the attribute's name, so the
//! daemon's log and the peer's error reply say which ad of thousands broke the rules.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The ad's index in the body; None when the body itself is wrong.
    pub ad: Option<usize>,
    /// The attribute being read, when its name was read.
    pub attribute: Option<String>,
    pub reason: String,
}

impl ReadError {
    pub(crate) fn body(reason: impl Into<String>) -> Self {
        ReadError {
            ad: None,
            attribute: None,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ad) = self.ad {
            write!(f, "ad {ad}: ")?;
        }
        if let Some(name) = &self.attribute {
            write!(f, "attribute {name}: ")?;
        }
        f.write_str(&self.reason)
    }
}

impl std::error::Error for ReadError {}

/// What a value's first byte says it is, in the words of the error messages.
pub(crate) fn kind(first: Option<u8>) -> &'static str {
    use rmp::Marker;
    let Some(first) = first else {
        return "nothing";
    };
    match Marker::from_u8(first) {
        Marker::Null => "nil",
        Marker::True | Marker::False => "boolean",
        Marker::F32 | Marker::F64 => "float",
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "string",
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "bytes",
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "list",
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "map",
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "ext",
        Marker::Reserved => "reserved byte",
        _ => "integer",
    }
}
