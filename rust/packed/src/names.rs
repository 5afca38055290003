//! The attribute names a wire ad may use.

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_attr_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::is_attr_name;

    #[test]
    fn names_are_classad_identifiers() {
        for ok in ["a", "_", "Requirements", "x_1", "_Z9"] {
            assert!(is_attr_name(ok), "{ok}");
        }
        for bad in ["", "1a", "a-b", "a b", "é", "a.b", "[a]"] {
            assert!(!is_attr_name(bad), "{bad}");
        }
    }
}
