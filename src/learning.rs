//! The learning: one markdown file with YAML frontmatter, readable and
//! writable by terraphim_agent (§3). Parsing is tolerant, writing canonical.

use crate::paths;
use crate::timestamp::Timestamp;
use crate::yaml::{self, Mapping, Value};
use std::borrow::Cow;
use std::fmt;

/// Files above this size are refused before they are parsed.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// Trust levels (§5). Ordered: L0 < L1 < L2 < L3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum TrustLevel {
    L0,
    #[default]
    L1,
    L2,
    L3,
}

impl TrustLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            TrustLevel::L0 => "L0",
            TrustLevel::L1 => "L1",
            TrustLevel::L2 => "L2",
            TrustLevel::L3 => "L3",
        }
    }

    /// Accepts `L2`, `l2`, and terraphim's names (`PeerValidated`, `peer_validated`).
    pub fn parse(s: &str) -> Option<Self> {
        let key: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match key.as_str() {
            "l0" | "extracted" => Some(TrustLevel::L0),
            "l1" | "unverified" => Some(TrustLevel::L1),
            "l2" | "peervalidated" => Some(TrustLevel::L2),
            "l3" | "humanapproved" => Some(TrustLevel::L3),
            _ => None,
        }
    }
}

impl fmt::Display for TrustLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl crate::names::Named for TrustLevel {
    const ALL: &'static [Self] = &[
        TrustLevel::L0,
        TrustLevel::L1,
        TrustLevel::L2,
        TrustLevel::L3,
    ];
    fn as_str(self) -> &'static str {
        TrustLevel::as_str(self)
    }
    fn aliases(self) -> &'static [&'static str] {
        match self {
            TrustLevel::L0 => &["l0"],
            TrustLevel::L1 => &["l1"],
            TrustLevel::L2 => &["l2"],
            TrustLevel::L3 => &["l3"],
        }
    }
}

/// What kind of lesson a learning is (§3 `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    Workflow,
    #[default]
    Correction,
    DebuggingPattern,
    Gotcha,
    Convention,
}

impl crate::names::Named for Kind {
    const ALL: &'static [Self] = &[
        Kind::Workflow,
        Kind::Correction,
        Kind::DebuggingPattern,
        Kind::Gotcha,
        Kind::Convention,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Kind::Workflow => "workflow",
            Kind::Correction => "correction",
            Kind::DebuggingPattern => "debugging_pattern",
            Kind::Gotcha => "gotcha",
            Kind::Convention => "convention",
        }
    }
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        crate::names::Named::as_str(self)
    }
}

/// Review state of a learning as a suggestion (§5, §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SuggestionStatus {
    #[default]
    Pending,
    Approved,
    Rejected,
}

impl SuggestionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SuggestionStatus::Pending => "pending",
            SuggestionStatus::Approved => "approved",
            SuggestionStatus::Rejected => "rejected",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "pending" => Some(SuggestionStatus::Pending),
            "approved" => Some(SuggestionStatus::Approved),
            "rejected" => Some(SuggestionStatus::Rejected),
            _ => None,
        }
    }
}

/// The derived quality metrics (§5); always written with all six keys.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Quality {
    pub applied_count: u64,
    pub effective_count: u64,
    pub agent_count: u64,
    pub agent_names: Vec<String>,
    pub last_applied_at: Option<Timestamp>,
    pub success_rate: Option<f64>,
}

/// One learning, as held in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Learning {
    pub id: String,
    pub title: String,
    /// The source agent; equals the folder the file lives in.
    pub agent_id: String,
    pub captured_at: Timestamp,
    pub updated_at: Timestamp,
    pub promoted_at: Option<Timestamp>,
    pub trust_level: TrustLevel,
    /// `bash_hook`, `auto_extract`, `manual`, …; PascalCase is read as snake_case.
    pub source: String,
    pub applicable_agents: Vec<String>,
    pub keywords: Vec<String>,
    pub verify_pattern: Option<String>,
    pub quality: Quality,
    pub original_command: Option<String>,
    pub error_context: Option<String>,
    pub correction: Option<String>,
    /// Derived (§5): the name of its wiki page while it is published.
    pub wiki_page_name: Option<String>,
    pub suggestion_status: SuggestionStatus,
    pub kind: Option<String>,
    /// Frontmatter keys this version does not know, in their original order.
    pub extra: Vec<(String, Value)>,
    pub body: String,
}

/// Why a file is not a learning; `Display` names the problem, the caller the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    TooLarge(usize),
    NotUtf8,
    NoFrontmatter,
    Unterminated,
    Yaml(String),
    NotAMapping,
    Missing(&'static str),
    BadField {
        key: &'static str,
        expected: &'static str,
    },
    BadName(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::TooLarge(n) => write!(
                f,
                "file is {n} bytes, over the {} byte limit for a learning",
                MAX_FILE_BYTES
            ),
            ParseError::NotUtf8 => f.write_str("file is not valid UTF-8"),
            ParseError::NoFrontmatter => {
                f.write_str("no YAML frontmatter: the file must start with a '---' line")
            }
            ParseError::Unterminated => f.write_str("frontmatter is not closed by a '---' line"),
            ParseError::Yaml(e) => write!(f, "frontmatter is not valid YAML: {e}"),
            ParseError::NotAMapping => {
                f.write_str("frontmatter is not a mapping of keys to values")
            }
            ParseError::Missing(key) => write!(f, "required field `{key}` is missing"),
            ParseError::BadField { key, expected } => {
                write!(f, "field `{key}` is not {expected}")
            }
            ParseError::BadName(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ParseError {}

impl Learning {
    /// A new L1/L0 learning with every optional field empty.
    pub fn new(id: String, agent_id: String, title: String, now: Timestamp) -> Self {
        Learning {
            id,
            title,
            agent_id,
            captured_at: now,
            updated_at: now,
            promoted_at: None,
            trust_level: TrustLevel::L0,
            source: "manual".to_string(),
            applicable_agents: Vec::new(),
            keywords: Vec::new(),
            verify_pattern: None,
            quality: Quality::default(),
            original_command: None,
            error_context: None,
            correction: None,
            wiki_page_name: None,
            suggestion_status: SuggestionStatus::Pending,
            kind: None,
            extra: Vec::new(),
            body: String::new(),
        }
    }

    /// A fresh terraphim-format id: `learning-<32 hex>-<unix millis>`.
    pub fn new_id() -> String {
        let millis = time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000;
        format!("learning-{}-{millis}", uuid::Uuid::new_v4().simple())
    }

    /// True when the learning carries a usable correction (L1 or above).
    pub fn has_correction(&self) -> bool {
        self.correction
            .as_deref()
            .is_some_and(|c| !c.trim().is_empty())
    }

    /// Parses a file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(ParseError::TooLarge(bytes.len()));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ParseError::NotUtf8)?;
        let normalised;
        let text = if text.contains('\r') {
            normalised = text.replace("\r\n", "\n");
            normalised.as_str()
        } else {
            text
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (front, body) = split_frontmatter(text)?;
        let fields = match yaml::parse_canonical(front) {
            Some(entries) => Fields::of(entries.into_iter().map(|(k, v)| (Cow::Borrowed(k), v))),
            None => Fields::of_yaml(front)?,
        };
        from_fields(fields, body)
    }

    /// The `trust_level` a file written as learnsync writes it records,
    /// read without parsing the rest; `None` for any other shape (then
    /// parse it). What a recompute needs of a learning's previous version.
    pub fn recorded_trust(bytes: &[u8]) -> Option<TrustLevel> {
        let text = std::str::from_utf8(bytes.get(..bytes.len().min(MAX_FILE_BYTES))?).ok()?;
        let (front, _) = split_frontmatter(text).ok()?;
        let mut found = None;
        for line in front.lines() {
            if let Some(v) = line.strip_prefix("trust_level:") {
                if found.is_some() {
                    return None;
                }
                let v = v.trim();
                let v = v
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(v);
                found = Some(TrustLevel::parse(v)?);
            }
        }
        found
    }

    /// Parses the file at repository path `rel` (`<agent>/<id>.md`, a
    /// terraphim `shared/` copy, or anything else), checking that its folder
    /// and file name agree with its `agent_id` and `id`: the one parser for
    /// a learning whose path is known. The error is a sentence for a person.
    pub fn parse_at(rel: &str, bytes: &[u8]) -> Result<Learning, String> {
        let learning = Learning::parse(bytes).map_err(|e| e.to_string())?;
        if let paths::RepoPath::Learning { agent, id } = paths::classify(rel) {
            if learning.agent_id != agent {
                return Err(format!(
                    "agent_id `{}` does not match its folder `{agent}`",
                    learning.agent_id
                ));
            }
            if learning.id != id {
                return Err(format!(
                    "id `{}` does not match its file name `{id}.md`",
                    learning.id
                ));
            }
        }
        Ok(learning)
    }

    /// Redacts every text field; true when anything was replaced. How a
    /// learning is made safe before it is written anywhere (§3).
    pub fn redact(&mut self) -> bool {
        let mut hit = false;
        self.map_text(|s| match crate::redact::redact(s) {
            Cow::Owned(clean) => {
                hit = true;
                Some(clean)
            }
            Cow::Borrowed(_) => None,
        });
        hit
    }

    /// The canonical bytes (§3): fixed key order, UTC seconds, `\n` endings.
    pub fn to_markdown(&self) -> String {
        let mut out = String::with_capacity(1024 + self.body.len());
        out.push_str("---\n");
        self.write_frontmatter(&mut out, true);
        out.push_str("---\n\n");
        out.push_str(&self.body);
        out
    }

    /// The canonical serialisation with the derived fields left out: the
    /// tie-break of the merge and the content hash of a review (§6, §8).
    pub fn content_bytes(&self) -> String {
        let mut out = String::with_capacity(1024 + self.body.len());
        self.write_frontmatter(&mut out, false);
        out.push_str("---\n");
        out.push_str(&self.body);
        out
    }

    /// A string-valued extra frontmatter key (`project`, `session_id`, …).
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.iter().find_map(|(k, v)| match v {
            Value::String(s) if k == key => Some(s.as_str()),
            _ => None,
        })
    }

    /// The project a capture recorded (the base name of the agent's cwd, in
    /// the extra frontmatter), or one a person wrote; `None` when blank.
    pub fn project(&self) -> Option<&str> {
        self.extra_str("project")
            .map(str::trim)
            .filter(|p| !p.is_empty())
    }

    /// SHA-256 of [`Self::content_bytes`], hex.
    pub fn content_hash(&self) -> String {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(self.content_bytes().as_bytes()))
    }

    fn write_frontmatter(&self, out: &mut String, derived: bool) {
        yaml::write_str(out, 0, "id", &self.id);
        yaml::write_str(out, 0, "title", &self.title);
        yaml::write_str(out, 0, "agent_id", &self.agent_id);
        yaml::write_raw(out, 0, "captured_at", &self.captured_at.to_string());
        yaml::write_raw(out, 0, "updated_at", &self.updated_at.to_string());
        if derived {
            self.write_derived(out, Derived::PromotedAt);
            self.write_derived(out, Derived::TrustLevel);
        }
        yaml::write_str(out, 0, "source", &self.source);
        yaml::write_list(out, 0, "applicable_agents", &self.applicable_agents);
        yaml::write_list(out, 0, "keywords", &self.keywords);
        yaml::write_opt_str(out, 0, "verify_pattern", self.verify_pattern.as_deref());
        if derived {
            self.write_derived(out, Derived::Quality);
        }
        yaml::write_opt_str(out, 0, "original_command", self.original_command.as_deref());
        yaml::write_opt_str(out, 0, "error_context", self.error_context.as_deref());
        yaml::write_opt_str(out, 0, "correction", self.correction.as_deref());
        if derived {
            self.write_derived(out, Derived::WikiPageName);
            self.write_derived(out, Derived::SuggestionStatus);
        } else {
            // Derived since it is set (§5), but left in the content as the
            // `null` it always was there: review hashes stay valid.
            yaml::write_opt_str(out, 0, "wiki_page_name", None);
        }
        yaml::write_opt_str(out, 0, "kind", self.kind.as_deref());
        for (key, value) in &self.extra {
            yaml::write_value(out, key, value);
        }
    }

    /// One derived key in its canonical form.
    fn write_derived(&self, out: &mut String, key: Derived) {
        match key {
            Derived::PromotedAt => write_opt_time(out, 0, "promoted_at", self.promoted_at),
            Derived::TrustLevel => {
                yaml::write_raw(out, 0, "trust_level", self.trust_level.as_str())
            }
            Derived::Quality => {
                let q = &self.quality;
                out.push_str("quality:\n");
                yaml::write_raw(out, 2, "applied_count", &q.applied_count.to_string());
                yaml::write_raw(out, 2, "effective_count", &q.effective_count.to_string());
                yaml::write_raw(out, 2, "agent_count", &q.agent_count.to_string());
                yaml::write_list(out, 2, "agent_names", &q.agent_names);
                write_opt_time(out, 2, "last_applied_at", q.last_applied_at);
                match q.success_rate {
                    Some(rate) => yaml::write_raw(out, 2, "success_rate", &format!("{rate:?}")),
                    None => yaml::write_raw(out, 2, "success_rate", "null"),
                }
            }
            Derived::WikiPageName => {
                yaml::write_opt_str(out, 0, "wiki_page_name", self.wiki_page_name.as_deref())
            }
            Derived::SuggestionStatus => {
                yaml::write_raw(out, 0, "suggestion_status", self.suggestion_status.as_str())
            }
        }
    }

    /// `text` (this learning's file as someone wrote it) with only the
    /// derived fields that differ from `self`'s set to `self`'s values, every
    /// other byte kept: how an adopted file stops claiming a trust level the
    /// evidence does not give without its author's formatting being rewritten.
    /// `None` when the file cannot be edited in place so that it reads back
    /// as exactly `self` (the caller then writes the canonical form).
    pub fn rewrite_derived_in(&self, text: &str) -> Option<String> {
        let was = Learning::parse(text.as_bytes()).ok()?;
        if was.content_bytes() != self.content_bytes() {
            return None;
        }
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let (bom, rest) = match text.strip_prefix('\u{feff}') {
            Some(rest) => ("\u{feff}", rest),
            None => ("", text),
        };
        let lines: Vec<&str> = rest.split_inclusive('\n').collect();
        if lines.first().map(|l| l.trim_end()) != Some("---") {
            return None;
        }
        let close = 1 + lines.iter().skip(1).position(|l| l.trim_end() == "---")?;
        let spans = top_level_spans(&lines[1..close]);
        let render = |key: Derived| {
            let mut one = String::new();
            self.write_derived(&mut one, key);
            if eol == "\n" {
                one
            } else {
                one.replace('\n', eol)
            }
        };
        // (first line, end line, replacement) for each key to change; keys
        // the file leaves out go before the closing `---`.
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        for key in Derived::ALL {
            let same = match key {
                Derived::PromotedAt => was.promoted_at == self.promoted_at,
                Derived::TrustLevel => was.trust_level == self.trust_level,
                Derived::Quality => was.quality == self.quality,
                Derived::WikiPageName => was.wiki_page_name == self.wiki_page_name,
                Derived::SuggestionStatus => was.suggestion_status == self.suggestion_status,
            };
            if same {
                continue;
            }
            match spans.iter().find(|(name, ..)| *name == key.name()) {
                Some(&(_, start, end)) => edits.push((start + 1, end + 1, render(key))),
                None => edits.push((close, close, render(key))),
            }
        }
        edits.sort_by_key(|&(start, end, _)| (start, end));
        let mut out = String::with_capacity(text.len() + 256);
        out.push_str(bom);
        let mut at = 0;
        for (start, end, replacement) in &edits {
            if *start < at {
                return None;
            }
            lines[at..*start].iter().for_each(|l| out.push_str(l));
            out.push_str(replacement);
            at = *end;
        }
        lines[at..].iter().for_each(|l| out.push_str(l));
        (Learning::parse(out.as_bytes()).ok().as_ref() == Some(self)).then_some(out)
    }

    /// Applies `f` to every free-text field (redaction before a write).
    pub fn map_text(&mut self, mut f: impl FnMut(&str) -> Option<String>) {
        let mut apply = |s: &mut String| {
            if let Some(new) = f(s) {
                *s = new;
            }
        };
        apply(&mut self.title);
        apply(&mut self.body);
        for field in [
            &mut self.verify_pattern,
            &mut self.original_command,
            &mut self.error_context,
            &mut self.correction,
            &mut self.wiki_page_name,
            &mut self.kind,
        ]
        .into_iter()
        .flatten()
        {
            apply(field);
        }
        for k in self.keywords.iter_mut() {
            apply(k);
        }
    }
}

/// Last writer wins by `updated_at`; ties go to the byte-wise greater
/// content serialisation, so the winner is the same whoever decides (§6).
pub fn newer<'a>(a: &'a Learning, b: &'a Learning) -> &'a Learning {
    match a.updated_at.cmp(&b.updated_at) {
        std::cmp::Ordering::Greater => a,
        std::cmp::Ordering::Less => b,
        std::cmp::Ordering::Equal => {
            if a.content_bytes() >= b.content_bytes() {
                a
            } else {
                b
            }
        }
    }
}

/// The frontmatter keys a sync recomputes (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Derived {
    PromotedAt,
    TrustLevel,
    Quality,
    WikiPageName,
    SuggestionStatus,
}

impl Derived {
    const ALL: [Derived; 5] = [
        Derived::PromotedAt,
        Derived::TrustLevel,
        Derived::Quality,
        Derived::WikiPageName,
        Derived::SuggestionStatus,
    ];

    fn name(self) -> &'static str {
        match self {
            Derived::PromotedAt => "promoted_at",
            Derived::TrustLevel => "trust_level",
            Derived::Quality => "quality",
            Derived::WikiPageName => "wiki_page_name",
            Derived::SuggestionStatus => "suggestion_status",
        }
    }
}

/// `(key, first line, end line)` of each top-level key of a block mapping,
/// over its lines (with their endings). A key's value runs until the next
/// line at column 0 that is neither a block-sequence item (`- x` may sit at
/// the key's own indent) nor blank; trailing blank lines and comments stay
/// outside the span, so an edit keeps them.
fn top_level_spans<'a>(lines: &[&'a str]) -> Vec<(&'a str, usize, usize)> {
    let mut spans: Vec<(&'a str, usize, usize)> = Vec::new();
    // The span still growing, and the last non-blank line it holds.
    let mut open: Option<(&'a str, usize, usize)> = None;
    for (i, &line) in lines.iter().enumerate() {
        let first = line.as_bytes().first().copied();
        match first {
            Some(b'#') => spans.extend(open.take().map(|(k, s, last)| (k, s, last + 1))),
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'-') => {
                if let Some(span) = open.as_mut()
                    && !line.trim().is_empty()
                {
                    span.2 = i;
                }
            }
            Some(_) => {
                spans.extend(open.take().map(|(k, s, last)| (k, s, last + 1)));
                let key = line.split(':').next().unwrap_or_default().trim();
                open = Some((key.trim_matches(['"', '\'']), i, i));
            }
        }
    }
    spans.extend(open.map(|(k, s, last)| (k, s, last + 1)));
    spans
}

fn write_opt_time(out: &mut String, indent: usize, key: &str, t: Option<Timestamp>) {
    match t {
        Some(t) => yaml::write_raw(out, indent, key, &t.to_string()),
        None => yaml::write_raw(out, indent, key, "null"),
    }
}

/// Splits `---\n<yaml>---\n<body>`; the closing line is the first `---` at
/// column 0 (in YAML a document marker; indented `---` inside block values
/// and `---` in the body are left alone). One blank separator line is eaten.
fn split_frontmatter(text: &str) -> Result<(&str, &str), ParseError> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---").filter(|r| r.trim().is_empty()))
        .ok_or(ParseError::NoFrontmatter)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            let body = body.strip_prefix('\n').unwrap_or(body);
            return Ok((front, body));
        }
        offset += line.len();
    }
    Err(ParseError::Unterminated)
}

const KNOWN: [&str; 20] = [
    "id",
    "title",
    "agent_id",
    "captured_at",
    "updated_at",
    "promoted_at",
    "trust_level",
    "source",
    "applicable_agents",
    "keywords",
    "verify_pattern",
    "quality",
    "original_command",
    "error_context",
    "correction",
    "wiki_page_name",
    "suggestion_status",
    "kind",
    // Older terraphim spellings, read and folded into the fields above.
    "source_agent",
    "content",
];

/// A frontmatter's top-level entries as [`from_fields`] reads them: each
/// known key's value in its slot of [`KNOWN`], taken out as it is read (a
/// string moves into the learning, not copied), and the others in order.
struct Fields {
    known: [Option<Value>; KNOWN.len()],
    extra: Vec<(String, Value)>,
}

impl Fields {
    /// The entries of a mapping, whose keys are distinct.
    fn of<'a>(entries: impl Iterator<Item = (Cow<'a, str>, Value)>) -> Fields {
        let mut fields = Fields {
            known: Default::default(),
            extra: Vec::new(),
        };
        for (key, value) in entries {
            match KNOWN.iter().position(|k| *k == key) {
                Some(slot) => fields.known[slot] = Some(value),
                None => fields.extra.push((key.into_owned(), value)),
            }
        }
        fields
    }

    /// The entries of any YAML frontmatter, through the full parser. A key
    /// that is not a string names no field, and is not kept.
    fn of_yaml(front: &str) -> Result<Fields, ParseError> {
        match yaml::parse(front).map_err(|e| ParseError::Yaml(e.to_string()))? {
            Value::Mapping(map) => Ok(Fields::of(map.into_iter().filter_map(|(k, v)| match k {
                Value::String(k) => Some((Cow::Owned(k), v)),
                _ => None,
            }))),
            _ => Err(ParseError::NotAMapping),
        }
    }

    /// `key`'s value, taken; `None` when absent or null.
    fn take(&mut self, key: &str) -> Option<Value> {
        let slot = KNOWN.iter().position(|k| *k == key)?;
        self.known[slot].take().filter(|v| !v.is_null())
    }

    fn string(&mut self, key: &'static str) -> Result<Option<String>, ParseError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(ParseError::BadField {
                key,
                expected: "a string",
            }),
        }
    }

    fn required(&mut self, key: &'static str) -> Result<String, ParseError> {
        self.string(key)?.ok_or(ParseError::Missing(key))
    }

    fn time(&mut self, key: &'static str) -> Result<Option<Timestamp>, ParseError> {
        match self.string(key)? {
            None => Ok(None),
            Some(s) => Timestamp::parse(&s).map(Some).ok_or(ParseError::BadField {
                key,
                expected: "an RFC 3339 timestamp",
            }),
        }
    }

    fn list(&mut self, key: &'static str) -> Result<Vec<String>, ParseError> {
        let bad = ParseError::BadField {
            key,
            expected: "a list of strings",
        };
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Sequence(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s),
                    Value::Number(n) => Ok(n.to_string()),
                    Value::Bool(b) => Ok(b.to_string()),
                    _ => Err(bad.clone()),
                })
                .collect(),
            Some(Value::String(s)) => Ok(vec![s]),
            Some(_) => Err(bad),
        }
    }
}

fn from_fields(mut f: Fields, body: &str) -> Result<Learning, ParseError> {
    let id = f.required("id")?;
    paths::validate_id(&id).map_err(|e| ParseError::BadName(e.to_string()))?;
    let agent_id = match f.string("agent_id")? {
        Some(a) => a,
        None => f.required("source_agent")?,
    };
    paths::validate_agent(&agent_id).map_err(|e| ParseError::BadName(e.to_string()))?;
    let captured_at = f
        .time("captured_at")?
        .ok_or(ParseError::Missing("captured_at"))?;
    let trust_level = match f.string("trust_level")? {
        None => TrustLevel::L1,
        Some(s) => TrustLevel::parse(&s).ok_or(ParseError::BadField {
            key: "trust_level",
            expected: "one of L0, L1, L2, L3",
        })?,
    };
    let suggestion_status = match f.string("suggestion_status")? {
        None => SuggestionStatus::Pending,
        Some(s) => SuggestionStatus::parse(&s).ok_or(ParseError::BadField {
            key: "suggestion_status",
            expected: "one of pending, approved, rejected",
        })?,
    };
    let quality = match f.take("quality") {
        None => Quality::default(),
        Some(Value::Mapping(q)) => parse_quality(&q)?,
        Some(_) => {
            return Err(ParseError::BadField {
                key: "quality",
                expected: "a mapping",
            });
        }
    };
    // Terraphim's older files kept the text in `content`; a body wins.
    let body = match f.string("content")? {
        Some(content) if body.trim().is_empty() => content,
        _ => body.to_string(),
    };

    Ok(Learning {
        title: f.required("title")?,
        agent_id,
        captured_at,
        updated_at: f.time("updated_at")?.unwrap_or(captured_at),
        promoted_at: f.time("promoted_at")?,
        trust_level,
        source: f
            .string("source")?
            .map(|s| snake_case(&s))
            .unwrap_or_else(|| "manual".to_string()),
        applicable_agents: f.list("applicable_agents")?,
        keywords: f.list("keywords")?,
        verify_pattern: f.string("verify_pattern")?,
        quality,
        original_command: f.string("original_command")?,
        error_context: f.string("error_context")?,
        correction: f.string("correction")?,
        wiki_page_name: f.string("wiki_page_name")?,
        suggestion_status,
        kind: f.string("kind")?.map(|s| snake_case(&s)),
        extra: f.extra,
        body,
        id,
    })
}

fn parse_quality(q: &Mapping) -> Result<Quality, ParseError> {
    let bad = |expected| ParseError::BadField {
        key: "quality",
        expected,
    };
    let count = |key: &str| match q.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_u64().ok_or(bad("a mapping of non-negative counts")),
        Some(_) => Err(bad("a mapping of non-negative counts")),
    };
    let agent_names = match q.get("agent_names") {
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let last_applied_at = q
        .get("last_applied_at")
        .and_then(Value::as_str)
        .and_then(Timestamp::parse);
    Ok(Quality {
        applied_count: count("applied_count")?,
        effective_count: count("effective_count")?,
        agent_count: count("agent_count")?,
        agent_names,
        last_applied_at,
        success_rate: q.get("success_rate").and_then(Value::as_f64),
    })
}

/// `BashHook` → `bash_hook`; snake_case stays as it is.
fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
