//! The knobs of the query side ([`Tuning`]) and their defaults, which the
//! ranker (`rank.rs`) reads; docs/retrieval.md says how they were tuned.

/// The knobs of the query side. Defaults were tuned on the `tune` half of
/// the corpus queries (docs/retrieval.md says how).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    pub k1: f32,
    /// Weight of a KG concept the text names, against 1 for a term.
    pub concept: f32,
    /// Weight of a neighbour concept, times the edge's strength.
    pub related: f32,
    /// Neighbours weaker than this are left out.
    pub related_min: f32,
    /// The strength a `related::` line gives an edge.
    pub related_floor: f32,
    /// Weight of a keyword phrase the text contains.
    pub keyword: f32,
    /// Weight of the program (and subcommand) when the text is a command.
    pub program: f32,
    /// How much of its idf a word no learning holds adds to the maximum.
    pub unknown: f32,
    /// Weight of a word that is only ever a directory of a path in the text.
    pub path_dir: f32,
    /// Terms in more than this share of learnings are skipped (no signal).
    pub max_df_share: f32,
    /// Multiplier per trust level, L0..L3 (L0 is never indexed).
    pub trust: [f32; 4],
    /// Evidence multipliers around a success of 0.5 (no evidence): up to
    /// `1 + evidence_up` for a correction that always works, down to
    /// `1 − evidence_down` for one that always fails or recurs. Asymmetric on
    /// purpose: a failing correction misleads, a proven one is only a little
    /// likelier to fit this text than an equally relevant unproven one.
    pub evidence_up: f32,
    pub evidence_down: f32,
    /// Multiplier for a learning of the asking agent's project.
    pub project: f32,
    pub min_relevance: f32,
    /// Units a learning must match (when the text has that many).
    pub min_units: usize,
    /// A text of one unit is answered only when that unit is in at most
    /// this share of learnings ("error" alone says nothing; "EADDRINUSE" does).
    pub single_df_share: f32,
    /// The relevance a hook wants before it interrupts an agent.
    pub hook_relevance: f32,
    /// How much of a word's weight a learning gets, toward `min_relevance`
    /// only, for holding the rare KG concept whose synonym in the text that
    /// word is part of (0 turns it off). Between 0.65 and 1 the corpus
    /// figures do not move; 1 says "the synonym's words are the concept".
    pub synonym_credit: f32,
    /// An error signature (a tail of one of the learning's error lines,
    /// normalised: see [`signature`](super::signature)) that covers at
    /// least this share of that line makes the learning an answer whatever
    /// its relevance: the text repeats the learning's error.
    pub signature_min: f32,
    /// A learning whose error's distinct words the text holds at least
    /// this share of is an answer when no other rule admits it: the text
    /// repeats its error, reworded or reframed (see
    /// [`signature::index_terms`](super::signature::index_terms)).
    pub error_words_min: f32,
    /// A signature matches only when at most this share of learnings (and
    /// at least three) hold it: a tail many errors end with says nothing.
    pub signature_df_share: f32,
    /// Added to a learning's relevance for ordering, times the share of its
    /// error line the text repeats.
    pub signature_bonus: f32,
    /// The negative signal: the share of the text's distinctive words
    /// (idf-weighed; the program name and words no learning holds aside)
    /// that a learning must cover, itself or through a KG concept it holds
    /// that the word names. "Same program and one generic word" covers
    /// little of what was asked.
    pub min_coverage: f32,
    /// A KG concept the text names is *telling* when at most this share of
    /// learnings (and at least one) hold it: `tabs-vs-spaces`, not
    /// `ci-pipeline`.
    pub concept_df_share: f32,
    /// KG agreement as evidence: a learning that holds a telling concept
    /// the text names is an answer from this relevance (below
    /// `min_relevance`) — a paraphrase ("IDE swapped leading whitespace")
    /// that shares the concept and few words. At or above `min_relevance`
    /// it is off.
    pub concept_relevance: f32,
    /// Units a learning must match on that concept path. A telling concept
    /// is itself the evidence (1): a paraphrase that names it through a
    /// synonym often shares no other word with the learning. 2 was the
    /// rule before issue 36's fourth pass.
    pub concept_units: usize,
    /// What a common concept named by one word counts toward `min_units`
    /// for a learning that holds the concept but not the word that named it
    /// (a synonym bridged the two): 1, as a word; 0 was the rule before
    /// issue 36's fourth pass (it counted only as that word).
    pub bridge_units: u32,
    /// The lead path, for a text of several lines (a log, a trace): the
    /// learning with the highest relevance is an answer from
    /// `lead_relevance` (below `min_relevance`) when it matches at least
    /// `lead_units` of the text's units and every other learning's
    /// relevance is at most `lead_ratio` of its own. Log framing (runner
    /// lines, timestamps, pod prefixes, stack frames) fills the maximum and
    /// keeps a right answer's relevance low, but it fills it for every
    /// learning alike: one that stands clearly ahead of the rest, on much of
    /// the text, is the error's learning. 1.0 for `lead_ratio` turns it off.
    pub lead_relevance: f32,
    pub lead_units: f32,
    pub lead_ratio: f32,
    /// The relevance a how-to question ("how do I …", "what's the command
    /// to …") needs, unless the learning repeats an error's signature or
    /// holds a telling concept the question names. A how-to asks for a
    /// capability; a learning records a failure and its correction, so one
    /// that shares the program and a word ("caddy", "enable") with the
    /// question has not answered it, and the questions nothing answers are
    /// mostly of this shape. A learning that does answer one covers most of
    /// it (0.54–0.84 on our corpus). `min_relevance` turns it off.
    pub howto_relevance: f32,
    /// The share of a how-to question's distinctive words (those that are
    /// not a program's name) its answer must cover, on the same terms as
    /// `howto_relevance`: "how do I exclude generated files from
    /// golangci-lint" is not answered by a learning about golangci-lint's
    /// config format that shares only "files". 0 turns it off.
    pub howto_coverage: f32,
    /// The coverage a how-to question's answer needs when it holds none of
    /// the KG concepts the question names: without the team's vocabulary
    /// saying both are about the same thing, the words must say it, nearly
    /// all of them. "how do I sign git commits with an ssh key instead of
    /// gpg" shares "git", "ssh" and "key" with a learning about an agent
    /// that lost its key, and nothing of what is asked. Our own corpus's
    /// how-to answers hold the concept (`db-migrations` for "apply database
    /// schema changes") and miss only the verb. At or below
    /// `howto_coverage` it changes nothing.
    pub howto_unbridged_coverage: f32,
    /// The share of a capability question's distinctive words (one line of
    /// prose that names no trouble: "ssh through a bastion in one command")
    /// a learning must cover to answer it, unless it holds a KG concept the
    /// question names in other words. Learnings record failures; one that
    /// shares the program's name and a word with such a question is about
    /// another feature of that program. 0 turns it off.
    pub capability_coverage: f32,
    /// The share of the distinctive words of any one-line question or
    /// request in prose, trouble or not, that a learning must cover unless
    /// a signature repeats its error or it holds a KG concept the question
    /// names in other words. "mysql enable the slow query log without a
    /// restart" shares only the program's name with a learning about a
    /// mysql failure; a paraphrase that shares no word is bridged by the
    /// graph. 0 turns it off.
    pub prose_coverage: f32,
    /// Weight, in ordering the learnings a pasted log admits, of the lines the
    /// log's reading left out (`logtext::salient`: its info lines, the
    /// commands around the failure): members of a family that store the
    /// same error differ in what those lines say (`lsof` shows the port's
    /// owner, `ssh -v` the refused signature). They never admit a learning:
    /// chatter would lift everything it shares a word with. 0 turns it off.
    pub context: f32,
    /// The share of one of a pasted log's failure lines (idf-weighed; see
    /// `logtext::reading`) a learning must hold to answer the log,
    /// unless it holds `failure_error_words` of its own error's words, its
    /// signature admitted it, or it matches `failure_relevance` of the
    /// text. A log of a failure no learning records shares its program's
    /// name, its framing and a generic word with many learnings; the one
    /// that records it holds much of the line that says what failed, or the
    /// log holds much of its error, however either is worded. 0 turns it
    /// off. Tuned on the blind tune sets 9–22 (issue 36, stop 65).
    pub failure_cover: f32,
    pub failure_error_words: f32,
    pub failure_relevance: f32,
    /// What a word no learning holds weighs in a failure line, as a share
    /// of its idf: a reworded line says part of its failure in words of
    /// its own (the text's `unknown` weighs the maximum instead).
    pub failure_unknown: f32,
    /// Once a text has an answer, the learnings that were not admitted but
    /// come within this share of the best relevance any learning reached,
    /// on as many units and as much coverage as an admitted one needs, are
    /// shown after every admitted one: a log's failure that a family of
    /// learnings share (`CERTIFICATE_VERIFY_FAILED` behind a proxy, on a
    /// macOS install, in an old image) is told apart by the lines around it,
    /// and a signature can pick the wrong member. They never make a text
    /// answered, nor move an admitted answer down. 0 turns it off.
    pub companion_ratio: f32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            k1: 1.2,
            concept: 2.0,
            related: 0.2,
            related_min: 0.34,
            related_floor: 0.5,
            keyword: 0.5,
            program: 2.0,
            unknown: 0.75,
            path_dir: 0.25,
            max_df_share: 0.5,
            trust: [0.0, 1.0, 1.05, 1.25],
            evidence_up: 0.05,
            evidence_down: 0.8,
            project: 1.5,
            min_relevance: 0.3,
            min_units: 2,
            single_df_share: 0.05,
            hook_relevance: 0.4,
            synonym_credit: 1.0,
            signature_min: 0.6,
            error_words_min: 0.7,
            signature_df_share: 0.01,
            signature_bonus: 0.5,
            min_coverage: 0.0,
            concept_df_share: 0.02,
            concept_relevance: 0.1,
            concept_units: 1,
            bridge_units: 1,
            lead_relevance: 0.15,
            lead_units: 0.3,
            lead_ratio: 0.8,
            howto_relevance: 0.5,
            howto_coverage: 0.6,
            howto_unbridged_coverage: 0.8,
            capability_coverage: 0.6,
            prose_coverage: 0.25,
            context: 1.0,
            failure_cover: 0.4,
            failure_relevance: 0.45,
            failure_unknown: 0.3,
            failure_error_words: 0.4,
            companion_ratio: 0.6,
        }
    }
}
