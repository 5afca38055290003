//! A batch of ads as one msgpack body (an array of wire maps), read straight into
//! ClassAds and written straight from them: no Python object is made for an attribute,
//! a value or an expression's text. The collector takes its slot ads this way,
//! thousands to an update, and answers a query for whole ads so.
//!
//! Only what a well-behaved peer sends is read here: a map of attribute names to nil,
//! booleans, 64-bit integers, floats, strings, and expressions (ext type 1, their text).
//! Anything else, or bytes that are not msgpack, gives `None`, and the caller's own
//! reading of the body says what is wrong and where.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{unparse, ClassAd, Expr, Name, Value};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rmp::decode::{self, Bytes};
use rmp::Marker;

use crate::classad::PyClassAd;
use crate::wire::{is_attr_name, Reader};

/// The ext type an expression's text travels as (`condorx.wire._EXPR`).
const EXPR: i8 = 1;

/// The most ads, or attributes of an ad, room is reserved for before they are read.
const MAX_RESERVED: usize = 4096;

/// The ads of a body, or None when it is not a plain array of plain maps; each ad has
/// room for `extra` attributes more than it carries.
fn read_ads(body: &[u8], extra: usize) -> Option<Vec<ClassAd>> {
    let mut rest = Bytes::new(body);
    let count = decode::read_array_len(&mut rest).ok()?;
    let mut reader = Reader::new();
    let mut names = HashMap::new();
    // A peer's counts are not trusted: room is reserved for no more than the body could
    // hold, and never much (a few bytes must not claim gigabytes); past it, vectors grow.
    let mut ads = Vec::with_capacity((count as usize).min(body.len()).min(MAX_RESERVED));
    for _ in 0..count {
        ads.push(read_ad(&mut rest, &mut reader, &mut names, extra)?);
    }
    rest.remaining_slice().is_empty().then_some(ads)
}

/// One ad; `names` holds the names of the body's ads so far (its ads mostly share them).
fn read_ad<'a>(
    rest: &mut Bytes<'a>,
    reader: &mut Reader,
    names: &mut HashMap<&'a str, Name>,
    extra: usize,
) -> Option<ClassAd> {
    let len = decode::read_map_len(rest).ok()?;
    // Each attribute takes at least two bytes of the body.
    let room = (len as usize)
        .min(rest.remaining_slice().len() / 2)
        .min(MAX_RESERVED);
    let mut ad = ClassAd::with_capacity(room + extra);
    for _ in 0..len {
        let key = read_str(rest)?;
        let name = match names.get(key) {
            Some(name) => name.clone(),
            None if is_attr_name(key) => names.entry(key).or_insert(Name::new(key)).clone(),
            None => return None,
        };
        match read_value(rest)? {
            Item::Lit(value) => ad.insert(name, Expr::Lit(value)),
            Item::Expr(text) => {
                if !reader.insert_expr(&mut ad, name, text) {
                    return None;
                }
            }
        }
    }
    Some(ad)
}

enum Item<'a> {
    Lit(Value),
    Expr(&'a str),
}

fn read_value<'a>(rest: &mut Bytes<'a>) -> Option<Item<'a>> {
    let first = *rest.remaining_slice().first()?;
    let item = match Marker::from_u8(first) {
        Marker::Null => {
            decode::read_nil(rest).ok()?;
            Item::Lit(Value::Undefined)
        }
        Marker::True | Marker::False => Item::Lit(Value::Bool(decode::read_bool(rest).ok()?)),
        Marker::F32 => Item::Lit(Value::Real(f64::from(decode::read_f32(rest).ok()?))),
        Marker::F64 => Item::Lit(Value::Real(decode::read_f64(rest).ok()?)),
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
            Item::Lit(Value::str(read_str(rest)?))
        }
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => Item::Expr(read_expr_text(rest)?),
        // Every integer marker; one past 64 signed bits is not plain.
        _ => Item::Lit(Value::Int(decode::read_int::<i64, _>(rest).ok()?)),
    };
    Some(item)
}

fn read_str<'a>(rest: &mut Bytes<'a>) -> Option<&'a str> {
    let (text, tail) = decode::read_str_from_slice(rest.remaining_slice()).ok()?;
    *rest = Bytes::new(tail);
    Some(text)
}

fn read_expr_text<'a>(rest: &mut Bytes<'a>) -> Option<&'a str> {
    let meta = decode::read_ext_meta(rest).ok()?;
    if meta.typeid != EXPR {
        return None;
    }
    let data = rest.remaining_slice();
    let size = usize::try_from(meta.size).ok()?;
    let text = data.get(..size)?;
    *rest = Bytes::new(data.get(size..)?);
    std::str::from_utf8(text).ok()
}

/// The ads of one msgpack body (an array of wire maps), each with `stamp`'s attributes
/// set over its own (the collector's LastHeardFrom, say); or None where the body is not
/// plain (see the module's comment): the caller then reads it attribute by attribute.
#[pyfunction]
#[pyo3(signature = (body, stamp=None))]
fn ads_from_msgpack(body: &[u8], stamp: Option<PyRef<'_, PyClassAd>>) -> Option<Vec<PyClassAd>> {
    let extra = stamp.as_ref().map_or(0, |s| s.inner().len());
    let ads = read_ads(body, extra)?;
    Some(
        ads.into_iter()
            .map(|mut ad| {
                if let Some(stamp) = &stamp {
                    ad.update(stamp.inner());
                }
                PyClassAd::from_arc(Arc::new(ad))
            })
            .collect(),
    )
}

/// Write `ad` as a wire map: a plain literal as itself, anything else (an expression,
/// an error, a list or a nested ad) as its text, as `condorx.wire.ad_to_wire` does.
fn write_ad(out: &mut Vec<u8>, ad: &ClassAd) {
    let attrs: Vec<(&Name, &Expr)> = ad.iter().collect();
    // Writing to a Vec cannot fail; the results are the writer's own Infallible ones.
    let _ = rmp::encode::write_map_len(out, attrs.len() as u32);
    for (name, expr) in attrs {
        let _ = rmp::encode::write_str(out, name.as_str());
        match expr {
            Expr::Lit(Value::Undefined) => {
                let _ = rmp::encode::write_nil(out);
            }
            Expr::Lit(Value::Bool(b)) => {
                let _ = rmp::encode::write_bool(out, *b);
            }
            Expr::Lit(Value::Int(i)) => {
                let _ = rmp::encode::write_sint(out, *i);
            }
            Expr::Lit(Value::Real(r)) => {
                let _ = rmp::encode::write_f64(out, *r);
            }
            Expr::Lit(Value::Str(t)) => {
                let _ = rmp::encode::write_str(out, t);
            }
            other => {
                let text = unparse(other);
                let _ = rmp::encode::write_ext_meta(out, text.len() as u32, EXPR);
                out.extend_from_slice(text.as_bytes());
            }
        }
    }
}

/// The ads as one msgpack body, for `ads_from_msgpack` (or `condorx.wire.unpack`).
#[pyfunction]
fn ads_to_msgpack<'py>(py: Python<'py>, ads: Vec<PyRef<'py, PyClassAd>>) -> Bound<'py, PyBytes> {
    let mut out = Vec::new();
    let _ = rmp::encode::write_array_len(&mut out, ads.len() as u32);
    for ad in &ads {
        write_ad(&mut out, ad.inner());
    }
    PyBytes::new(py, &out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ads_from_msgpack, m)?)?;
    m.add_function(wrap_pyfunction!(ads_to_msgpack, m)?)?;
    Ok(())
}
