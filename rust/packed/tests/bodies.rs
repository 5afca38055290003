//! Packed bodies from a peer: what a well-behaved peer sends is read back as written,
//! and anything else (cut short, padded, mistyped, lying about its counts, or random) is
//! refused with an error naming the ad and the attribute, never a panic and never a huge
//! allocation.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use condorx_classad::{parse_expr, unparse_ad, ClassAd, Expr, Name, Value};
use condorx_packed::{read_ads, write_ads, write_ads_projected, EXPR};
use proptest::prelude::*;

fn ad(attrs: &[(&str, Expr)]) -> ClassAd {
    let mut ad = ClassAd::new();
    for (name, expr) in attrs {
        ad.insert(Name::new(name), expr.clone());
    }
    ad
}

fn lit(v: Value) -> Expr {
    Expr::Lit(v)
}

fn sample() -> Vec<ClassAd> {
    vec![
        ad(&[
            ("Name", lit(Value::str("slot1@host"))),
            ("Cpus", lit(Value::Int(8))),
            ("LoadAvg", lit(Value::Real(0.25))),
            ("HasFileTransfer", lit(Value::Bool(true))),
            ("Gone", lit(Value::Undefined)),
            (
                "Start",
                parse_expr("KeyboardIdle > 15 * 60 && LoadAvg < 0.3").unwrap(),
            ),
        ]),
        ad(&[
            ("Name", lit(Value::str("slot2@host"))),
            (
                "Start",
                parse_expr("KeyboardIdle > 15 * 60 && LoadAvg < 0.3").unwrap(),
            ),
            ("Big", lit(Value::Int(i64::MIN))),
        ]),
    ]
}

fn texts(ads: &[ClassAd]) -> Vec<String> {
    ads.iter().map(unparse_ad).collect()
}

/// A body of one ad with one attribute, its value written by `value`.
fn one(name: &str, value: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    rmp::encode::write_array_len(&mut out, 1).unwrap();
    rmp::encode::write_map_len(&mut out, 1).unwrap();
    rmp::encode::write_str(&mut out, name).unwrap();
    value(&mut out);
    out
}

#[test]
fn what_is_written_is_read_back() {
    let ads = sample();
    let body = write_ads(ads.iter());
    let back = read_ads(&body, 0).expect("a plain body");
    assert_eq!(texts(&back), texts(&ads));
}

#[test]
fn an_empty_batch_is_an_empty_array() {
    let body = write_ads(std::iter::empty());
    assert_eq!(body, [0x90]);
    assert_eq!(read_ads(&body, 0).map(|a| a.len()), Ok(0));
}

#[test]
fn every_cut_of_a_body_and_any_bytes_after_it_are_refused() {
    let body = write_ads(sample().iter());
    for end in 0..body.len() {
        assert!(read_ads(&body[..end], 0).is_err(), "cut at {end}");
    }
    let mut padded = body.clone();
    padded.push(0xc0);
    assert!(read_ads(&padded, 0).is_err());
}

#[test]
fn what_is_not_an_array_of_maps_is_refused() {
    assert!(read_ads(&[], 0).is_err());
    assert!(read_ads(&[0x80], 0).is_err()); // a map, not an array
    assert!(read_ads(&[0x91, 0x01], 0).is_err()); // an array of an integer
    assert!(read_ads(&[0x91, 0x90], 0).is_err()); // an array of an array
}

/// The error reading `body` gives, as the daemons log it.
fn refusal(body: &[u8]) -> String {
    read_ads(body, 0).expect_err("refused").to_string()
}

#[test]
fn each_refusal_names_the_ad_and_the_attribute() {
    let mut two = write_ads(sample().iter());
    two[0] = 0x93; // claims a third ad
    assert_eq!(
        refusal(&two),
        "ad 2: malformed message: the body ends early"
    );
    assert_eq!(refusal(&[0x80]), "expected a list of ads, got map");
    assert_eq!(
        refusal(&[0x91, 0x01]),
        "ad 0: expected a map of attributes, got integer"
    );
    let bin = one("Memory", |o| rmp::encode::write_bin(o, b"x").unwrap());
    assert_eq!(
        refusal(&bin),
        "ad 0: attribute Memory: unsupported value bytes"
    );
    let bad = one("a b", |o| rmp::encode::write_nil(o).unwrap());
    assert_eq!(refusal(&bad), "ad 0: bad attribute name 'a b'");
    let big = one("A", |o| rmp::encode::write_u64(o, u64::MAX).unwrap());
    assert_eq!(
        refusal(&big),
        "ad 0: attribute A: integer past 64 signed bits"
    );
    let ext2 = one("A", |o| ext(o, 2, b"x"));
    assert_eq!(
        refusal(&ext2),
        "ad 0: attribute A: unsupported value ext type 2"
    );
    let unparsed = one("A", |o| ext(o, EXPR, b"B +"));
    assert!(refusal(&unparsed).starts_with("ad 0: attribute A: expression does not parse"));
    let mut padded = write_ads(sample().iter());
    padded.push(0xc0);
    assert_eq!(
        refusal(&padded),
        "malformed message: bytes after the last ad"
    );
}

#[test]
fn an_expression_text_that_is_not_utf8_is_read_with_replacement_characters() {
    let quoted = one("A", |o| ext(o, EXPR, b"\"\xff\""));
    let ads = read_ads(&quoted, 0).expect("a string expression");
    assert_eq!(
        unparse_ad(&ads[0]),
        unparse_ad(&ad(&[("A", lit(Value::str("\u{fffd}")))]))
    );
}

#[test]
fn a_name_that_is_not_an_attribute_name_is_refused() {
    for bad in ["", "1x", "a-b", "a b", "é"] {
        let body = one(bad, |o| rmp::encode::write_sint(o, 1).map(|_| ()).unwrap());
        assert!(read_ads(&body, 0).is_err(), "{bad:?}");
    }
    let good = one("_x1", |o| {
        rmp::encode::write_sint(o, 1).map(|_| ()).unwrap()
    });
    assert!(read_ads(&good, 0).is_ok());
}

#[test]
fn values_outside_the_plain_types_are_refused() {
    // An integer past 64 signed bits.
    let big = one("A", |o| rmp::encode::write_u64(o, u64::MAX).unwrap());
    assert!(read_ads(&big, 0).is_err());
    // Binary, arrays and maps as values.
    let bin = one("A", |o| rmp::encode::write_bin(o, b"x").unwrap());
    assert!(read_ads(&bin, 0).is_err());
    let arr = one("A", |o| {
        rmp::encode::write_array_len(o, 0).map(|_| ()).unwrap()
    });
    assert!(read_ads(&arr, 0).is_err());
    // A string that is not UTF-8.
    let mut text = one("A", |o| o.extend_from_slice(&[0xa2, 0xff, 0xfe]));
    assert!(read_ads(&text, 0).is_err());
    text = one("A", |o| rmp::encode::write_str(o, "ok").unwrap());
    assert!(read_ads(&text, 0).is_ok());
}

fn ext(o: &mut Vec<u8>, typeid: i8, data: &[u8]) {
    rmp::encode::write_ext_meta(o, data.len() as u32, typeid).unwrap();
    o.extend_from_slice(data);
}

#[test]
fn an_expression_must_be_ext_type_1_and_parse() {
    let good = one("A", |o| ext(o, EXPR, b"B + 1"));
    let ads = read_ads(&good, 0).expect("an expression");
    assert_eq!(
        unparse_ad(&ads[0]),
        unparse_ad(&ad(&[("A", parse_expr("B + 1").unwrap())]))
    );
    assert!(read_ads(&one("A", |o| ext(o, 2, b"B + 1")), 0).is_err());
    assert!(read_ads(&one("A", |o| ext(o, EXPR, &[0xff])), 0).is_err());
    assert!(read_ads(&one("A", |o| ext(o, EXPR, b"B +")), 0).is_err());
    // An ext header that claims more bytes than follow.
    let mut short = one("A", |o| {
        rmp::encode::write_ext_meta(o, 100, EXPR)
            .map(|_| ())
            .unwrap()
    });
    short.extend_from_slice(b"B");
    assert!(read_ads(&short, 0).is_err());
}

#[test]
fn counts_that_claim_more_than_the_body_holds_are_refused_at_once() {
    // Four billion ads, or attributes, in a handful of bytes.
    let mut ads = vec![0xdd];
    ads.extend_from_slice(&u32::MAX.to_be_bytes());
    assert!(read_ads(&ads, 0).is_err());
    let mut attrs = vec![0x91, 0xdf];
    attrs.extend_from_slice(&u32::MAX.to_be_bytes());
    assert!(read_ads(&attrs, 0).is_err());
}

#[test]
fn a_projection_writes_only_the_attributes_it_names_as_it_spells_them() {
    let names = ["cpus".to_owned(), "Name".to_owned(), "Missing".to_owned()];
    let back = read_ads(&write_ads_projected(sample().iter(), &names), 0).unwrap();
    let want = [
        ad(&[
            ("cpus", lit(Value::Int(8))),
            ("Name", lit(Value::str("slot1@host"))),
        ]),
        ad(&[("Name", lit(Value::str("slot2@host")))]),
    ];
    assert_eq!(texts(&back), texts(&want));
    let names_of = |a: &ClassAd| {
        a.iter()
            .map(|(n, _)| n.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names_of(&back[0]), ["cpus", "Name"]);
}

#[test]
fn a_projected_attribute_brings_the_attributes_it_reads() {
    let request = "ifThenElse(MemoryUsage =!= undefined, MemoryUsage, (ImageSize + 1023) / 1024)";
    let job = ad(&[
        ("RequestMemory", parse_expr(request).unwrap()),
        ("ImageSize", lit(Value::Int(4096))),
        ("Owner", lit(Value::str("alice"))),
        ("Other", lit(Value::Int(1))),
    ]);
    let names = ["RequestMemory".to_owned(), "Owner".to_owned()];
    let back = read_ads(&write_ads_projected([job].iter(), &names), 0).unwrap();
    let mut got: Vec<String> = back[0].iter().map(|(n, _)| n.as_str().to_owned()).collect();
    got.sort();
    assert_eq!(got, ["ImageSize", "Owner", "RequestMemory"]);
}

#[test]
fn extra_room_does_not_change_what_is_read() {
    let ads = sample();
    let body = write_ads(ads.iter());
    assert_eq!(texts(&read_ads(&body, 64).unwrap()), texts(&ads));
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_]{0,12}"
}

fn literal() -> impl Strategy<Value = Expr> {
    prop_oneof![
        Just(lit(Value::Undefined)),
        any::<bool>().prop_map(|b| lit(Value::Bool(b))),
        any::<i64>().prop_map(|i| lit(Value::Int(i))),
        (-1e12f64..1e12).prop_map(|r| lit(Value::Real(r))),
        "[ -~]{0,20}".prop_map(|s| lit(Value::str(&s))),
        (0i64..1000).prop_map(|n| parse_expr(&format!("Other + {n} > Cpus")).unwrap()),
    ]
}

fn ads() -> impl Strategy<Value = Vec<ClassAd>> {
    prop::collection::vec(prop::collection::btree_map(name(), literal(), 0..8), 0..6).prop_map(
        |batch| {
            batch
                .into_iter()
                .map(|attrs| {
                    let mut ad = ClassAd::new();
                    for (n, e) in attrs {
                        ad.insert(Name::new(&n), e);
                    }
                    ad
                })
                .collect()
        },
    )
}

proptest! {
    #[test]
    fn any_batch_of_plain_ads_is_read_back_as_written(batch in ads()) {
        let body = write_ads(batch.iter());
        let back = read_ads(&body, 0).expect("a plain body");
        prop_assert_eq!(texts(&back), texts(&batch));
    }

    #[test]
    fn any_bytes_are_read_or_refused_without_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = read_ads(&bytes, 0);
    }

    #[test]
    fn a_body_with_one_byte_changed_is_read_or_refused_without_a_panic(
        batch in ads(), at in any::<prop::sample::Index>(), byte in any::<u8>()
    ) {
        let mut body = write_ads(batch.iter());
        let i = at.index(body.len());
        body[i] = byte;
        let _ = read_ads(&body, 0);
    }
}
