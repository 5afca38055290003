//! Reading a body: bounded, and `None` for anything not plain.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::classad::Shared;
use condorx_classad::share::ExprCache;
use condorx_classad::{parse_expr, ClassAd, Expr, Name, Value};
use rmp::decode::{self, Bytes};
use rmp::Marker;

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

    /// Set `name` to the expression `text`; false when the text does not parse.
    pub fn insert_expr(&mut self, ad: &mut ClassAd, name: Name, text: &str) -> bool {
        match self.parsed(text) {
            Some(Ok(s)) => ad.insert_shared(name, s.clone()),
            Some(Err(e)) => ad.insert(name, e.clone()),
            None => return false,
        }
        true
    }

    fn parsed(&mut self, text: &str) -> Option<&Parsed> {
        if !self.texts.contains_key(text) {
            let expr = parse_expr(text).ok()?;
            self.texts.insert(text.to_owned(), self.cache.share(expr));
        }
        self.texts.get(text)
    }
}

/// The ads of a body, or None when it is not a plain array of plain maps with nothing
/// after it; each ad has room for `extra` attributes more than it carries.
pub fn read_ads(body: &[u8], extra: usize) -> Option<Vec<ClassAd>> {
    let mut rest = Bytes::new(body);
    let count = decode::read_array_len(&mut rest).ok()?;
    let mut reader = ExprReader::new();
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
    reader: &mut ExprReader,
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
