//! What a msgpack value's first byte says it is: the reader's dispatch and the words of
//! its error messages come from this one table.

use rmp::Marker;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Nothing, // the body ended
    Nil,
    Bool,
    Float,
    Str,
    Bytes,
    List,
    Map,
    Ext,
    Reserved,
    Int,
}

impl Kind {
    pub(crate) fn of(first: Option<u8>) -> Kind {
        let Some(first) = first else {
            return Kind::Nothing;
        };
        match Marker::from_u8(first) {
            Marker::Null => Kind::Nil,
            Marker::True | Marker::False => Kind::Bool,
            Marker::F32 | Marker::F64 => Kind::Float,
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => Kind::Str,
            Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => Kind::Bytes,
            Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => Kind::List,
            Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => Kind::Map,
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => Kind::Ext,
            Marker::Reserved => Kind::Reserved,
            _ => Kind::Int,
        }
    }

    /// The kind in the words of the error messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Nothing => "nothing",
            Kind::Nil => "nil",
            Kind::Bool => "boolean",
            Kind::Float => "float",
            Kind::Str => "string",
            Kind::Bytes => "bytes",
            Kind::List => "list",
            Kind::Map => "map",
            Kind::Ext => "ext",
            Kind::Reserved => "reserved byte",
            Kind::Int => "integer",
        }
    }
}
