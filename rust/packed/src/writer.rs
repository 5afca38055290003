//! Writing a body, as `condorx.transport.wire.ad_to_wire` writes an ad.

use condorx_classad::{unparse, ClassAd, Expr, Name, Value};

use crate::EXPR;

/// Write `ad` as a wire map: a plain literal as itself, anything else (an expression,
/// an error, a list or a nested ad) as its text.
pub fn write_ad(out: &mut Vec<u8>, ad: &ClassAd) {
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

/// The ads as one body, for `read_ads` (or `condorx.transport.wire.unpack`).
pub fn write_ads<'a>(ads: impl ExactSizeIterator<Item = &'a ClassAd>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = rmp::encode::write_array_len(&mut out, ads.len() as u32);
    for ad in ads {
        write_ad(&mut out, ad);
    }
    out
}
