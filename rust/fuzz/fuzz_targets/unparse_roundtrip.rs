//! Whatever parses must unparse to text that parses back to the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(e) = condorx_classad::parse_expr(text) else { return };
    let printed = condorx_classad::unparse(&e);
    let back = condorx_classad::parse_expr(&printed).expect("unparse output must parse");
    assert!(back.same_as(&e), "{text:?} -> {printed:?} re-parsed differently");
});
