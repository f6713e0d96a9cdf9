//! The capture lookup index, `.git/learnsync/capture-index.json`: what a hook
//! needs to know about existing learnings without scanning the dir per call.
//!
//! `failures` maps a failure's recurrence key (normal form + error signature)
//! to its learning; `warnings` and `patterns` hold L1+ learnings' advice for
//! PreToolUse. `sync` rebuilds it from the view (a snapshot in two files);
//! `capture` appends what it writes to `capture-log.jsonl`, one line per
//! learning, which readers apply on top of the snapshot. Appending creates
//! and frees no file per call (a temp file and a rename per capture was most
//! of a capture's cost on some filesystems). A cache: a lost update only costs
//! a missed match.
//!
//! Advice carries the learning's `applicable_agents`, so a warning follows
//! the same rules as a suggestion (`search::rank::admits`): never L0, never
//! rejected (neither is filed), only for the agents it names; pulled
//! learnings are left out by the caller, which reads `.learnsync/pulled/`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::decide::{self, FailureKey};
use super::outcome::MAX_MISTAKE_BYTES;
use crate::learning::{Learning, SuggestionStatus, TrustLevel};
use crate::shell;
use crate::store::StateDir;

/// 3: advice carries `applicable`; 4: its provenance; 5: what outcomes
/// and enforcement need (the mistake's words, the capturing session, a
/// correction-recognising pattern, the risk flag); 6, 7: the subjects a
/// pattern is bounded to (7: of the failing part only, and no pattern for
/// evidence). A snapshot of
/// another version is not read, and [`exists`] says there is none, so the
/// next sync rebuilds it.
const VERSION: u32 = 7;

/// A learning a failure was filed under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    pub id: String,
    pub agent: String,
    /// It has a correction already (a fix need not be paired again).
    #[serde(default)]
    pub corrected: bool,
}

/// What to tell an agent about to run a command that failed before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advice {
    pub id: String,
    pub title: String,
    pub correction: String,
    /// The learning's `applicable_agents` (empty: every agent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applicable: Vec<String>,
    /// Who wrote it and how it has fared: the warning says so (§9.1).
    #[serde(default)]
    pub provenance: Recorded,
    /// The words of the commands it is about (§4.1: running them again is
    /// not following the correction).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failure: Vec<Vec<String>>,
    /// The session that captured it: its own fix is no evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Why following it could do harm (§9.1): never enforced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risky: Option<String>,
}

/// A learning's provenance as the warning shows it: its level, owner and
/// evidence, from the derived fields of its file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub level: String,
    pub owner: String,
    pub effective: u64,
    pub ineffective: u64,
    pub agents: u64,
}

impl Recorded {
    fn of(l: &Learning) -> Self {
        let q = &l.quality;
        Recorded {
            level: l.trust_level.as_str().to_string(),
            owner: l.agent_id.clone(),
            effective: q.effective_count,
            ineffective: ineffective_of(q),
            agents: q.agent_count,
        }
    }
}

/// The ineffective outcomes a quality records, from its success rate
/// (effective ÷ (effective + ineffective), four decimals: exact for any
/// count a learning reaches). With no effective outcome the rate is 0 and
/// says only that there was one: then every non-effective outcome counts.
fn ineffective_of(q: &crate::learning::Quality) -> u64 {
    match q.success_rate {
        Some(r) if r > 0.0 => ((q.effective_count as f64) * (1.0 - r) / r).round() as u64,
        Some(_) => q.applied_count.saturating_sub(q.effective_count),
        None => 0,
    }
}

impl Advice {
    /// The text a PreToolUse hook shows the agent: the learning framed as
    /// a note another agent recorded, with its provenance (§9.1).
    pub fn warning(&self) -> String {
        self.framed(
            "This command failed before (learnsync): a recorded note says what to do instead.",
        )
    }

    fn framed(&self, lead: &str) -> String {
        let p = &self.provenance;
        crate::search::frame::single(
            lead,
            &crate::search::frame::Provenance {
                id: &self.id,
                level: &p.level,
                owner: &p.owner,
                effective: p.effective,
                ineffective: p.ineffective,
                agents: p.agents,
            },
            &self.title,
            &self.correction,
        )
    }

    /// The text a denial shows the agent (§5.1): why the command did not
    /// run and what to do instead, with the same provenance.
    pub fn denial(&self) -> String {
        self.framed(
            "learnsync stopped this command: people approved a recorded note saying it fails. Run the correction it gives instead (or ask the user).",
        )
    }

    /// The level the advice was filed at.
    pub fn level(&self) -> TrustLevel {
        TrustLevel::parse(&self.provenance.level).unwrap_or(TrustLevel::L1)
    }

    /// Whether this advice is for `agent` (its learning names no agent, or
    /// names this one).
    pub fn applies_to(&self, agent: &str) -> bool {
        self.applicable.is_empty() || self.applicable.iter().any(|a| a == agent)
    }
}

/// A `verify_pattern` and its advice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternAdvice {
    pub pattern: String,
    /// What the pattern may warn about (`warning_subjects`): a pattern is
    /// its writer's text, and however broad (`^(git|ls)`) it speaks only
    /// for commands of its learning's own program and subcommand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    #[serde(flatten)]
    pub advice: Advice,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureIndex {
    #[serde(default)]
    pub version: u32,
    /// `<normalised command>\u{1f}<error signature>` → learning.
    #[serde(default)]
    pub failures: BTreeMap<String, Known>,
    /// Normalised `original_command` (and `failing_subcommand`) of L1+
    /// learnings → their advice: several learnings may name one command
    /// (two agents filed the same failure; one is for codex only).
    #[serde(default)]
    pub warnings: BTreeMap<String, Vec<Advice>>,
    #[serde(default)]
    pub patterns: Vec<PatternAdvice>,
    /// In a log line written by `sync`: learnings whose entries are dropped
    /// before this line's own entries apply (their files changed or went).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forget: Vec<String>,
}

fn failure_key_string(key: &FailureKey) -> String {
    format!("{}\u{1f}{}", key.normalised, key.signature)
}

impl CaptureIndex {
    /// Reads the whole index (failures and advice) with what captures
    /// appended since; missing or unreadable (or another version) is empty.
    pub fn load(state: &StateDir) -> CaptureIndex {
        let mut index = read_snapshot(state).unwrap_or_default();
        index.apply_log(&state.capture_log());
        index
    }

    /// Reads the failures alone, with what captures appended since: what a
    /// failed command needs to know whether it recurs.
    pub fn load_failures(state: &StateDir) -> CaptureIndex {
        let mut index = read_part(&state.capture_index());
        index.apply_log(&state.capture_log());
        index
    }

    /// Reads only the advice: what a pre-tool check needs.
    pub fn load_advice(state: &StateDir) -> CaptureIndex {
        let mut index = read_part(&state.capture_advice());
        index.apply_log(&state.capture_log());
        index
    }

    /// Writes a snapshot (both files). Advice first: a reader that finds the
    /// failures file finds both.
    pub fn save(&self, state: &StateDir) -> std::io::Result<()> {
        let (failures, advice) = self.parts();
        write_part(&state.capture_advice(), &advice)?;
        write_part(&state.capture_index(), &failures)
    }

    /// The two files' parts, borrowed: a 100,000-learning index is ~100 MiB
    /// in memory, and a copy of it was a first sync's peak.
    fn parts(&self) -> (Part<'_>, Part<'_>) {
        let failures = Part {
            version: VERSION,
            failures: Some(&self.failures),
            warnings: None,
            patterns: &[],
        };
        let advice = Part {
            version: VERSION,
            failures: None,
            warnings: Some(&self.warnings),
            patterns: &self.patterns,
        };
        (failures, advice)
    }

    /// Adds what another index holds (a log line) on top of this one, after
    /// dropping the learnings it says to forget.
    fn merge(&mut self, other: CaptureIndex) {
        if !other.forget.is_empty() {
            let gone: std::collections::HashSet<&str> =
                other.forget.iter().map(String::as_str).collect();
            self.forget(|id| gone.contains(id));
        }
        self.merge_where(other, |_| true);
    }

    /// Adds the entries of `other` whose learning `keep` accepts.
    fn merge_where(&mut self, other: CaptureIndex, keep: impl Fn(&str) -> bool) {
        self.failures
            .extend(other.failures.into_iter().filter(|(_, k)| keep(&k.id)));
        for (command, advice) in other.warnings {
            for a in advice.into_iter().filter(|a| keep(&a.id)) {
                self.file_warning(command.clone(), a);
            }
        }
        for p in other.patterns.into_iter().filter(|p| keep(&p.advice.id)) {
            self.patterns.retain(|x| x.advice.id != p.advice.id);
            self.patterns.push(p);
        }
    }

    /// Applies every whole, readable line of a capture log to a snapshot.
    /// A learning a line forgets keeps only what that line and later ones
    /// say of it: found in one pass over the snapshot however many lines
    /// forget something, since a hook pays for this on every call.
    fn apply_log(&mut self, log: &Path) {
        self.apply_deltas(read_log(log));
    }

    /// [`CaptureIndex::apply_log`] of a log already read.
    fn apply_deltas(&mut self, deltas: Vec<CaptureIndex>) {
        let mut last_forget: std::collections::HashMap<String, usize> =
            std::collections::HashMap::new();
        for (k, delta) in deltas.iter().enumerate() {
            for id in &delta.forget {
                last_forget.insert(id.clone(), k);
            }
        }
        if !last_forget.is_empty() {
            self.forget(|id| last_forget.contains_key(id));
        }
        for (k, delta) in deltas.into_iter().enumerate() {
            self.merge_where(delta, |id| last_forget.get(id).is_none_or(|&f| f <= k));
        }
    }

    /// The learning ids this index names.
    fn ids(&self) -> impl Iterator<Item = &str> {
        let failures = self.failures.values().map(|k| k.id.as_str());
        let warnings = self.warnings.values().flatten().map(|a| a.id.as_str());
        let patterns = self.patterns.iter().map(|p| p.advice.id.as_str());
        failures.chain(warnings).chain(patterns)
    }

    /// Drops every entry of these learnings (before filing their new versions).
    fn forget(&mut self, gone: impl Fn(&str) -> bool) {
        self.failures.retain(|_, k| !gone(&k.id));
        self.warnings.retain(|_, advice| {
            advice.retain(|a| !gone(&a.id));
            !advice.is_empty()
        });
        self.patterns.retain(|p| !gone(&p.advice.id));
    }

    fn is_empty(&self) -> bool {
        self.failures.is_empty() && self.warnings.is_empty() && self.patterns.is_empty()
    }

    /// Builds the index from learnings whose derived trust is current.
    pub fn build<'a>(learnings: impl IntoIterator<Item = &'a Learning>) -> CaptureIndex {
        let mut index = CaptureIndex {
            version: VERSION,
            ..CaptureIndex::default()
        };
        for l in learnings {
            index.add(l);
        }
        index
    }

    /// Files one learning (its failure key, and its advice when it is L1+).
    pub fn add(&mut self, l: &Learning) {
        // A command no one ran (over 4 KiB) keys no failure: its key would
        // be read on every failing tool call.
        let readable = l
            .original_command
            .as_deref()
            .is_none_or(|c| c.len() <= MAX_MISTAKE_BYTES);
        if let Some(key) = decide::failure_key(l).filter(|_| readable) {
            self.failures.insert(
                failure_key_string(&key),
                Known {
                    id: l.id.clone(),
                    agent: l.agent_id.clone(),
                    corrected: l.has_correction(),
                },
            );
        }
        let advisable = l.has_correction()
            && l.trust_level >= TrustLevel::L1
            && l.suggestion_status != SuggestionStatus::Rejected;
        let Some(correction) = l.correction.as_deref().filter(|_| advisable) else {
            return;
        };
        let mistaken: Vec<&str> = [
            l.original_command.as_deref(),
            l.extra_str("failing_subcommand"),
        ]
        .into_iter()
        .flatten()
        .filter(|c| c.len() <= MAX_MISTAKE_BYTES)
        .collect();
        let advice = Advice {
            id: l.id.clone(),
            title: l.title.clone(),
            correction: correction.to_string(),
            applicable: l.applicable_agents.clone(),
            provenance: Recorded::of(l),
            failure: super::outcome::failure_words(mistaken.iter().copied()),
            session: l.extra_str("session_id").map(str::to_string),
            risky: crate::risk::risky(l).map(str::to_string),
        };
        for command in &mistaken {
            let n = shell::normalise_command(command);
            if !n.is_empty() {
                self.file_warning(n, advice.clone());
            }
        }
        if let Some(p) = l.verify_pattern.as_deref().map(str::trim)
            && !p.is_empty()
        {
            self.patterns.retain(|x| x.advice.id != l.id);
            self.patterns.push(PatternAdvice {
                pattern: p.to_string(),
                subjects: warning_subjects(
                    l.original_command
                        .as_deref()
                        .filter(|c| c.len() <= MAX_MISTAKE_BYTES),
                    l.extra_str("failing_subcommand")
                        .filter(|c| c.len() <= MAX_MISTAKE_BYTES),
                ),
                advice,
            });
        }
    }

    /// Files advice under a command, replacing the same learning's older one.
    fn file_warning(&mut self, command: String, advice: Advice) {
        use std::collections::btree_map::Entry;
        match self.warnings.entry(command) {
            // Most commands have one learning: a list of exactly one, not
            // the four a push would make room for (~1 KiB a learning, a
            // 100,000-learning rebuild's largest allocation).
            Entry::Vacant(v) => {
                v.insert(vec![advice]);
            }
            Entry::Occupied(mut o) => {
                let filed = o.get_mut();
                filed.retain(|a| a.id != advice.id);
                filed.push(advice);
            }
        }
    }

    /// The learning a failure with this key recurs, if any.
    pub fn recurrence(&self, key: &FailureKey) -> Option<&Known> {
        self.failures.get(&failure_key_string(key))
    }

    /// Advice for a command about to run: its normal form (or one part of its
    /// chain) equals an L1+ learning's command, or it matches a
    /// `verify_pattern` (a regex, or a legacy `*` glob or word prefix:
    /// `shell::VerifyPattern`). A command that already contains the
    /// correction needs no warning. Only advice `admit` accepts is given
    /// (the agent's, not pulled); a pattern is compiled only for such
    /// advice, and one that cannot be compiled matches nothing.
    pub fn advice_for(&self, command: &str, admit: impl Fn(&Advice) -> bool) -> Option<&Advice> {
        if self.warnings.is_empty() && self.patterns.is_empty() {
            return None;
        }
        let whole = shell::normalise_command(command);
        let follows =
            |a: &Advice| admit(a) && !whole.contains(&shell::normalise_command(&a.correction));
        let mut candidates = vec![whole.clone()];
        let parts = shell::split_chain(command);
        if parts.len() > 1 {
            candidates.extend(parts.iter().map(|p| shell::normalise_command(p.text)));
        }
        // The most trusted advice speaks: an L1 learning filed on the same
        // command (by anyone, under any id) cannot stand in front of an
        // enforced one and turn its denial into its own warning. Between
        // equals, the one with more evidence (derived, not written), then
        // the lower id: never the filing order, which each clone's history
        // decides.
        fn rank(a: &Advice) -> (TrustLevel, bool, u64, u64, std::cmp::Reverse<&str>) {
            (
                a.level(),
                a.risky.is_none(),
                a.provenance.agents,
                a.provenance.effective,
                std::cmp::Reverse(a.id.as_str()),
            )
        }
        let mut best: Option<&Advice> = None;
        for a in candidates
            .iter()
            .filter_map(|c| self.warnings.get(c))
            .flatten()
            .filter(|a| follows(a))
        {
            if best.is_none_or(|b| rank(a) > rank(b)) {
                best = Some(a);
            }
        }
        if self.patterns.is_empty() {
            return best;
        }
        // A pattern speaks only for its subjects: those of the line's parts
        // are read once, and a pattern is compiled only when one of its
        // subjects is there and its advice could win, the most trusted
        // first and at most MAX_PATTERN_COMPILES of them a call (a regex of
        // a kilobyte takes milliseconds to compile, and the hook runs on
        // every call): many low patterns cannot hide a higher one.
        let here: Vec<String> = shell::subject_parts(command)
            .into_iter()
            .filter_map(|(s, _)| s)
            .collect();
        let mut eligible: Vec<&PatternAdvice> = self
            .patterns
            .iter()
            .filter(|p| {
                p.subjects.iter().any(|s| here.contains(s))
                    && best.is_none_or(|b| rank(&p.advice) > rank(b))
                    && follows(&p.advice)
            })
            .collect();
        eligible.sort_by(|a, b| rank(&b.advice).cmp(&rank(&a.advice)));
        let matched = eligible
            .into_iter()
            .take(MAX_PATTERN_COMPILES)
            .find(|p| shell::match_within(&p.pattern, &p.subjects, command));
        matched.map(|p| &p.advice).or(best)
    }
}

/// Patterns compiled at most for one command (see `advice_for`).
const MAX_PATTERN_COMPILES: usize = 8;

/// What a learning's `verify_pattern` may warn about: the program and
/// subcommand of the part of its command that failed, and of its
/// `failing_subcommand` when that is a part of the command (or there is no
/// command). Not every part of a chain the writer chose to list: a
/// mistake of `git status x && ls x` would make the pattern speak for
/// every `git status` and `ls`. No command, no subject: such a pattern
/// warns about nothing.
fn warning_subjects(original: Option<&str>, failing: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = original
        .and_then(shell::failing_subject)
        .into_iter()
        .collect();
    if let Some(f) = failing {
        let part_of_original = original.is_none_or(|o| {
            let f = shell::normalise_command(f);
            shell::split_chain(o)
                .iter()
                .any(|p| shell::normalise_command(p.text) == f)
        });
        if part_of_original
            && let Some(s) = shell::failing_subject(f)
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    out
}

/// The snapshot a sync wrote (both files, no log); `None` when either part
/// is missing, unreadable or of another version.
fn read_snapshot(state: &StateDir) -> Option<CaptureIndex> {
    let failures = read_part(&state.capture_index());
    let advice = read_part(&state.capture_advice());
    (failures.version == VERSION && advice.version == VERSION).then_some(CaptureIndex {
        version: VERSION,
        failures: failures.failures,
        warnings: advice.warnings,
        patterns: advice.patterns,
        forget: Vec::new(),
    })
}

fn read_part(path: &Path) -> CaptureIndex {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<CaptureIndex>(&b).ok())
        .filter(|i| i.version == VERSION)
        .unwrap_or_default()
}

/// One file's part of an index as [`CaptureIndex`] writes it (a part left
/// out is written empty), borrowing the index's maps.
#[derive(Serialize)]
struct Part<'a> {
    version: u32,
    #[serde(serialize_with = "map_or_empty")]
    failures: Option<&'a BTreeMap<String, Known>>,
    #[serde(serialize_with = "map_or_empty")]
    warnings: Option<&'a BTreeMap<String, Vec<Advice>>>,
    patterns: &'a [PatternAdvice],
}

fn map_or_empty<S: serde::Serializer, V: Serialize>(
    map: &Option<&BTreeMap<String, V>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match map {
        Some(m) => m.serialize(s),
        None => BTreeMap::<String, V>::new().serialize(s),
    }
}

fn write_part(path: &Path, part: &Part<'_>) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(part).map_err(std::io::Error::other)?;
    super::session::write_cache(path, &bytes)
}

/// The deltas of a capture log, oldest first. A line that is not whole (a
/// crash mid-append) or not an index of this version is skipped.
fn read_log(log: &Path) -> Vec<CaptureIndex> {
    let Ok(bytes) = std::fs::read(log) else {
        return Vec::new();
    };
    bytes
        .split_inclusive(|b| *b == b'\n')
        .filter(|line| line.ends_with(b"\n"))
        .filter_map(|line| serde_json::from_slice::<CaptureIndex>(line).ok())
        .filter(|delta| delta.version == VERSION)
        .collect()
}

/// Files one learning a capture just wrote (its failure key, and its advice
/// when it is L1+) by appending one line to the log. Best effort.
pub fn append(state: &StateDir, l: &Learning) {
    let delta = CaptureIndex::build([l]);
    if delta.is_empty() {
        return;
    }
    let result = serde_json::to_vec(&delta)
        .map_err(std::io::Error::other)
        .and_then(|mut line| {
            line.push(b'\n');
            crate::store::append_line(&state.capture_log(), &line)
        });
    if let Err(e) = result {
        tracing::debug!("capture index not updated: {e}");
    }
}

/// True when the dir has a capture index of this version to update (an
/// older one is rebuilt by the sync that finds it).
pub fn exists(dir: &crate::store::LearningsDir) -> bool {
    snapshot_version(&dir.state().capture_index()) == Some(VERSION)
}

/// The version a snapshot file was written with, from its first bytes
/// (`{"version":N,…`: serde writes the fields in order), without parsing
/// the rest: a sync asks on every cycle.
fn snapshot_version(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut head = [0u8; 32];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    let text = std::str::from_utf8(&head[..n]).ok()?;
    let rest = text.strip_prefix("{\"version\":")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest[..digits].parse().ok()
}

/// Rebuilds the index from the dir's current view: what `sync` calls when
/// there is no snapshot yet. Best effort: a failure only leaves the old
/// index in place. The view's review records come from `hub`'s `main`.
pub fn refresh(dir: &crate::store::LearningsDir, hub: Option<&str>) {
    let state = dir.state();
    let folding = start_folding(&state);
    let view = crate::view::load(dir, hub);
    let index = CaptureIndex::build(view.learnings.iter().map(|l| &l.learning));
    finish_folding(&state, &folding, &index);
}

/// A rebuild fed learning by learning by another reader of the tree (a
/// first sync builds the search index from the same read): the log is
/// moved aside when it starts, as [`refresh`] does.
pub struct Rebuild {
    state: StateDir,
    folding: PathBuf,
    index: CaptureIndex,
}

impl Rebuild {
    pub fn start(dir: &crate::store::LearningsDir) -> Rebuild {
        let state = dir.state();
        let folding = start_folding(&state);
        Rebuild {
            state,
            folding,
            index: CaptureIndex::build([]),
        }
    }

    /// Files one learning of HEAD's tree (derived fields as committed).
    pub fn add(&mut self, l: &Learning) {
        self.index.add(l);
    }

    /// Saves the snapshot, keeping what the log says about learnings HEAD
    /// does not have yet (captures still in the inbox).
    pub fn finish(self) {
        finish_folding(&self.state, &self.folding, &self.index);
    }
}

/// Brings the index up to date with the learning files a sync changed
/// (`changed`: repository paths; a missing file is a deletion), without
/// reading the rest of the dir: one log line that forgets the changed
/// learnings and files their new versions. Once the log outgrows an eighth
/// of the snapshot it is folded into a new one, so a sync's cost follows
/// what changed (a 100,000-learning snapshot is ~35 MB of JSON to rewrite)
/// and a hook never reads much more than the snapshot. The fold streams
/// each part file entry by entry ([`fold`]): the snapshot is never held
/// whole. Falls back to [`refresh`] when there is no readable snapshot.
pub fn update(dir: &crate::store::LearningsDir, hub: Option<&str>, changed: &[String]) {
    let state = dir.state();
    let mut forget = std::collections::BTreeSet::new();
    for rel in changed {
        if let crate::paths::RepoPath::Learning { id, .. } = crate::paths::classify(rel) {
            forget.insert(id.to_string());
        }
    }
    if forget.is_empty() {
        return;
    }
    let mut delta = CaptureIndex::build(&originals(&dir.root, &forget));
    delta.forget = forget.into_iter().collect();
    let size = |path: PathBuf| std::fs::metadata(path).map_or(0, |m| m.len());
    let snapshot = size(state.capture_index()) + size(state.capture_advice());
    let line = serde_json::to_vec(&delta).map(|mut l| {
        l.push(b'\n');
        l
    });
    if snapshot > 0
        && let Ok(line) = &line
        && !should_fold(size(state.capture_log()) + line.len() as u64, snapshot)
    {
        match crate::store::append_line(&state.capture_log(), line) {
            Ok(()) => return,
            Err(e) => tracing::debug!("capture log not appended ({e}); folding instead"),
        }
    }
    drop(line);
    if snapshot == 0 {
        refresh(dir, hub);
        return;
    }
    let folding = start_folding(&state);
    // The whole log goes into the snapshot: nothing of it is kept.
    let overlay = fold::Overlay::of(read_log(&folding), delta);
    match fold::fold(&state, &overlay) {
        Ok(()) => {
            let _ = std::fs::remove_file(&folding);
        }
        Err(e) => {
            tracing::debug!("capture index not folded ({e}); rebuilding it");
            drop(overlay);
            refresh(dir, hub);
        }
    }
}

/// The original (§6.1) of each id in `ids`, wherever it is: a copy of an
/// id in another folder never stands in for it, whichever file changed.
/// An id with no readable file is left out (it was deleted).
fn originals(root: &Path, ids: &std::collections::BTreeSet<String>) -> Vec<Learning> {
    let mut out = Vec::new();
    for (id, files) in files_of(root, ids) {
        let parsed = files.into_iter().filter_map(|rel| {
            let bytes = std::fs::read(root.join(&rel)).ok()?;
            let l = Learning::parse_at(&rel, &bytes).ok()?;
            Some((rel, l))
        });
        let original = parsed.reduce(|a, b| {
            if crate::view::is_original_before((&b.0, &b.1), (&a.0, &a.1)) {
                b
            } else {
                a
            }
        });
        if let Some((_, l)) = original.filter(|(_, l)| l.id == id) {
            out.push(l);
        }
    }
    out
}

/// Every learning file of each id in `ids` (`<folder>/<id>.md`), by id:
/// a stat per folder and id for a few ids, one listing per folder for many.
fn files_of(
    root: &Path,
    ids: &std::collections::BTreeSet<String>,
) -> BTreeMap<String, Vec<String>> {
    let folders: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|name| crate::paths::validate_agent(name).is_ok())
        .collect();
    let mut out: BTreeMap<String, Vec<String>> =
        ids.iter().map(|id| (id.clone(), Vec::new())).collect();
    let many = ids.len() > 256;
    for folder in &folders {
        let listed: Option<std::collections::HashSet<std::ffi::OsString>> = many.then(|| {
            std::fs::read_dir(root.join(folder))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.file_name())
                .collect()
        });
        for (id, files) in out.iter_mut() {
            let name = format!("{id}.md");
            let present = match &listed {
                Some(names) => names.contains(std::ffi::OsStr::new(&name)),
                None => root.join(folder).join(&name).is_file(),
            };
            if present {
                files.push(format!("{folder}/{name}"));
            }
        }
    }
    out
}

/// A log of `log` bytes over a snapshot of `snapshot` bytes is folded into
/// a new snapshot once it passes an eighth of it (and 256 KiB).
fn should_fold(log: u64, snapshot: u64) -> bool {
    log > (snapshot / 8).max(256 * 1024)
}

/// Moves the capture log aside, so captures during a rebuild append to a
/// fresh one. A log left aside by an interrupted rebuild is folded again,
/// with the live log (newer) appended after it, so no line is replayed on
/// top of what came later. (A capture appending between the read and the
/// removal of the live log loses its line: a missed match, never more.)
fn start_folding(state: &StateDir) -> PathBuf {
    let folding = state.capture_folding();
    let log = state.capture_log();
    if !folding.exists() {
        let _ = std::fs::rename(&log, &folding);
        return folding;
    }
    if let Ok(bytes) = std::fs::read(&log) {
        // Whole lines only: a torn last line would swallow the next one.
        let whole = bytes
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(&[][..], |end| &bytes[..=end]);
        if whole.is_empty() || crate::store::append_line(&folding, whole).is_ok() {
            let _ = std::fs::remove_file(&log);
        }
    }
    folding
}

/// Saves the new snapshot, appends back what the moved-aside log holds about
/// learnings the snapshot does not have yet (written after the sync took
/// the inbox), and drops the moved log.
fn finish_folding(state: &StateDir, folding: &Path, index: &CaptureIndex) {
    if let Err(e) = index.save(state) {
        tracing::warn!("could not refresh the capture index: {e}");
        return;
    }
    let known: std::collections::HashSet<&str> = index.ids().collect();
    let mut kept = Vec::new();
    for delta in read_log(folding) {
        // A sync's line is about the tree the rebuild has just read.
        if delta.forget.is_empty()
            && delta.ids().any(|id| !known.contains(id))
            && let Ok(line) = serde_json::to_vec(&delta)
        {
            kept.extend(line);
            kept.push(b'\n');
        }
    }
    if !kept.is_empty()
        && let Err(e) = crate::store::append_line(&state.capture_log(), &kept)
    {
        tracing::warn!("could not keep the capture log: {e}");
        return;
    }
    let _ = std::fs::remove_file(folding);
}

mod fold;

#[cfg(test)]
mod tests;
