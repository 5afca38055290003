//! Parse arbitrary text as an expression, an ad and old-syntax ads, then evaluate: nothing
//! may panic or overflow the stack.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(e) = condorx_classad::parse_expr(text) {
        let ad = Arc::new(condorx_classad::parse_ad("[ a = 1; b = { 1, a }; c = [ d = a ] ]").unwrap());
        let _ = condorx_classad::eval_expr(&e, Some(&ad), Some(&ad));
    }
    if let Ok(ad) = condorx_classad::parse_ad(text) {
        let ad = Arc::new(ad);
        for name in ad.names().map(str::to_owned).collect::<Vec<_>>() {
            let _ = condorx_classad::eval_attr(&ad, None, &name);
        }
    }
    let _ = condorx_classad::parse_old_ads(text);
});
