//! Attribute names: case-insensitive, spelling kept, hash computed once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

/// The scope names that an unqualified reference can denote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Plain,
    My,
    Target,
    Parent,
}

/// An attribute name as written, with its case-folded hash so that lookups never allocate.
#[derive(Clone, Debug)]
pub struct Name {
    pub text: Arc<str>,
    pub hash: u64,
    pub kind: NameKind,
}

impl Name {
    pub fn new(text: &str) -> Name {
        let kind = if text.eq_ignore_ascii_case("my") {
            NameKind::My
        } else if text.eq_ignore_ascii_case("target") || text.eq_ignore_ascii_case("other") {
            NameKind::Target
        } else if text.eq_ignore_ascii_case("parent") {
            NameKind::Parent
        } else {
            NameKind::Plain
        };
        Name {
            text: intern(text),
            hash: ci_hash(text),
            kind,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn is(&self, other: &str) -> bool {
        self.text.eq_ignore_ascii_case(other)
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.hash == other.hash && self.text.eq_ignore_ascii_case(&other.text)
    }
}

/// Interned names kept at most. Why a bound: names come from untrusted text, and a flood
/// of distinct ones must not grow the table without end; past it, names are allocated.
const MAX_INTERNED: usize = 200_000;

/// The shared copy of an attribute name. A pool repeats the same few hundred names in
/// every ad; sharing them saves memory and keeps the bytes in cache while matching, and
/// lets a lookup compare pointers before it compares bytes.
fn intern(text: &str) -> Arc<str> {
    static TABLE: OnceLock<Mutex<HashSet<Arc<str>, FxBuild>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| Mutex::new(HashSet::with_hasher(FxBuild)));
    let Ok(mut set) = table.lock() else {
        return Arc::from(text);
    };
    if let Some(shared) = set.get(text) {
        return shared.clone();
    }
    let fresh: Arc<str> = Arc::from(text);
    if text.len() <= 64 && set.len() < MAX_INTERNED {
        set.insert(fresh.clone());
    }
    fresh
}

/// The interner's hasher: names are short and not chosen to collide, so SipHash's
/// defence is not worth its cost on every attribute parsed.
#[derive(Clone, Copy, Default)]
struct FxBuild;

impl std::hash::BuildHasher for FxBuild {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            if let Some(dst) = w.get_mut(..chunk.len()) {
                dst.copy_from_slice(chunk);
            }
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
}

/// FxHash over ASCII-lowercased bytes: fast, and equal for names equal ignoring case.
pub fn ci_hash(s: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0;
    let bytes = s.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let v = u64::from_le_bytes(w) | lower_mask(u64::from_le_bytes(w));
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(K);
    }
    h ^ (bytes.len() as u64)
}

/// The 0x20 bits that lower-case the ASCII capitals in a word of eight bytes.
fn lower_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a capital when it is >= 'A' and <= 'Z' and has its high bit clear.
    let ge_a = (w | (ONES * 0x80)).wrapping_sub(ONES * 0x41);
    let gt_z = (w | (ONES * 0x80)).wrapping_sub(ONES * 0x5b);
    let upper = ge_a & !gt_z & !w & (ONES * 0x80);
    upper >> 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_ignores_case() {
        for (a, b) in [
            ("Memory", "MEMORY"),
            ("requestmemory", "RequestMemory"),
            ("a_Z@[`{", "A_z@[`{"),
            ("x", "X"),
        ] {
            assert_eq!(ci_hash(a), ci_hash(b), "{a} {b}");
        }
        assert_ne!(ci_hash("Memory"), ci_hash("Memorz"));
        // '@' and '[' sit next to the capitals and must not be folded.
        assert_ne!(ci_hash("abcdefg@"), ci_hash("abcdefg`"));
        assert_ne!(ci_hash("abcdefg["), ci_hash("abcdefg{"));
    }
}
