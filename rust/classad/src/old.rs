//! Old ClassAd syntax: one `Name = expression` per line, ads separated by blank lines,
//! as `condor_q -l` and `condor_status -l` print them.

use crate::classad::ClassAd;
use crate::error::{SyntaxError, SyntaxKind};
use crate::lexer::Syntax;
use crate::name::Name;
use crate::parser::Parser;
use crate::share::ExprCache;

/// Attributes an ad can gain after parsing without reallocating.
const ROOM_TO_GROW: usize = 4;

/// Parse every ad of an old-syntax text. Lines starting with `#` are comments.
///
/// A line that is not `Name = expression` is an error naming its line, column and
/// attribute. (HTCondor's reader instead ends the ad there and silently skips to the next
/// blank line, losing the rest of the ad; condorx refuses rather than lose data quietly.)
pub fn parse_old_ads(text: &str) -> Result<Vec<ClassAd>, SyntaxError> {
    let mut ads: Vec<ClassAd> = Vec::new();
    // Ads listed together repeat their policies and Requirements: keep one of each.
    let mut cache = ExprCache::new();
    let mut cur = ClassAd::new();
    let mut started = false;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let body = line.trim_start();
        if body.trim_end().is_empty() {
            if started {
                // The next ad is likely the size of this one: size it so, not by doubling,
                // with room for the few attributes a daemon adds (LastRejMatchReason, ...)
                // without moving a million ads' attributes.
                let next = ClassAd::with_capacity(cur.len() + ROOM_TO_GROW);
                ads.push(std::mem::replace(&mut cur, next));
                started = false;
            }
            continue;
        }
        if body.starts_with('#') {
            continue;
        }
        let at = line_start + (line.len() - body.len());
        let (name, expr) = parse_line(text, at, line_start + line.len())?;
        match cache.share(expr) {
            Ok(shared) => cur.insert_shared(name, shared),
            Err(own) => cur.insert(name, own),
        }
        started = true;
    }
    if started {
        ads.push(cur);
    }
    Ok(ads)
}

/// Parse one old-syntax ad (the first ad of the text; an empty text gives an empty ad).
pub fn parse_old_ad(text: &str) -> Result<ClassAd, SyntaxError> {
    let mut ads = parse_old_ads(text)?;
    Ok(if ads.is_empty() {
        ClassAd::new()
    } else {
        ads.swap_remove(0)
    })
}

/// One `Name = expr` line on its own, as HTCondor's wire protocol sends each attribute
/// of an ad (a string literal in it may hold a raw newline: the line is not split).
pub fn parse_old_line(line: &str) -> Result<(Name, crate::ast::Expr), SyntaxError> {
    parse_line(line, 0, line.len())
}

/// `Name = expr` found between byte offsets `start` and `end` of `text`.
fn parse_line(
    text: &str,
    start: usize,
    end: usize,
) -> Result<(Name, crate::ast::Expr), SyntaxError> {
    let line = text.get(start..end).unwrap_or("");
    let bad = || SyntaxError::new(SyntaxKind::BadOldLine, start, text);
    let eq = line.find('=').ok_or_else(bad)?;
    // Only spaces are trimmed: HTCondor keeps a tab before `=` as part of the name.
    let raw_name = line.get(..eq).unwrap_or("").trim_matches(' ');
    let name = old_name(raw_name).ok_or_else(bad)?;
    // Parse the expression in the whole text so that errors point at the right line and
    // column, then insist that it ends on this line.
    let sub = text.get(..end).unwrap_or(text);
    // Like HTCondor's reader, take the first whole expression and ignore what follows it.
    let mut p = Parser::with_syntax(sub, start + eq + 1, Syntax::Old)?;
    let expr = p.parse_expr().map_err(|mut e| {
        e.attribute = Some(name.text.to_string());
        e
    })?;
    Ok((name, expr))
}

/// The name is the text before `=` as it stands, whatever it holds: HTCondor checks
/// nothing there and does not unquote `'A b'`.
fn old_name(raw: &str) -> Option<Name> {
    (!raw.is_empty()).then(|| Name::new(raw))
}
