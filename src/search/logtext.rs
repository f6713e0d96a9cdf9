//! What a pasted log says, without what wrote it: the lines of a text that
//! carry its failure, with the framing every logger, runner and runtime
//! adds taken out. Pure; ranking reads a text's words through it.
//!
//! A person reading a log skips the same things every time: stack frames
//! (`File "…", line 3, in run` and the source line under it, `at
//! com.x.Y(Y.java:12)`, `goroutine 7 [running]:`), CI framing (`##[group]`,
//! `[Pipeline]`, `section_start:…`), each line's prefix (timestamps,
//! levels, glog's `E1204 10:00:00.123 42 file.go:7]`, `[pod/name/c]`,
//! `svc-1 |`, syslog's `host prog[pid]:`), and, in a log with an error
//! line, its info and debug lines. Those words say which machine, which
//! framework and which run, never which failure, yet each one a learning
//! happens to hold weighs in the maximum a learning could score: a Python
//! traceback's `recent call last`, `module` and `execute` kept the error's
//! own learning below the threshold. Single lines keep their words (only
//! a recognised prefix goes): there is no framing to tell apart.

/// The text to rank by: the failure's lines, or `None` when nothing was
/// taken out (the text is ranked as it is) or when everything would be.
pub fn salient(text: &str) -> Option<String> {
    reading(text).0
}

/// What a paste has to say, read once: [`salient`]'s text, and the lines
/// that say what failed (at most [`MAX_FAILURE_LINES`], in order): those a
/// logger gave an error level (`panic:`, `E1204 …]`, `"level": "error"`)
/// and those that say something failed in their own words (see
/// [`says_failure`]), without the framing [`salient`] takes out and
/// without lines that only report an exit status (`Process exited with
/// code 1`, systemd's `Failed with result 'exit-code'`): every failing job
/// prints those, whatever failed. One line has no failure lines.
pub(super) fn reading(text: &str) -> (Option<String>, Vec<String>) {
    const EXIT: &[&str] = &[
        "exit code",
        "exit status",
        "exited with",
        "status=",
        "failed with result",
        "returned non-zero",
        "non-zero exit",
        "main process exited",
    ];
    if !text.contains('\n') && !text.trim_start().starts_with('{') && !has_prefix(text) {
        return (None, Vec::new());
    }
    let (kept, changed) = read(text);
    let failing: Vec<String> = if text.trim().contains('\n') {
        kept.iter()
            .filter(|(level, line)| {
                let lower = line.to_ascii_lowercase();
                (*level == Level::Error || says_failure(line) || says_trouble(&lower))
                    && !EXIT.iter().any(|e| lower.contains(e))
            })
            .take(MAX_FAILURE_LINES)
            .map(|(_, line)| line.clone())
            .collect()
    } else {
        Vec::new()
    };
    let salient = (changed && !kept.is_empty()).then(|| {
        let lines: Vec<&str> = kept.iter().map(|(_, l)| l.as_str()).collect();
        lines.join("\n")
    });
    (salient, failing)
}

/// Failure lines a reading keeps: a paste's failure is early or late, and
/// a log of thousands of error lines repeats a few.
pub(super) const MAX_FAILURE_LINES: usize = 12;

/// What a failure line says beyond [`says_failure`]'s words, for
/// [`reading`]'s failure lines only (the log's reading keeps its own list).
fn says_trouble(lower: &str) -> bool {
    const MARKS: &[&str] = &[
        "reset by peer",
        "no route",
        "no rule",
        "not valid",
        "deadlock",
        "data race",
        "race detected",
        "broken pipe",
        "unexpected",
        "illegal",
        "oomkilled",
        "crashloopbackoff",
        "toomanyrequests",
        "terminated",
    ];
    MARKS.iter().any(|m| lower.contains(m))
}

/// A paste's lines as a reader keeps them, each with its level, and
/// whether anything was taken out.
fn read(text: &str) -> (Vec<(Level, String)>, bool) {
    // Each line kept: its level, whether a prefix stood before it, its text.
    let mut kept: Vec<(Level, bool, String)> = Vec::new();
    let mut prefixed_lines = 0;
    let mut changed = false;
    let mut skip_source = false;
    for raw in text.lines() {
        let mut line = strip_controls(raw);
        // A JSON log line is read as its message, which may be a frame or framing
        // like any other line (`"msg": "  File \"/srv/app/cli.py\", line 3, in main"`).
        let mut json_level = None;
        let unprefixed = strip_prefix(&line).1;
        if let Some((level, message)) =
            json_message(unprefixed).or_else(|| logfmt_message(unprefixed))
        {
            json_level = Some(level);
            line = message;
            changed = true;
        }
        // A frame behind a syslog or journal prefix is still a frame: judge the
        // line with its prefix taken off too (which also takes the indent).
        let (prefix_level, bare) = strip_prefix(&line);
        let prefixed = bare.len() < line.trim_start().len();
        if skip_source {
            skip_source = false;
            let indented_source = line.starts_with("    ") && !line.trim().is_empty();
            if indented_source || prefixed && is_source_line(bare) {
                changed = true;
                continue;
            }
        }
        if is_python_frame(&line) || prefixed && is_python_frame(bare) {
            skip_source = true;
            changed = true;
            continue;
        }
        if is_framing(&line) || prefixed && is_framing(bare) {
            changed = true;
            continue;
        }
        let level = json_level.unwrap_or(prefix_level);
        if bare.len() != line.len() || line.len() != raw.len() {
            changed = true;
        }
        if prefixed || json_level.is_some() {
            prefixed_lines += 1;
        }
        if is_runner_line(bare) {
            changed = true;
            continue;
        }
        let rest = bare.trim();
        if !rest.is_empty() {
            kept.push((level, prefixed || json_level.is_some(), rest.to_string()));
        }
    }
    // A logger's lines (three or more behind a prefix) whose prefix gave no level:
    // the lines that say something failed are the error's, the rest its chatter.
    // An error line that ends in a colon (`Error:`) heads the message on the line after.
    // A line with no prefix among them is what the failing program printed (a runner
    // prefixes its own lines, not the build's `> No cached version of …`).
    if prefixed_lines >= 3 {
        let mut heading = false;
        for (level, prefixed, line) in &mut kept {
            if *level == Level::Plain && *prefixed {
                *level = if heading || says_failure(line) {
                    Level::Error
                } else {
                    Level::Chatter
                };
            }
            heading = *level == Level::Error && line.ends_with(':');
        }
    }
    // A long paste of lines no logger gave a level: those that say something
    // failed and the few around them (the command, the message's other lines)
    // are the failure's; the rest is what ran fine around it.
    let plain = kept.iter().filter(|(l, _, _)| *l == Level::Plain).count();
    if plain >= LONG {
        let fails: Vec<bool> = kept
            .iter()
            .map(|(l, _, line)| *l == Level::Plain && says_failure(line))
            .collect();
        let failing: Vec<usize> = (0..kept.len())
            .filter(|&i| fails[i] || kept[i].0 == Level::Error)
            .collect();
        if !failing.is_empty() {
            for (i, (level, _, _)) in kept.iter_mut().enumerate() {
                if *level == Level::Plain {
                    let near = failing.iter().any(|&f| f.abs_diff(i) <= NEAR);
                    *level = if fails[i] {
                        Level::Error
                    } else if near {
                        Level::Warning
                    } else {
                        Level::Chatter
                    };
                }
            }
        }
    }
    if kept.iter().any(|(l, _, _)| *l == Level::Error) {
        let before = kept.len();
        kept.retain(|(l, _, _)| *l != Level::Chatter);
        changed |= kept.len() != before;
    }
    let mut out: Vec<(Level, String)> = Vec::new();
    for (level, _, line) in kept {
        if out.iter().any(|(_, l)| *l == line) {
            changed = true;
        } else {
            out.push((level, line));
        }
    }
    (out, changed)
}

/// Lines of a paste with no levels from which only the failure's are kept,
/// and how many lines around a failing line belong to it.
const LONG: usize = 10;
const NEAR: usize = 2;

/// Words a line uses to say that something failed, in any logger's wording.
pub(super) fn says_failure(line: &str) -> bool {
    const MARKS: &[&str] = &[
        "error",
        "exception",
        "fatal",
        "fail",
        "denied",
        "refused",
        "cannot",
        "can't",
        "could not",
        "couldn't",
        "unable",
        "not found",
        "no such",
        "invalid",
        "timed out",
        "timeout",
        "exceeded",
        "panic",
        "killed",
        "out of memory",
        "not supported",
        "unsupported",
        "unauthorized",
        "forbidden",
        "required",
        "missing",
        "not allowed",
        "rejected",
        "aborted",
        "segmentation fault",
        "restricted",
        "no space",
        "not exist",
        "mismatch",
        "incompatible",
        "expired",
        "too many",
        "conflict",
        "unknown",
    ];
    let lower = line.to_ascii_lowercase();
    MARKS.iter().any(|m| lower.contains(m))
}

/// What a line's prefix says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// No level: kept, unless a logger's other lines say which are the failure's.
    Plain,
    /// A warning: kept.
    Warning,
    /// error, fatal, critical, panic, severe, glog `E`/`F`.
    Error,
    /// info, debug, trace, notice, glog `I`: dropped when an error line is there.
    Chatter,
}

fn level_word(word: &str) -> Option<Level> {
    let w = word
        .trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ':' | '<' | '>' | '|' | '"'));
    match w.to_ascii_lowercase().as_str() {
        "error" | "err" | "fatal" | "crit" | "critical" | "panic" | "severe" | "alert"
        | "emerg" => Some(Level::Error),
        "info" | "information" | "debug" | "dbug" | "trace" | "notice" | "verbose" | "inf"
        | "dbg" => Some(Level::Chatter),
        "warn" | "warning" | "wrn" => Some(Level::Warning),
        _ => None,
    }
}

/// ANSI escape sequences (colours, bold) and other control characters
/// removed; a tab stays.
pub(super) fn strip_controls(line: &str) -> String {
    let mut out = crate::text::strip_ansi(line);
    out.retain(|c| !c.is_control() || c == '\t');
    out
}

/// `Traceback (most recent call last):` and `  File "x.py", line 3, in f`.
fn is_python_frame(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("Traceback (most recent call last)")
        || (t.starts_with("File \"") && t.contains("\", line "))
}

/// The source line Python prints under a frame, once a prefix took its indent:
/// code (`main()`, `raise`), not the exception (`KeyError: 'x'`) nor a frame.
fn is_source_line(bare: &str) -> bool {
    !bare.is_empty()
        && bare.len() <= 120
        && !is_python_frame(bare)
        && !bare.contains(": ")
        && !bare.ends_with(':')
}

/// A CI runner's own line (its banner, its steps, its closing exit code),
/// behind any log prefix: the same in every job, whatever failed.
pub(super) fn is_runner_framing(line: &str) -> bool {
    let line = strip_controls(line);
    let (_, rest) = strip_prefix(&line);
    is_runner_line(rest) || is_runner_line(&line)
}

/// Lines that are the runtime's or the runner's, not the failure's.
fn is_framing(line: &str) -> bool {
    let t = line.trim();
    let indented = line.len() != line.trim_start().len();
    // Java, JavaScript, C#: `at pkg.Class.method(File.java:12)`, `at f (x.js:1:2)`.
    if indented && t.starts_with("at ") && (t.ends_with(')') || t.contains(".js:")) {
        return true;
    }
    // `... 12 more`, `... 3 common frames omitted`.
    if t.starts_with("... ") && (t.ends_with(" more") || t.ends_with(" omitted")) {
        return true;
    }
    // Go: `goroutine 7 [running]:` and a frame's `\t/src/x.go:12 +0x1d`.
    if t.starts_with("goroutine ") && t.ends_with("]:") {
        return true;
    }
    if indented && t.contains(".go:") && (t.contains(" +0x") || !t.contains(' ')) {
        return true;
    }
    // journalctl's header: `-- Journal begins at …, ends at now. --`.
    if t.starts_with("-- Journal begins at")
        || t.starts_with("-- Logs begin at")
        || t == "-- No entries --"
    {
        return true;
    }
    // CI runners' framing: GitHub Actions' groups, Jenkins' steps, GitLab's sections.
    if t.starts_with("##[group]")
        || t.starts_with("##[endgroup]")
        || t.starts_with("[Pipeline] ")
        || t.starts_with("section_start:")
        || t.starts_with("section_end:")
    {
        return true;
    }
    t.is_empty()
}

/// What CI runners say around every job (GitLab's runner, Jenkins, GitHub
/// Actions), and a wrapper's closing exit code: the same in every failing
/// job, whatever failed. A closer that carries more than its code (GitLab's
/// `ERROR: Job failed: failed to pull image …`) is the failure, and stays.
fn is_runner_line(line: &str) -> bool {
    const FRAMING: &[&str] = &[
        // Azure Pipelines' task banner and the script it wrote.
        "Task         :",
        "Description  :",
        "Version      :",
        "Author       :",
        "Help         :",
        "Generating script.",
        "/usr/bin/bash --noprofile --norc",
        "Script contents:",
        "Running with gitlab-runner",
        // CircleCI prints the step's shell before its output.
        "#!/bin/bash -eo pipefail",
        "Preparing the \"",
        "Preparing environment",
        "Getting source from Git repository",
        "Fetching changes",
        "Skipping Git submodules",
        "Created fresh repository",
        "Using docker image ",
        "Pulling docker image ",
        "Using effective pull policy",
        "Restoring cache",
        "Saving cache",
        "Uploading artifacts",
        "Cleaning up project directory",
        "Cleaning up file based variables",
        "Job succeeded",
        "Finished: ",
        "Started by ",
        // GitHub Actions' "Set up job", checkout, cache and artifact steps, and
        // "Complete job".
        "Current runner version:",
        "Runner Image Provisioner",
        "GITHUB_TOKEN Permissions",
        "Secret source: ",
        "Prepare workflow directory",
        "Prepare all required actions",
        "Getting action download info",
        "Download action repository ",
        "Complete job name:",
        "Syncing repository: ",
        "Getting Git version info",
        "Temporarily overriding HOME=",
        "Deleting the contents of ",
        "Initializing the repository",
        "Fetching the repository",
        "Determining the checkout info",
        "Checking out the ref",
        "Cache restored successfully",
        "Cache restored from key:",
        "Cache hit occurred on the primary key",
        "With the provided path, there will be ",
        "Artifact name is valid!",
        "Root directory input is valid!",
        "Beginning upload of artifact content",
        "Finished uploading artifact content",
        "[command]/usr/bin/git ",
        "Post job cleanup.",
        "Cleaning up orphan processes",
    ];
    const CLOSERS: [&str; 7] = [
        "Job failed",
        // CircleCI's and Buildkite's closers.
        "Exited with code",
        "The command exited with status",
        "script returned exit code",
        "Error: Process completed with exit code",
        "Process completed with exit code",
        "command exited with code",
    ];
    let mut t = line.trim();
    if let Some((first, after)) = t.split_once(' ')
        && first.ends_with(':')
        && level_word(first).is_some()
    {
        t = after.trim_start();
    }
    // A rule of `=` or `-` with at most a banner's words in it (`==== Starting
    // Command Output ====`).
    let rule = t.starts_with("=====") || t.starts_with("-----") && t.ends_with("-----");
    if rule
        || FRAMING.iter().any(|o| t.starts_with(o))
        || (t.starts_with("Executing \"") && t.ends_with("stage of the job script"))
    {
        return true;
    }
    // systemd's closers for a unit whose process exited 1: the same for every failure
    // (a status of its own, `203/EXEC`, is the failure and stays).
    if let Some((unit, said)) = t.split_once(": ")
        && [".service", ".scope", ".socket", ".timer"]
            .iter()
            .any(|k| unit.ends_with(k))
        && (said.starts_with("Main process exited, code=exited, status=1/FAILURE")
            || said.starts_with("Failed with result 'exit-code'"))
    {
        return true;
    }
    CLOSERS.iter().any(|c| {
        t.strip_prefix(c).is_some_and(|rest| {
            rest.split(|c: char| !c.is_ascii_alphabetic())
                .all(|w| matches!(w, "" | "exit" | "code" | "status"))
        })
    })
}

/// Whether a one-line text opens with a log prefix worth taking off.
fn has_prefix(line: &str) -> bool {
    let line = strip_controls(line);
    let (_, rest) = strip_prefix(&line);
    rest.len() + 8 < line.len()
}

/// Takes a line's log prefix off: what it said of the line, and the rest.
fn strip_prefix(line: &str) -> (Level, &str) {
    let mut rest = line.trim_start();
    if let Some((tag, msg)) = actions_tag(rest) {
        return (level_word(tag).unwrap_or(Level::Plain), msg);
    }
    // `[pod/name/container] ` and compose's `svc-1  | `.
    if let Some((inner, msg)) = rest.strip_prefix('[').and_then(|a| a.split_once("] "))
        && inner.starts_with("pod/")
        && !inner.contains(' ')
    {
        rest = msg.trim_start();
    }
    if let Some((svc, msg)) = rest.split_once("| ") {
        let svc = svc.trim();
        if !svc.is_empty()
            && svc.len() <= 40
            && svc
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            rest = msg;
        }
    }
    if let Some((level, msg)) = glog(rest).or_else(|| rfc5424(rest)) {
        return (level, msg);
    }
    let mut level = Level::Plain;
    let mut stripped = false;
    // Up to six leading pieces of timestamp, level, thread, logger or host.
    for _ in 0..6 {
        let t = rest.trim_start();
        // The runner's timestamp, then a level tag (`…Z ##[error]Process completed
        // …`); `##[group]` and the like stay for the framing test.
        if stripped
            && let Some((tag, msg)) = actions_tag(t)
            && let Some(tagged) = level_word(tag)
        {
            return (tagged, msg);
        }
        // A bracketed group with spaces inside that holds a number or a level:
        // Apache's `[Thu Jan 22 04:57:47.305 2026] [core:error] [pid 49]`,
        // TeamCity's `[03:26:07]E: [Step 2/4]`.
        if let Some((said, after)) = bracket_group(t) {
            level = said.unwrap_or(level);
            rest = after;
            stripped = true;
            continue;
        }
        let Some((piece, after)) = t.find(char::is_whitespace).map(|i| t.split_at(i)) else {
            break;
        };
        // `info[21:53:41]`: a pretty-printer's level glued to its time.
        let glued = piece
            .split_once('[')
            .filter(|(word, stamp)| !word.is_empty() && is_stamp(stamp))
            .and_then(|(word, _)| level_word(word));
        if let Some(l) = glued {
            level = l;
            rest = after;
            stripped = true;
            continue;
        }
        // logcat's `I ActivityManager:`: a level letter and a tag, after the time
        // (a sentence's "I could not …" has no tag).
        if stripped
            && let [letter] = piece.as_bytes()
            && let Some(l) = level_letter(*letter)
            && let Some((tag, msg)) = after.trim_start().split_once(char::is_whitespace)
            && tag.len() > 1
            && tag.ends_with(':')
        {
            level = l;
            rest = msg;
            continue;
        }
        if let Some(l) = level_word(piece) {
            level = l;
            // A bare `error:` opening the text is the message's own word,
            // unless a glog header follows it (a wrapper's prefix).
            if !stripped && !piece.starts_with('[') {
                return match glog(after.trim_start()) {
                    Some((_, msg)) => (level, msg),
                    None => (level, t),
                };
            }
            rest = after;
            continue;
        }
        let host = || {
            let next = after.trim_start();
            stripped && next.split_whitespace().next().is_some_and(is_syslog_tag)
        };
        // A process or thread id after the time.
        let id = stripped && piece.len() <= 7 && piece.bytes().all(|b| b.is_ascii_digit());
        if is_stamp(piece)
            || id
            || is_bracketed(piece)
            || is_syslog_tag(piece)
            || is_file_line(piece)
            || host()
        {
            rest = after;
            stripped = true;
            continue;
        }
        break;
    }
    // A glog line behind a syslog or journal prefix (`host kubectl[42]: E0314
    // 10:01:12.551203 21877 memcache.go:265] …`).
    if stripped && let Some((inner, msg)) = glog(rest.trim_start()) {
        return (inner, msg);
    }
    (level, rest.trim_start())
}

/// GitHub Actions' `##[error]`, `##[group]`: the tag and what follows it.
fn actions_tag(t: &str) -> Option<(&str, &str)> {
    t.strip_prefix("##[")?.split_once(']')
}

/// A leading `[…]` that a logger wrote: at most 48 characters, holding a
/// digit or a level word (the level it names, if any), and the rest of the
/// line. A level letter glued behind it (`]E:`) is read too.
fn bracket_group(t: &str) -> Option<(Option<Level>, &str)> {
    let inner_end = t.strip_prefix('[')?.find(']')? + 1;
    if inner_end > 48 {
        return None;
    }
    let inner = &t[1..inner_end];
    let named = inner
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(level_word);
    if named.is_none() && !inner.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let after = &t[inner_end + 1..];
    let glued = after.as_bytes();
    if glued.len() >= 2 && glued[1] == b':' && level_letter(glued[0]).is_some() {
        return Some((level_letter(glued[0]), &after[2..]));
    }
    // Only a whole piece: `[3/4]x` is not a prefix.
    if !after.is_empty() && !after.starts_with(char::is_whitespace) {
        return None;
    }
    Some((named, after))
}

/// A one-letter level (logcat's `V D I W E F`, TeamCity's `i:`/`E:`).
fn level_letter(b: u8) -> Option<Level> {
    match b {
        b'E' | b'F' => Some(Level::Error),
        b'W' => Some(Level::Warning),
        b'I' | b'i' | b'D' | b'V' => Some(Level::Chatter),
        _ => None,
    }
}

/// glog: `E1204 10:00:00.123456   4242 file.go:42] message`.
fn glog(line: &str) -> Option<(Level, &str)> {
    let b = line.as_bytes();
    if b.len() < 6 || !matches!(b[0], b'I' | b'W' | b'E' | b'F') {
        return None;
    }
    if !b[1..5].iter().all(u8::is_ascii_digit) || b[5] != b' ' {
        return None;
    }
    let close = line.find("] ")?;
    if close > 80 {
        return None;
    }
    let level = match b[0] {
        b'I' => Level::Chatter,
        b'W' => Level::Warning,
        _ => Level::Error,
    };
    Some((level, &line[close + 2..]))
}

/// RFC 5424 syslog: `<11>1 2026-11-09T02:31:52Z host app 4242 - - message`; the
/// priority's severity is the level (0–3 an error, 4 a warning, 5–7 chatter).
fn rfc5424(line: &str) -> Option<(Level, &str)> {
    let (pri, rest) = line.strip_prefix('<')?.split_once('>')?;
    let pri: u16 = pri.parse().ok()?;
    let (version, mut rest) = rest.split_once(' ')?;
    if version != "1" {
        return None;
    }
    // Time, host, app, process id, message id, then structured data (`-` or `[…]`).
    for _ in 0..5 {
        rest = rest.trim_start().split_once(' ')?.1;
    }
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix("- ") {
        Some(r) => r,
        None if rest.starts_with('[') => rest.split_once("] ")?.1,
        None => rest,
    };
    let level = match pri % 8 {
        0..=3 => Level::Error,
        4 => Level::Warning,
        _ => Level::Chatter,
    };
    Some((level, rest))
}

/// A timestamp's piece: `2025-03-08T16:17:51.073Z`, `16:17:51`, `2025/03/08`,
/// `Dec`/`4` of syslog, `[2025-03-08`, `16:17:51,073]`.
fn is_stamp(piece: &str) -> bool {
    let p = piece.trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ','));
    if p.is_empty() {
        return false;
    }
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    if p.len() == 3 && MONTHS.contains(&p.to_ascii_lowercase().as_str()) {
        return true;
    }
    // A 12-hour clock: zerolog's console `2:20PM`, Windows' `2:20:11 PM`.
    if matches!(p, "AM" | "PM" | "am" | "pm") {
        return true;
    }
    let p = ["AM", "PM", "am", "pm"]
        .iter()
        .find_map(|m| p.strip_suffix(m).filter(|t| t.contains(':')))
        .unwrap_or(p);
    let digits = p.bytes().filter(u8::is_ascii_digit).count();
    // Seconds since the epoch (`1771444778.146`), logcat's `10-05`.
    let epoch = p.split_once('.').map_or(p, |(whole, _)| whole);
    if (9..=13).contains(&epoch.len())
        && digits + p.matches('.').count().min(1) == p.len()
        && epoch.bytes().all(|b| b.is_ascii_digit())
    {
        return true;
    }
    if let Some((m, d)) = p.split_once('-')
        && m.len() == 2
        && d.len() == 2
        && digits == 4
    {
        return true;
    }
    digits >= 1
        && p.bytes().all(|c| {
            c.is_ascii_digit() || matches!(c, b'-' | b':' | b'.' | b'/' | b'T' | b'Z' | b'+' | b',')
        })
        && (digits == p.len() && p.len() <= 2
            || p.contains(':')
            || p.matches('-').count() == 2
            || p.contains('/'))
}

/// `src/app/sync.py:344:`, `main.go:42:`: the source line a logger printed from.
fn is_file_line(piece: &str) -> bool {
    let Some(head) = piece.strip_suffix(':') else {
        return false;
    };
    let Some((file, line)) = head.rsplit_once(':') else {
        return false;
    };
    !line.is_empty()
        && line.bytes().all(|c| c.is_ascii_digit())
        && file.contains('.')
        && file
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-'))
}

/// `[main]`, `[scheduler-8]`, `[http-nio-8080-exec-1]`: a thread or logger
/// in brackets, no spaces inside.
fn is_bracketed(piece: &str) -> bool {
    piece.len() > 2
        && piece.starts_with('[')
        && (piece.ends_with(']') || piece.ends_with("]:"))
        && !piece[1..].contains('[')
}

/// syslog's `sshd[1234]:` or `kernel:` after the host.
fn is_syslog_tag(piece: &str) -> bool {
    let Some(name) = piece.strip_suffix(':') else {
        return false;
    };
    let name = match name.split_once('[') {
        Some((n, pid))
            if pid.ends_with(']') && pid[..pid.len() - 1].bytes().all(|b| b.is_ascii_digit()) =>
        {
            n
        }
        Some(_) => return false,
        None => return false,
    };
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

/// A JSON log line's message: its string values, the logger's own fields
/// (time, level, caller, logger, thread) left out.
fn json_message(line: &str) -> Option<(Level, String)> {
    let t = line.trim();
    if !(t.starts_with('{') && t.ends_with('}')) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(t).ok()?;
    let object = value.as_object()?;
    let mut out: Vec<String> = Vec::new();
    collect_strings(object, &mut out);
    let level = ["level", "lvl", "severity"]
        .iter()
        .find_map(|k| object.get(*k).and_then(|v| v.as_str()).and_then(level_word))
        .unwrap_or(Level::Plain);
    Some((level, out.join(" ")))
}

/// A logfmt line's message (`time=… level=error msg="dial tcp: refused"`):
/// its values, the logger's own fields left out, as for a JSON line.
fn logfmt_message(line: &str) -> Option<(Level, String)> {
    let mut rest = line.trim();
    let mut level = Level::Plain;
    let mut out: Vec<String> = Vec::new();
    let mut message = false;
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
        {
            return None;
        }
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => {
                let mut end = None;
                let mut escaped = false;
                for (i, c) in quoted.char_indices() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => {
                            end = Some(i);
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                let end = end?;
                (quoted[..end].replace("\\\"", "\""), &quoted[end + 1..])
            }
            None => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (after[..end].to_string(), &after[end..])
            }
        };
        let key = key.to_ascii_lowercase();
        if matches!(key.as_str(), "level" | "lvl" | "severity") {
            level = level_word(&value).unwrap_or(level);
        } else if matches!(key.as_str(), "msg" | "message" | "err" | "error") {
            message = true;
            if !value.is_empty() {
                out.push(value);
            }
        } else if !FRAMING.contains(&key.as_str()) && !value.is_empty() {
            out.push(value);
        }
        rest = next.trim_start();
    }
    message.then(|| (level, out.join(" ")))
}

/// A structured log line's fields that say who logged, where and when.
const FRAMING: [&str; 16] = [
    "ts",
    "time",
    "timestamp",
    "@timestamp",
    "level",
    "lvl",
    "severity",
    "caller",
    "logger",
    "thread",
    "pid",
    "host",
    "hostname",
    "source",
    "file",
    "line",
];

fn collect_strings(object: &serde_json::Map<String, serde_json::Value>, out: &mut Vec<String>) {
    for (key, v) in object {
        if FRAMING.contains(&key.to_ascii_lowercase().as_str()) {
            continue;
        }
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Object(inner) => collect_strings(inner, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> String {
        salient(text).unwrap_or_else(|| text.to_string())
    }

    #[test]
    fn a_loggers_lines_without_a_level_keep_those_that_say_something_failed() {
        let t = "src/app/sync.py:12: cache warmup finished in 412ms\nsrc/app/sync.py:115: sending heartbeat to coordinator\nsrc/app/sync.py:344: google.auth.exceptions.DefaultCredentialsError: Could not determine credentials.\nsrc/app/sync.py:160: received SIGTERM, draining connections";
        assert_eq!(
            said(t),
            "google.auth.exceptions.DefaultCredentialsError: Could not determine credentials."
        );
        let j = "Oct 26 21:41:50 web-3 agent[37]: loaded configuration\nOct 26 21:41:51 web-3 agent[37]: dial tcp: connection refused\nOct 26 21:41:54 web-3 agent[37]: api.service: Main process exited, code=exited, status=1/FAILURE\nOct 26 21:41:55 web-3 agent[37]: api.service: Failed with result 'exit-code'.";
        assert_eq!(said(j), "dial tcp: connection refused");
        let r = "<14>1 2026-11-09T02:31:48.586Z laptop sched 17 - - sending heartbeat\n<11>1 2026-11-09T02:31:52.677Z laptop sched 17 - - CommandNotFoundError: conda activate is not set up\n<14>1 2026-11-09T02:31:59.794Z laptop sched 17 - - checkpoint saved";
        assert_eq!(
            said(r),
            "CommandNotFoundError: conda activate is not set up"
        );
        let p = "info[21:53:41] region=eu-west-1\nerror[21:53:44] GatedRepoError: 401 Client Error.\ninfo[21:53:45] retrying";
        assert_eq!(said(p), "GatedRepoError: 401 Client Error.");
        let json = "{\"level\": \"info\", \"msg\": \"step 4/11 complete\"}\n{\"level\": \"error\", \"msg\": \"Traceback (most recent call last):\"}\n{\"level\": \"error\", \"msg\": \"  File \\\"/srv/app/cli.py\\\", line 166, in main\"}\n{\"level\": \"error\", \"msg\": \"    return run(args)\"}\n{\"level\": \"error\", \"msg\": \"An error occurred (ExpiredToken): the token has expired.\"}";
        assert_eq!(
            said(json),
            "An error occurred (ExpiredToken): the token has expired."
        );
        // `Error:` heads the message on the next line.
        let c = "app-1  | ./app/components/Counter.tsx\napp-1  | Error:\napp-1  |   x You're importing a component that needs useEffect.\napp-1  | ready in 3.1s";
        assert_eq!(
            said(c),
            "Error:\nx You're importing a component that needs useEffect."
        );
        // Two lines behind a prefix are too few to call the rest chatter.
        let two = "main.go:42: opening db\nmain.go:43: dial tcp: connection refused";
        assert_eq!(said(two), "opening db\ndial tcp: connection refused");
    }

    #[test]
    fn a_journal_header_and_a_glog_line_behind_a_journal_prefix_are_framing() {
        let j = "-- Journal begins at Fri 2026-09-08 07:12:01 UTC, ends at now. --
                 2026-09-11T14:02:50+0000 ip-10-0-3-41 app[44029]: feature flags refreshed
                 2026-09-11T14:02:55+0000 ip-10-0-3-41 app[44029]: E0314 10:01:12.551203   21877 memcache.go:265] couldn't get current server API group list
                 2026-09-11T14:02:58+0000 ip-10-0-3-41 app[44029]: leader lease renewed";
        assert_eq!(said(j), "couldn't get current server API group list");
    }

    #[test]
    fn more_loggers_prefixes_are_read_for_their_level() {
        // Apache's error log: a bracketed time, `[module:level]`, `[pid N]`.
        let apache = "[Mon Mar 02 10:11:12.000001 2026] [mpm_prefork:notice] [pid 811] resuming normal operations\n[Mon Mar 02 10:11:13.000001 2026] [proxy:error] [pid 811] AH00957: backend refused the connection\n[Mon Mar 02 10:11:14.000001 2026] [mpm_prefork:notice] [pid 811] caught SIGWINCH";
        assert_eq!(said(apache), "AH00957: backend refused the connection");
        // TeamCity: a level letter glued to the time, then the step.
        let tc = "[10:00:01]i: \t [Step 1/3] restoring sources\n[10:00:02]E: \t [Step 1/3] linker said no\n[10:00:03]i: \t [Step 1/3] publishing artifacts";
        assert_eq!(said(tc), "linker said no");
        // Seconds since the epoch.
        let epoch = "1767225600.125 opened the pool\n1767225601.250 could not reach the gradle daemon\n1767225602.375 uploaded 4 files";
        assert_eq!(said(epoch), "could not reach the gradle daemon");
        // logcat's threadtime: date, time, pid, tid, level letter, tag.
        let logcat = "03-14 09:00:00.100  4242  4250 I Choreographer: skipped 3 frames\n03-14 09:00:00.200  4242  4250 E AndroidRuntime: java.lang.IllegalStateException: no looper\n03-14 09:00:00.300  4242  4250 D Looper: idle";
        assert_eq!(said(logcat), "java.lang.IllegalStateException: no looper");
        // logfmt: the message and the other fields, not the logger's.
        let logfmt = "ts=2026-03-02T10:00:00Z level=info msg=\"poller started\"\nts=2026-03-02T10:00:01Z level=error msg=\"lease lost\" err=\"context deadline exceeded\"\nts=2026-03-02T10:00:02Z level=info msg=\"retrying\"";
        assert_eq!(said(logfmt), "lease lost context deadline exceeded");
        // compose without a space before its bar.
        let compose =
            "queue-1| subscriber ready\nqueue-1| AMQP connection refused\nqueue-1| retry in 5s";
        assert_eq!(said(compose), "AMQP connection refused");
        // A 12-hour clock: zerolog's console writer, Windows' event viewer.
        let zerolog =
            "3:04PM INF cache warmed\n3:04PM ERR lease lost to node-b\n3:05PM INF retrying";
        assert_eq!(said(zerolog), "lease lost to node-b");
        let windows = "2:20:11 PM Information service started\n2:20:12 PM Error disk quota exceeded on D:\n2:20:13 PM Information heartbeat";
        assert_eq!(said(windows), "disk quota exceeded on D:");
        // A sentence's "I" after the time is no level.
        let prose = "10:00:01 I restarted the worker\n10:00:02 I checked df";
        assert_eq!(said(prose), "I restarted the worker\nI checked df");
    }

    #[test]
    fn a_long_paste_without_levels_keeps_the_failure_and_its_neighbours() {
        let mut lines: Vec<String> = (0..12)
            .map(|i| format!("indexed shard {i} in 40ms"))
            .collect();
        lines.insert(6, "$ terraform apply".to_string());
        lines.insert(7, "Error: creating bucket: BucketAlreadyExists".to_string());
        lines.insert(8, "  with aws_s3_bucket.logs,".to_string());
        let kept = said(&lines.join("\n"));
        assert_eq!(
            kept,
            "indexed shard 5 in 40ms\n$ terraform apply\nError: creating bucket: BucketAlreadyExists\nwith aws_s3_bucket.logs,\nindexed shard 6 in 40ms"
        );
        // Nine plain lines are not yet a long paste: all stay.
        let short: Vec<String> = (0..8).map(|i| format!("indexed shard {i}")).collect();
        let text = format!("{}\nError: disk full", short.join("\n"));
        assert_eq!(salient(&text), None);
    }

    #[test]
    fn a_python_traceback_is_its_exception() {
        let t = "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 137, in <module>\n    main()\n  File \"/srv/app/runner.py\", line 9, in run\n    result = step.execute(ctx)\ngoogle.auth.exceptions.DefaultCredentialsError: Could not determine credentials.";
        assert_eq!(
            said(t),
            "google.auth.exceptions.DefaultCredentialsError: Could not determine credentials."
        );
    }

    #[test]
    fn java_and_go_frames_go_and_the_exception_stays() {
        let t = "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n\tat java.util.Arrays.copyOf(Arrays.java:3332)\n\tat com.acme.Loader.run(Loader.java:88)\n\t... 12 more\nCaused by: java.io.IOException: disk full";
        assert_eq!(
            said(t),
            "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\nCaused by: java.io.IOException: disk full"
        );
        let g = "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/app/main.go:12 +0x1d";
        assert_eq!(
            said(g),
            "panic: runtime error: index out of range [3] with length 3\nmain.main()"
        );
    }

    #[test]
    fn log_prefixes_go_and_chatter_goes_when_an_error_is_there() {
        let t = "2025-03-08T16:17:51.073Z INFO  [main] starting task id=7\n2025-03-08T16:17:52.891Z ERROR [scheduler-8] The security token included in the request is expired\n2025-03-08T16:17:54.850Z WARN  [main] exiting with status 2";
        assert_eq!(
            said(t),
            "The security token included in the request is expired\nexiting with status 2"
        );
        let g = "I0408 13:46:20.340529   35400 reconcile.go:107] attempt 5\nE0408 13:46:21.802529   35400 reconcile.go:83] verifying module: 404 Not Found";
        assert_eq!(said(g), "verifying module: 404 Not Found");
        let wrapped = "$ just test\n\u{1b}[31merror\u{1b}[0m: E1204 09:13:02.551203   88213 memcache.go:265] couldn't get current server API group list\nwarning: command exited with code 101";
        assert_eq!(
            said(wrapped),
            "$ just test\ncouldn't get current server API group list"
        );
    }

    #[test]
    fn what_a_runner_says_around_every_job_goes() {
        let t = "Running with gitlab-runner 17.2.0 (c8b4e241)\nExecuting \"step_script\" stage of the job script\ncurl: (28) Failed to connect to 10.0.0.1 port 9200: Couldn't connect to server\nCleaning up project directory and file based variables\nERROR: Job failed: exit code 2";
        assert_eq!(
            said(t),
            "curl: (28) Failed to connect to 10.0.0.1 port 9200: Couldn't connect to server"
        );
        let pull = "ERROR: Job failed: failed to pull image \"python:3.12\": toomanyrequests\nERROR: Job failed: exit code 1";
        assert_eq!(
            said(pull),
            "ERROR: Job failed: failed to pull image \"python:3.12\": toomanyrequests"
        );
        let j = "[Pipeline] sh\n+ make test\nx509: certificate has expired\n[Pipeline] }\nERROR: script returned exit code 1\nFinished: FAILURE";
        assert_eq!(said(j), "+ make test\nx509: certificate has expired");
        let circle = "#!/bin/bash -eo pipefail\nmake ci\nfatal: not a git repository\nExited with code exit status 1";
        assert_eq!(said(circle), "make ci\nfatal: not a git repository");
        assert!(is_runner_framing("Exited with code exit status 1"));
        assert!(is_runner_framing(
            "2025-01-02T03:04:05Z Exited with code exit status 2"
        ));
        assert!(!is_runner_framing("fatal: not a git repository"));
        // GitHub Actions' set-up and clean-up steps around the one that failed.
        let gha = "Current runner version: '2.320.0'\nSecret source: Actions\nPrepare workflow directory\nDownload action repository 'actions/checkout@v4' (SHA:0123abcd)\nComplete job name: test\n##[group]Run make test\nmake test\n##[endgroup]\nlinker: cannot find -lssl\nError: Process completed with exit code 2.\nPost job cleanup.\n[command]/usr/bin/git version\nCleaning up orphan processes";
        assert_eq!(said(gha), "make test\nlinker: cannot find -lssl");
        // The same closer behind the runner's timestamp and its `##[error]` tag.
        let stamped = "2025-03-14T00:13:19.7870000Z ##[group]Run helm upgrade web ./chart\n2025-03-14T00:13:25.8300000Z UPGRADE FAILED: release web is locked\n2025-03-14T00:13:26.4620000Z ##[error]Process completed with exit code 1.";
        assert_eq!(said(stamped), "UPGRADE FAILED: release web is locked");
    }

    #[test]
    fn frames_behind_a_syslog_prefix_go_too() {
        let t = "Dec  5 00:50:49 worker-b app[162]: Traceback (most recent call last):\nDec  5 00:50:49 worker-b app[162]:   File \"/srv/app/cli.py\", line 31, in run\nDec  5 00:50:49 worker-b app[162]:     main()\nDec  5 00:50:49 worker-b app[162]: KeyError: 'tenant'";
        assert_eq!(said(t), "KeyError: 'tenant'");
    }

    #[test]
    fn colours_runner_framing_pods_and_json_lines() {
        let t = "\u{1b}[31m##[group]Run make\u{1b}[0m\n##[error]make: *** No rule to make target 'x.h'\n##[endgroup]";
        assert_eq!(said(t), "make: *** No rule to make target 'x.h'");
        let p = "[pod/api-7f9/app] Error: listen EADDRINUSE :::3000\n[pod/api-7f9/app] Error: listen EADDRINUSE :::3000";
        assert_eq!(said(p), "Error: listen EADDRINUSE :::3000");
        let c = "web-1  | ECONNREFUSED 127.0.0.1:6379";
        assert_eq!(said(c), "ECONNREFUSED 127.0.0.1:6379");
        let j = r#"{"ts":"2025-01-01T00:00:00Z","level":"error","caller":"x.go:3","msg":"dial tcp: connection refused"}"#;
        assert_eq!(said(j), "dial tcp: connection refused");
        let s = "Dec  4 10:00:00 web01 sshd[1234]: error: maximum authentication attempts exceeded";
        assert_eq!(said(s), "maximum authentication attempts exceeded");
    }

    #[test]
    fn a_programs_own_lines_between_a_runners_stay() {
        let log = "##[section]Starting: Build\n\
            ==============================================================================\n\
            Task         : Command line\n\
            Generating script.\n\
            > Could not resolve androidx.core:core-ktx:1.13.1.\n\
            \u{20}     > No cached version of androidx.core:core-ktx:1.13.1 available for offline mode.\n\
            ##[error]Bash exited with code '1'.\n\
            ##[section]Finishing: Build";
        let kept = said(log);
        assert!(kept.contains("No cached version"), "{kept}");
        assert!(!kept.contains("Task"), "{kept}");
        assert!(!kept.contains("Generating script"), "{kept}");
        assert!(!kept.contains("====="), "{kept}");
    }

    #[test]
    fn plain_text_is_left_as_it_is() {
        for t in [
            "fatal: refusing to merge unrelated histories",
            "how do I keep a pod from restarting",
            "error: failed to push some refs to 'origin'",
            "ERROR:  relation \"users\" does not exist\nLINE 1: select * from users",
            "npm ERR! code ERESOLVE",
            "cargo build | tee log",
        ] {
            assert_eq!(salient(t), None, "{t:?}");
        }
    }

    #[test]
    fn failure_lines_are_those_that_say_what_failed_not_how_the_job_ended() {
        let log = "2025/05/23 07:02:11 loading routes from config/routes.yaml\n\
                   2025/05/23 07:02:12 panic: assignment to entry in nil map\n\
                   goroutine 1 [running]:\n\
                   \tmain.loadRoutes(...)\n\
                   ssh: connect to host 10.0.7.12 port 22: Connection reset by peer\n\
                   Mar 28 12:53:59 ip-10-0-3-17 systemd[1]: api.service: Main process exited, code=exited, status=1/FAILURE\n\
                   Mar 28 12:53:59 ip-10-0-3-17 systemd[1]: api.service: Failed with result 'exit-code'.\n\
                   2025-02-10T09:02:39.6463811Z ##[error]Process completed with exit code 1.";
        assert_eq!(
            reading(log).1,
            [
                // A logger's level said so (`panic:`), though the words do not.
                "assignment to entry in nil map",
                "ssh: connect to host 10.0.7.12 port 22: Connection reset by peer",
            ]
        );
        assert!(reading("all good\nnothing to see here").1.is_empty());
        assert!(
            reading("panic: assignment to entry in nil map")
                .1
                .is_empty()
        );
    }
}
