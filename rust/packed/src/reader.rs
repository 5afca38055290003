//! Reading a body: bounded, and an error naming the ad and the attribute for anything
//! not plain.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::classad::Shared;
use condorx_classad::share::ExprCache;
use condorx_classad::{parse_expr, ClassAd, Expr, Name, Value};
use rmp::decode::{self, Bytes};
use rmp::Marker;

use crate::error::ReadError;
use crate::kind::Kind;
use crate::{is_attr_name, EXPR, MAX_RESERVED};

/// An expression's text, parsed once per reader: shared among the ads, or (a literal, or
/// past the cache's room) each ad's own copy, as `ExprCache::share` gives it.
type Parsed = Result<Arc<Shared>, Expr>;

/// Expressions' texts parsed once for a whole batch of ads (they repeat from ad to ad).
pub struct ExprReader {
    texts: HashMap<String, Parsed>,
    cache: ExprCache,
}

impl Default for ExprReader {
    fn default() -> Self {
        Self::new()
    }
}

impl ExprReader {
    pub fn new() -> Self {
        ExprReader {
            texts: HashMap::new(),
            cache: ExprCache::new(),
        }
    }

    /// Set `name` to the expression `text`; the parser's complaint when it does not parse.
    pub fn insert_expr(&mut self, ad: &mut ClassAd, name: Name, text: &str) -> Result<(), String> {
        match self.parsed(text)? {
            Ok(s) => ad.insert_shared(name, s.clone()),
            Err(e) => ad.insert(name, e.clone()),
        }
        Ok(())
    }

    fn parsed(&mut self, text: &str) -> Result<&Parsed, String> {
        if !self.texts.contains_key(text) {
            let expr = parse_expr(text).map_err(|e| format!("expression does not parse: {e}"))?;
            self.texts.insert(text.to_owned(), self.cache.share(expr));
        }
        self.texts
            .get(text)
            .ok_or_else(|| "expression lost".to_owned())
    }
}

const ENDS: &str = "malformed message: the body ends early";

/// What went wrong inside an ad: the attribute, when its name was read, and why.
type Fault = (Option<String>, String);

/// The ads of a body, or what is wrong with it and where (the body must be a plain array
/// of plain maps with nothing after it); each ad has room for `extra` attributes more
/// than it carries.
pub fn read_ads(body: &[u8], extra: usize) -> Result<Vec<ClassAd>, ReadError> {
    let mut rest = Bytes::new(body);
    let count = decode::read_array_len(&mut rest).map_err(|_| {
        ReadError::body(expected(body.first().copied(), Kind::List, "a list of ads"))
    })?;
    let mut reader = ExprReader::new();
    let mut names = HashMap::new();
    // A peer's counts are not trusted: room is reserved for no more than the body could
    // hold, and never much (a few bytes must not claim gigabytes); past it, vectors grow.
    let mut ads = Vec::with_capacity((count as usize).min(body.len()).min(MAX_RESERVED));
    for i in 0..count as usize {
        let ad =
            read_ad(&mut rest, &mut reader, &mut names, extra).map_err(|(attribute, reason)| {
                ReadError {
                    ad: Some(i),
                    attribute,
                    reason,
                }
            })?;
        ads.push(ad);
    }
    if !rest.remaining_slice().is_empty() {
        return Err(ReadError::body(
            "malformed message: bytes after the last ad",
        ));
    }
    Ok(ads)
}

/// Why a value that should be of kind `want` could not be read as one.
fn expected(first: Option<u8>, want: Kind, what: &str) -> String {
    match Kind::of(first) {
        Kind::Nothing => ENDS.to_owned(),
        k if k == want => ENDS.to_owned(), // the right kind, cut short
        k => format!("expected {what}, got {}", k.name()),
    }
}

fn peek(rest: &Bytes<'_>) -> Option<u8> {
    rest.remaining_slice().first().copied()
}

/// One ad; `names` holds the names of the body's ads so far (its ads mostly share them).
fn read_ad<'a>(
    rest: &mut Bytes<'a>,
    reader: &mut ExprReader,
    names: &mut HashMap<&'a str, Name>,
    extra: usize,
) -> Result<ClassAd, Fault> {
    let first = peek(rest);
    let len = decode::read_map_len(rest)
        .map_err(|_| (None, expected(first, Kind::Map, "a map of attributes")))?;
    // Each attribute takes at least two bytes of the body.
    let room = (len as usize)
        .min(rest.remaining_slice().len() / 2)
        .min(MAX_RESERVED);
    let mut ad = ClassAd::with_capacity(room + extra);
    for _ in 0..len {
        let first = peek(rest);
        let key = read_str(rest).map_err(|reason| match Kind::of(first) {
            Kind::Str | Kind::Nothing => (None, reason),
            k => (
                None,
                format!("bad attribute name: {} is not a string", k.name()),
            ),
        })?;
        let name = match names.get(key) {
            Some(name) => name.clone(),
            None if is_attr_name(key) => names.entry(key).or_insert(Name::new(key)).clone(),
            None => return Err((None, format!("bad attribute name '{key}'"))),
        };
        let fault = |reason: String| (Some(key.to_owned()), reason);
        match read_value(rest).map_err(fault)? {
            Item::Lit(value) => ad.insert(name, Expr::Lit(value)),
            Item::Expr(text) => reader.insert_expr(&mut ad, name, &text).map_err(fault)?,
        }
    }
    Ok(ad)
}

enum Item<'a> {
    Lit(Value),
    Expr(Cow<'a, str>),
}

fn read_value<'a>(rest: &mut Bytes<'a>) -> Result<Item<'a>, String> {
    let first = peek(rest);
    let ends = |_| ENDS.to_owned();
    let item = match Kind::of(first) {
        Kind::Nothing => return Err(ENDS.to_owned()),
        Kind::Nil => {
            decode::read_nil(rest).map_err(ends)?;
            Item::Lit(Value::Undefined)
        }
        Kind::Bool => Item::Lit(Value::Bool(decode::read_bool(rest).map_err(ends)?)),
        Kind::Float if first == Some(Marker::F32.to_u8()) => Item::Lit(Value::Real(f64::from(
            decode::read_f32(rest).map_err(ends)?,
        ))),
        Kind::Float => Item::Lit(Value::Real(decode::read_f64(rest).map_err(ends)?)),
        Kind::Str => Item::Lit(Value::str(read_str(rest)?)),
        Kind::Ext => Item::Expr(read_expr_text(rest)?),
        Kind::Reserved => return Err("malformed message: a reserved byte".to_owned()),
        k @ (Kind::Bytes | Kind::List | Kind::Map) => {
            return Err(format!("unsupported value {}", k.name()))
        }
        // Every integer marker; one past 64 signed bits is not plain.
        Kind::Int => Item::Lit(Value::Int(decode::read_int::<i64, _>(rest).map_err(
            |e| match e {
                decode::NumValueReadError::OutOfRange => "integer past 64 signed bits".to_owned(),
                _ => ENDS.to_owned(),
            },
        )?)),
    };
    Ok(item)
}

fn read_str<'a>(rest: &mut Bytes<'a>) -> Result<&'a str, String> {
    let (text, tail) =
        decode::read_str_from_slice(rest.remaining_slice()).map_err(|e| match e {
            decode::DecodeStringError::InvalidUtf8(..) => "a string that is not UTF-8".to_owned(),
            _ => ENDS.to_owned(),
        })?;
    *rest = Bytes::new(tail);
    Ok(text)
}

/// An expression's text. Text that is not UTF-8 is read with U+FFFD for its bad bytes
/// (then it must still parse), as the daemons' Python reading of a frame reads it.
fn read_expr_text<'a>(rest: &mut Bytes<'a>) -> Result<Cow<'a, str>, String> {
    let meta = decode::read_ext_meta(rest).map_err(|_| ENDS.to_owned())?;
    if meta.typeid != EXPR {
        return Err(format!("unsupported value ext type {}", meta.typeid));
    }
    let data = rest.remaining_slice();
    let size = usize::try_from(meta.size).map_err(|_| ENDS.to_owned())?;
    let text = data.get(..size).ok_or_else(|| ENDS.to_owned())?;
    *rest = Bytes::new(data.get(size..).ok_or_else(|| ENDS.to_owned())?);
    Ok(String::from_utf8_lossy(text))
}
