//! Fuzz target for the redactor: it must never panic, never leave a finding behind,
//! and redacting twice must equal redacting once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use learnsync::redact::{findings, redact};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let found = findings(&text);
    assert!(found.windows(2).all(|w| w[0].end <= w[1].start));
    let once = redact(&text);
    assert!(findings(&once).is_empty(), "finding left in {once:?}");
    assert_eq!(redact(&once), once, "not idempotent");
});
