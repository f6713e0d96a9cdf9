//! Fuzz target: `capture::payload::parse` on arbitrary bytes, in every format
//! and with every event override, must return (never panic), and what it
//! returns must survive the pure steps capture takes next.
#![no_main]

use learnsync::capture::payload::{Format, HookEvent, parse};
use learnsync::capture::{decide, shell};
use libfuzzer_sys::fuzz_target;

const FORMATS: [Format; 4] = [Format::Auto, Format::Claude, Format::Opencode, Format::Codex];
const EVENTS: [Option<HookEvent>; 5] = [
    None,
    Some(HookEvent::PostToolUse),
    Some(HookEvent::PostToolUseFailure),
    Some(HookEvent::PreToolUse),
    Some(HookEvent::UserPromptSubmit),
];

fuzz_target!(|data: &[u8]| {
    // The first byte picks the format and event, the rest is the payload.
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let format = FORMATS[usize::from(pick) % FORMATS.len()];
    let event = EVENTS[usize::from(pick / 4) % EVENTS.len()];
    let Ok(Some(ev)) = parse(bytes, format, event) else {
        return;
    };
    let ignore = shell::default_ignore_patterns();
    let now = learnsync::timestamp::Timestamp::from_unix(1_700_000_000);
    if let Some((learning, _key)) = decide::failure_learning(&ev, "fuzz", &ignore, now) {
        // What capture writes must read back as the same learning.
        let text = learning.to_markdown();
        let back = learnsync::learning::Learning::parse(text.as_bytes());
        assert_eq!(back.as_ref().ok(), Some(&learning), "{text}");
    }
    if let Some(prompt) = ev.prompt.as_deref() {
        let _ = decide::prompt_correction(prompt);
    }
});
