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
