//! A peer's packed body of ads (`condorx-packed`): any bytes are read or refused, never a
//! panic, an endless loop or an allocation the bytes do not pay for; and what is read is
//! written back to a body that reads the same.
#![no_main]

use condorx_classad::unparse_ad;
use condorx_packed::{read_ads, write_ads};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ads) = read_ads(data, 0) {
        let again = write_ads(ads.iter());
        let back = read_ads(&again, 0);
        let texts = |a: &[condorx_classad::ClassAd]| a.iter().map(unparse_ad).collect::<Vec<_>>();
        assert_eq!(back.as_deref().map(texts).ok(), Some(texts(&ads)));
    }
});
