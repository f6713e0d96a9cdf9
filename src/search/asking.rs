//! What a one-line question asks for: a way past trouble ("npm install
//! fails behind the proxy", "ssh ignores my key"), or a capability ("ssh
//! through a bastion in one command", "add partitions to a kafka topic").
//! Pure; read by ranking ([`rank`](super::rank)): a how-to question
//! ([`asks_how`]) needs a higher relevance, a capability question
//! ([`asks_capability`]) coverage or a KG bridge.
//!
//! Learnings record failures and their corrections. A question about a
//! failure is answered by words it shares with one; a question about a
//! capability shares the program's name and a word or two with the
//! learnings of that program's failures, and none of them answers it.

/// Whether `text` reads as a question in prose that names no trouble: one
/// line, with a word of prose (`a`, `the`, `to`, `my`, …) or a question
/// mark, and none of the words people use to say that something went wrong.
/// A command, a log line or an error message is never one.
pub fn asks_capability(text: &str) -> bool {
    asks_in_prose(text) && !names_trouble_in(text)
}

/// Whether `text` uses a word people use to say that something went wrong.
pub fn names_trouble_in(text: &str) -> bool {
    names_trouble(&words(text))
}

/// Whether `text` reads as a question or a request in prose, whatever it
/// asks: one line, with a word of prose (`a`, `the`, `to`, `my`, …) or a
/// question mark, and no flag. A command, a log or a paste is never one.
pub fn asks_in_prose(text: &str) -> bool {
    let text = text.trim();
    // A question is a sentence or two; a longer line is a log or a paste.
    if text.is_empty() || text.len() > MAX_QUESTION || text.contains('\n') {
        return false;
    }
    // Whole tokens between spaces: `my-pod` in `kubectl logs my-pod` is a
    // name, not the word "my"; a flag makes it a command line.
    let mut prose = text.ends_with('?');
    for raw in text.split_whitespace() {
        if raw.starts_with('-') && raw.len() > 1 {
            return false;
        }
        let t = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        prose |= PROSE.contains(&t.as_str()) || QUESTION.contains(&t.as_str());
    }
    prose
}

/// The longest line read as a question, in bytes.
const MAX_QUESTION: usize = 512;

/// The text's words, lower-cased, an apostrophe dropped inside one
/// ("doesn't" is `doesnt`), split at everything else that is not a letter
/// or a digit.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if matches!(c, '\'' | '\u{2019}') && !word.is_empty() {
            // "can't": the word goes on.
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether the words say that something went wrong: a failure, a refusal,
/// something missing or stuck, a tool that complains or wants something.
fn names_trouble(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        TROUBLE.contains(&w.as_str())
            || TROUBLE_STEMS.iter().any(|s| w.starts_with(s))
            // "runs out of memory", "times out".
            || (w == "out" && words.get(i + 1).is_some_and(|n| n == "of"))
            || (w == "times" && words.get(i + 1).is_some_and(|n| n == "out"))
    })
}

/// Words that open or carry a question, beside [`PROSE`].
const QUESTION: &[&str] = &[
    "we", "is", "are", "do", "does", "how", "what", "which", "can", "should",
];

/// Whether a text is a how-to question: one line asking how to do
/// something ("how do I …", "how to …", "what's the command to …", "can I
/// …"), not a report of something that failed (module doc, 3).
pub fn asks_how(text: &str) -> bool {
    if text.trim().lines().nth(1).is_some() {
        return false;
    }
    // Words between spaces, so that a command's `can-i` is not "can I".
    let lower = text.to_lowercase().replace(['\u{2019}', '\''], " ");
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    // "docker: copy a log file out of a stopped container", "configure vite to
    // proxy …": a task asked for in the imperative, in prose (a word such as "a",
    // "to", "from" among its words, not a command's flags).
    let task = {
        // The label may name a sub-command (`gcloud run deploy: set …`).
        let label = lower
            .split_whitespace()
            .take(4)
            .position(|w| w.ends_with(':'))
            .map_or(0, |p| p + 1);
        let rest = &words[label.min(words.len())..];
        rest.len() >= 5
            && rest.first().is_some_and(|w| TASK_VERBS.contains(w))
            && rest.iter().any(|w| PROSE.contains(w))
            && !text.contains(" --")
            // "save fails on a read-only volume": a report, not a task.
            && !super::logtext::says_failure(text)
    };
    // "can uv run …", "is there a way to …": a question about what a tool can do.
    let opening = task
        || match (words.first().copied(), words.get(1).copied()) {
            (Some("can" | "could"), Some(w)) => !matches!(w, "t" | "not" | "no"),
            (Some("is" | "are"), Some("there")) => true,
            _ => false,
        };
    opening
        || words.windows(2).enumerate().any(|(i, w)| {
            let next = words.get(i + 2).copied().unwrap_or("");
            match (w[0], w[1]) {
                ("how", "to") | ("can", "i") => true,
                // "how can pip download …", "how do tasks pass …": the same question
                // about a tool or a thing rather than the asker.
                ("how", "can" | "do") => !next.is_empty(),
                ("how", "should" | "would") => matches!(next, "i" | "we" | "you"),
                ("what", "s" | "is") => {
                    next == "the"
                        && matches!(
                            words.get(i + 3).copied().unwrap_or(""),
                            "command" | "way" | "difference" | "easiest"
                        )
                }
                _ => false,
            }
        })
}

/// Verbs a task asked for in the imperative starts with ([`asks_how`]).
const TASK_VERBS: &[&str] = &[
    "add",
    "allow",
    "attach",
    "build",
    "cancel",
    "change",
    "clean",
    "configure",
    "convert",
    "copy",
    "create",
    "debug",
    "delete",
    "deploy",
    "disable",
    "download",
    "enable",
    "encrypt",
    "export",
    "expose",
    "find",
    "forward",
    "generate",
    "get",
    "import",
    "increase",
    "install",
    "iterate",
    "keep",
    "limit",
    "list",
    "load",
    "make",
    "migrate",
    "mount",
    "move",
    "open",
    "parametrize",
    "pass",
    "pin",
    "print",
    "publish",
    "record",
    "reduce",
    "remove",
    "rename",
    "reset",
    "resize",
    "restore",
    "restrict",
    "retry",
    "revert",
    "roll",
    "rotate",
    "run",
    "save",
    "schedule",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "skip",
    "speed",
    "split",
    "start",
    "stop",
    "switch",
    "sync",
    "trigger",
    "turn",
    "undo",
    "update",
    "upgrade",
    "use",
    "watch",
];

/// Words of prose, not of a command line ([`asks_how`]).
const PROSE: &[&str] = &[
    "a", "an", "the", "to", "from", "with", "into", "out", "of", "for", "only", "instead",
    "without", "every", "each", "my", "our", "and", "between", "so", "when", "after", "in", "on",
];

/// Whole words that say something went wrong.
const TROUBLE: &[&str] = &[
    "err",
    "denied",
    "deny",
    "cannot",
    "cant",
    "wont",
    "doesnt",
    "dont",
    "didnt",
    "isnt",
    "arent",
    "wasnt",
    "not",
    "no",
    "never",
    "stuck",
    "hung",
    "missing",
    "timeout",
    "timed",
    "lost",
    "lose",
    "loses",
    "wrong",
    "invalid",
    "locked",
    "stale",
    "unable",
    "why",
    "blocked",
    "blocks",
    "blocking",
    "oom",
    "dies",
    "died",
    "dead",
    "unknown",
    "unsupported",
    "incompatible",
    "forbidden",
    "unauthorized",
    "unauthorised",
    "too",
    "fix",
    "problem",
    "issue",
    "trouble",
    "bug",
    "gone",
    "empty",
    "blank",
    "nothing",
    "keeps",
    "still",
    "again",
    "suddenly",
    "anymore",
    "stopped",
    "stops",
    "spurious",
    "flaky",
    "unreachable",
    "bogus",
    "weird",
    "already",
    "needs",
    "wants",
    "requires",
    "says",
    "reports",
    "throws",
    "returns",
    "cycle",
    "expired",
    "expire",
    "expires",
];

/// Stems of words that say something went wrong (`fail` is failed, fails,
/// failing, failure).
const TROUBLE_STEMS: &[&str] = &[
    "fail",
    "error",
    "refus",
    "reject",
    "crash",
    "broke",
    "break",
    "hang",
    "freez",
    "slow",
    "ignor",
    "complain",
    "conflict",
    "exhaust",
    "leak",
    "mismatch",
    "warn",
    "exit",
    "abort",
    "throttl",
    "disappear",
    "corrupt",
    "mangl",
    "garbl",
    "truncat",
    "duplicat",
    "unexpected",
    "panic",
    "segfault",
    "disconnect",
    "vanish",
    "drift",
];

#[cfg(test)]
mod tests {
    use super::asks_capability;

    #[test]
    fn a_question_about_what_a_tool_can_do_asks_for_a_capability() {
        for q in [
            "how do I add partitions to an existing kafka topic",
            "ssh through a bastion to reach private instances in a single command?",
            "nginx: rate-limit requests per client ip on the /login location",
            "preview the documentation site locally",
        ] {
            assert!(asks_capability(q), "{q}");
        }
    }

    #[test]
    fn a_question_about_trouble_is_not_one() {
        for q in [
            "ssh ignores my key because of file permissions",
            "apt is locked by another process",
            "the frontend build crashes running out of memory",
            "android build wants a newer java",
            "why doesn't my cron job run",
            "git will not commit until I set my name and email",
            "the build can't find the openssl headers",
            "my service times out talking to the metadata endpoint",
            "background daemons vanish on logout",
        ] {
            assert!(!asks_capability(q), "{q}");
        }
    }

    #[test]
    fn commands_logs_and_empty_texts_are_not_questions() {
        for q in [
            "gcloud run services logs read api --region europe-west1",
            "ssh-keygen -t ed25519 -C ci@acme.dev -f ~/.ssh/ci_deploy",
            "kubectl logs my-pod",
            "npm i @acme/auth-client",
            "git commit -m 'add the parser to the build'",
            "how do I\nadd a topic",
            &format!("how do I {}", "add a topic to the cluster ".repeat(30)),
            "",
            "   ",
        ] {
            assert!(!asks_capability(q), "{q:?}");
        }
    }
}
