//! A batch of ads as one msgpack body (an array of wire maps), read straight into
//! ClassAds and written straight from them: no Python object is made for an attribute,
//! a value or an expression's text. The collector takes its slot ads this way,
//! thousands to an update, and answers a query for whole ads so.
//!
//! The bytes come from peers, so nothing in them is trusted: a count claims no more room
//! than the body could fill, every read is bounded, and a body that is not exactly what
//! a well-behaved peer sends gives a `ReadError` naming the ad and the attribute (never a
//! panic): an array of maps of attribute names (`[A-Za-z_][A-Za-z0-9_]*`) to nil,
//! booleans, 64-bit integers, floats, strings, and expressions (ext type 1, their text,
//! which must parse).

mod error;
mod kind;
mod names;
mod reader;
mod writer;

pub use error::ReadError;
pub use names::is_attr_name;
pub use reader::{read_ads, ExprReader};
pub use writer::{write_ad, write_ads, write_ads_projected, write_projected};

/// The ext type an expression's text travels as (`condorx.transport.wire._EXPR`).
pub const EXPR: i8 = 1;

/// The most ads, or attributes of an ad, room is reserved for before they are read.
pub const MAX_RESERVED: usize = 4096;
