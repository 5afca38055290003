//! Writing a body, as `condorx.transport.wire.ad_to_wire` writes an ad.

use std::collections::HashSet;

use condorx_classad::check::references;
use condorx_classad::{unparse, ClassAd, Expr, Value};

use crate::EXPR;

/// Write `ad` as a wire map: a plain literal as itself, anything else (an expression,
/// an error, a list or a nested ad) as its text.
pub fn write_ad(out: &mut Vec<u8>, ad: &ClassAd) {
    let attrs: Vec<(&str, &Expr)> = ad.iter().map(|(n, e)| (n.as_str(), e)).collect();
    write_attrs(out, &attrs);
}

/// Write only the attributes of `ad` named in `names` (those it has, looked up as a
/// ClassAd looks names up), each under the name as `names` spells it, and the
/// attributes of `ad` those read in turn: a projected attribute evaluates in the
/// projected ad as it does in the whole one.
pub fn write_projected(out: &mut Vec<u8>, ad: &ClassAd, names: &[String]) {
    let mut wanted: Vec<String> = Vec::with_capacity(names.len());
    let mut seen = HashSet::new();
    for name in names {
        let Some(expr) = ad.lookup(name) else {
            continue;
        };
        if seen.insert(name.to_ascii_lowercase()) {
            wanted.push(name.clone());
        }
        if !matches!(expr, Expr::Lit(_)) {
            for read in references(expr, ad).internal {
                if seen.insert(read.to_ascii_lowercase()) {
                    wanted.push(read);
                }
            }
        }
    }
    let attrs: Vec<(&str, &Expr)> = wanted
        .iter()
        .filter_map(|n| ad.lookup(n).map(|e| (n.as_str(), e)))
        .collect();
    write_attrs(out, &attrs);
}

fn write_attrs(out: &mut Vec<u8>, attrs: &[(&str, &Expr)]) {
    // Writing to a Vec cannot fail; the results are the writer's own Infallible ones.
    let _ = rmp::encode::write_map_len(out, attrs.len() as u32);
    for &(name, expr) in attrs {
        let _ = rmp::encode::write_str(out, name);
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

/// The ads as one body, for `read_ads` (or `condorx.transport.wire.unpack`).
pub fn write_ads<'a>(ads: impl ExactSizeIterator<Item = &'a ClassAd>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = rmp::encode::write_array_len(&mut out, ads.len() as u32);
    for ad in ads {
        write_ad(&mut out, ad);
    }
    out
}

/// The ads as one body with only the attributes `names` names (see `write_projected`).
pub fn write_ads_projected<'a>(
    ads: impl ExactSizeIterator<Item = &'a ClassAd>,
    names: &[String],
) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = rmp::encode::write_array_len(&mut out, ads.len() as u32);
    for ad in ads {
        write_projected(&mut out, ad, names);
    }
    out
}
