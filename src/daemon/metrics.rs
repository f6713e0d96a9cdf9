//! What `/metrics` says, as data ([`Snapshot`], kept up to date by the
//! daemon's loop) and its rendering in the Prometheus text exposition
//! format 0.0.4 (pure). Written by hand: a dozen families do not need a
//! metrics crate, and the format is small and stable.
//!
//! Families: `learnsync_daemon_runs_total{job,outcome}` (counter),
//! `learnsync_daemon_run_duration_seconds{job}` (histogram),
//! `learnsync_daemon_last_success_timestamp_seconds{job}` (set only by a
//! success; absent until the first), `learnsync_daemon_consecutive_failures{job}`,
//! `learnsync_daemon_next_run_timestamp_seconds{job}` (absent for a job that
//! is off), `learnsync_daemon_running{job}`, `learnsync_learnings{trust}`,
//! `learnsync_export_learnings{format}` (as of the last export run),
//! `learnsync_inbox_files`, `learnsync_daemon_start_time_seconds`,
//! `learnsync_daemon_config_reloads_total{result}`; and what the learnings
//! did (`crate::impact`, over every event of the dir, counted with the
//! learnings): `learnsync_events_total{outcome,via}`,
//! `learnsync_failures_avoided_total`, `learnsync_recurred_after_shown_total`
//! (counters: events are never removed) and `learnsync_learnings_keep_failing`
//! — no learning label, so a thousand learnings are still a few series.

use super::{Job, RunOutcome};
use crate::event::Outcome;
use crate::impact::{EventCounts, Figures};
use crate::names::Named;
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Upper bounds of the run duration histogram, in seconds.
pub const BUCKETS: [f64; 12] = [
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0,
];

/// Durations of one job's runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// Observations at or below each bound of [`BUCKETS`] but above the
    /// previous one (rendered cumulatively).
    counts: [u64; BUCKETS.len()],
    over: u64,
    sum: f64,
}

impl Histogram {
    pub fn observe(&mut self, secs: f64) {
        let secs = if secs.is_finite() { secs.max(0.0) } else { 0.0 };
        self.sum += secs;
        match BUCKETS.iter().position(|b| secs <= *b) {
            Some(i) => self.counts[i] += 1,
            None => self.over += 1,
        }
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.over
    }
}

/// One job's gauges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobGauges {
    pub enabled: bool,
    pub last_success: Option<DateTime<Utc>>,
    pub consecutive_failures: u32,
    pub next_run: Option<DateTime<Utc>>,
    pub running_since: Option<DateTime<Utc>>,
    /// The last failed run's class and summary, for `/readyz`.
    pub last_failure: Option<String>,
}

/// What the dir holds, counted after a sync that moved HEAD (or the first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirCounts {
    /// Learnings by trust level, every level present.
    pub by_trust: BTreeMap<String, u64>,
    pub inbox_files: u64,
    pub impact: Impact,
}

/// What the learnings did over every event of the dir (`crate::impact`):
/// the totals alone, no learning's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Impact {
    pub events: EventCounts,
    pub totals: Figures,
    pub keep_failing: u64,
}

impl Impact {
    pub fn of(report: &crate::impact::Report) -> Impact {
        Impact {
            events: report.events.clone(),
            totals: report.totals,
            keep_failing: report.keeps_failing.len() as u64,
        }
    }
}

/// Everything `/metrics`, `/readyz` and `/livez` read.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub started: Option<DateTime<Utc>>,
    pub runs: BTreeMap<(Job, RunOutcome), u64>,
    pub durations: BTreeMap<Job, Histogram>,
    pub jobs: BTreeMap<Job, JobGauges>,
    /// Learnings by trust level, counted after each sync that moved HEAD.
    pub learnings: BTreeMap<String, u64>,
    /// Learnings the last export run wrote, by format (summed over its
    /// targets of that format).
    pub exported: BTreeMap<String, u64>,
    pub inbox_files: u64,
    /// What the learnings did, as of the last count (`None` before it).
    pub impact: Option<Impact>,
    pub reloads_ok: u64,
    pub reloads_failed: u64,
    pub ready_sync_age_secs: u64,
    pub ready_failures: u64,
}

impl Snapshot {
    /// Counts one finished run.
    pub fn count_run(&mut self, job: Job, outcome: RunOutcome, secs: Option<f64>) {
        *self.runs.entry((job, outcome)).or_default() += 1;
        if let Some(secs) = secs {
            self.durations.entry(job).or_default().observe(secs);
        }
    }

    pub fn job(&mut self, job: Job) -> &mut JobGauges {
        self.jobs.entry(job).or_default()
    }

    /// Takes in a count of the dir.
    pub fn counted(&mut self, c: &DirCounts) {
        self.learnings = c.by_trust.clone();
        self.inbox_files = c.inbox_files;
        self.impact = Some(c.impact.clone());
    }
}

fn seconds(t: DateTime<Utc>) -> f64 {
    t.timestamp_millis() as f64 / 1000.0
}

/// A label value with `\`, `"` and newlines escaped, as the format wants.
fn label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A sample value: integers without a fraction, and the format's spellings
/// of the special values.
fn value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        }
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// The runs of each job by outcome.
fn runs(out: &mut String, s: &Snapshot) {
    family(
        out,
        "learnsync_daemon_runs_total",
        "counter",
        "Runs of each job by outcome since the daemon started.",
    );
    for job in Job::ORDER {
        for outcome in RunOutcome::ALL {
            let n = s.runs.get(&(job, outcome)).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "learnsync_daemon_runs_total{{job=\"{}\",outcome=\"{}\"}} {n}",
                label(job.as_str()),
                outcome.as_str()
            );
        }
    }
}

/// How long each job's runs took, as a histogram.
fn durations(out: &mut String, s: &Snapshot) {
    let name = "learnsync_daemon_run_duration_seconds";
    family(
        out,
        name,
        "histogram",
        "How long each job's runs took, since the daemon started.",
    );
    for job in Job::ORDER {
        let empty = Histogram::default();
        let h = s.durations.get(&job).unwrap_or(&empty);
        let j = label(job.as_str());
        let mut cumulative = 0;
        for (bound, n) in BUCKETS.iter().zip(h.counts) {
            cumulative += n;
            let _ = writeln!(
                out,
                "{name}_bucket{{job=\"{j}\",le=\"{}\"}} {cumulative}",
                value(*bound)
            );
        }
        let _ = writeln!(
            out,
            "{name}_bucket{{job=\"{j}\",le=\"+Inf\"}} {}",
            h.count()
        );
        let _ = writeln!(out, "{name}_sum{{job=\"{j}\"}} {}", value(h.sum));
        let _ = writeln!(out, "{name}_count{{job=\"{j}\"}} {}", h.count());
    }
}

/// The snapshot in the Prometheus text format.
pub fn render(s: &Snapshot) -> String {
    let mut out = String::with_capacity(4096);

    runs(&mut out, s);
    durations(&mut out, s);

    let gauge =
        |out: &mut String, name: &str, help: &str, get: &dyn Fn(&JobGauges) -> Option<f64>| {
            family(out, name, "gauge", help);
            for job in Job::ORDER {
                let g = s.jobs.get(&job).cloned().unwrap_or_default();
                if let Some(v) = get(&g) {
                    let _ = writeln!(
                        out,
                        "{name}{{job=\"{}\"}} {}",
                        label(job.as_str()),
                        value(v)
                    );
                }
            }
        };
    gauge(
        &mut out,
        "learnsync_daemon_last_success_timestamp_seconds",
        "When each job last succeeded (Unix time); set only by a success.",
        &|g| g.last_success.map(seconds),
    );
    gauge(
        &mut out,
        "learnsync_daemon_consecutive_failures",
        "Failed runs of each job since its last success.",
        &|g| Some(f64::from(g.consecutive_failures)),
    );
    gauge(
        &mut out,
        "learnsync_daemon_next_run_timestamp_seconds",
        "When each job runs next (Unix time), backoff included; absent when the job is off.",
        &|g| {
            if g.enabled {
                g.next_run.map(seconds)
            } else {
                None
            }
        },
    );
    gauge(
        &mut out,
        "learnsync_daemon_running",
        "1 while a run of the job is going.",
        &|g| Some(if g.running_since.is_some() { 1.0 } else { 0.0 }),
    );

    family(
        &mut out,
        "learnsync_learnings",
        "gauge",
        "Learnings by trust level, as of the last sync.",
    );
    for (trust, n) in &s.learnings {
        let _ = writeln!(out, "learnsync_learnings{{trust=\"{}\"}} {n}", label(trust));
    }
    family(
        &mut out,
        "learnsync_export_learnings",
        "gauge",
        "Learnings the last export run wrote, by format (summed over its targets).",
    );
    for (format, n) in &s.exported {
        let _ = writeln!(
            out,
            "learnsync_export_learnings{{format=\"{}\"}} {n}",
            label(format)
        );
    }
    family(
        &mut out,
        "learnsync_inbox_files",
        "gauge",
        "Captures and events waiting in the inbox for the next sync.",
    );
    let _ = writeln!(out, "learnsync_inbox_files {}", s.inbox_files);
    render_impact(&mut out, s.impact.as_ref());
    family(
        &mut out,
        "learnsync_daemon_start_time_seconds",
        "gauge",
        "When the daemon started (Unix time).",
    );
    if let Some(t) = s.started {
        let _ = writeln!(
            out,
            "learnsync_daemon_start_time_seconds {}",
            value(seconds(t))
        );
    }
    family(
        &mut out,
        "learnsync_daemon_config_reloads_total",
        "counter",
        "Configuration reloads on SIGHUP, by result (a failed one keeps the old configuration).",
    );
    let _ = writeln!(
        out,
        "learnsync_daemon_config_reloads_total{{result=\"ok\"}} {}",
        s.reloads_ok
    );
    let _ = writeln!(
        out,
        "learnsync_daemon_config_reloads_total{{result=\"failed\"}} {}",
        s.reloads_failed
    );
    out
}

/// What the learnings did: families always, samples once counted.
fn render_impact(out: &mut String, impact: Option<&Impact>) {
    family(
        out,
        "learnsync_events_total",
        "counter",
        "Events about learnings in the dir, by outcome and by how the learning reached the agent (via; none when the event does not say), as of the last sync.",
    );
    if let Some(i) = impact {
        for outcome in Outcome::ALL.iter().copied() {
            for via in EventCounts::via_labels() {
                let _ = writeln!(
                    out,
                    "learnsync_events_total{{outcome=\"{}\",via=\"{via}\"}} {}",
                    outcome.as_str(),
                    i.events.get(outcome, via)
                );
            }
        }
    }
    let totals = [
        (
            "learnsync_failures_avoided_total",
            "counter",
            "Denials and warnings followed by the correction working, with no recurrence from that agent after (all events).",
            impact.map(|i| i.totals.failures_avoided),
        ),
        (
            "learnsync_recurred_after_shown_total",
            "counter",
            "Failures that came back for an agent the learning had been shown to (all events).",
            impact.map(|i| i.totals.recurred_after_shown),
        ),
        (
            "learnsync_learnings_keep_failing",
            "gauge",
            "Learnings that keep failing after being shown: two or more ineffective or recurred after shown, more than effective.",
            impact.map(|i| i.keep_failing),
        ),
    ];
    for (name, kind, help, n) in totals {
        family(out, name, kind, help);
        if let Some(n) = n {
            let _ = writeln!(out, "{name} {n}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_histogram_is_cumulative_and_ends_in_inf_equal_to_count() {
        let mut s = Snapshot::default();
        for secs in [0.01, 0.3, 0.3, 7.0, 5000.0] {
            s.count_run(Job::Sync, RunOutcome::Ok, Some(secs));
        }
        s.count_run(Job::Sync, RunOutcome::Skipped, None);
        let text = render(&s);
        let line = |prefix: &str| {
            text.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix} in\n{text}"))
                .rsplit(' ')
                .next()
                .expect("value")
                .to_string()
        };
        let h = "learnsync_daemon_run_duration_seconds";
        assert_eq!(
            line(&format!("{h}_bucket{{job=\"sync\",le=\"0.05\"}}")),
            "1"
        );
        assert_eq!(line(&format!("{h}_bucket{{job=\"sync\",le=\"0.5\"}}")), "3");
        assert_eq!(line(&format!("{h}_bucket{{job=\"sync\",le=\"900\"}}")), "4");
        assert_eq!(
            line(&format!("{h}_bucket{{job=\"sync\",le=\"+Inf\"}}")),
            "5"
        );
        assert_eq!(line(&format!("{h}_count{{job=\"sync\"}}")), "5");
        assert_eq!(
            line("learnsync_daemon_runs_total{job=\"sync\",outcome=\"skipped\"}"),
            "1"
        );
        assert_eq!(
            line("learnsync_daemon_runs_total{job=\"publish\",outcome=\"failed\"}"),
            "0"
        );
    }

    #[test]
    fn the_export_gauge_has_one_series_per_format_and_none_before_a_run() {
        let mut s = Snapshot::default();
        assert!(!render(&s).contains("learnsync_export_learnings{"));
        s.exported.insert("agents-md".into(), 4);
        s.exported.insert("skills".into(), 0);
        let text = render(&s);
        assert!(text.contains("learnsync_export_learnings{format=\"agents-md\"} 4\n"));
        assert!(text.contains("learnsync_export_learnings{format=\"skills\"} 0\n"));
        assert!(text.contains("learnsync_daemon_runs_total{job=\"export\",outcome=\"ok\"} 0\n"));
    }

    #[test]
    fn last_success_is_absent_until_a_success_and_off_jobs_have_no_next_run() {
        let mut s = Snapshot::default();
        s.job(Job::Sync).enabled = true;
        s.job(Job::Sync).next_run = Some(DateTime::from_timestamp(1_780_000_000, 0).expect("t"));
        s.job(Job::Publish).next_run = Some(DateTime::from_timestamp(1_780_000_000, 0).expect("t"));
        let text = render(&s);
        assert!(!text.contains("learnsync_daemon_last_success_timestamp_seconds{"));
        assert!(
            text.contains("learnsync_daemon_next_run_timestamp_seconds{job=\"sync\"} 1780000000\n")
        );
        assert!(!text.contains("learnsync_daemon_next_run_timestamp_seconds{job=\"publish\"}"));
        s.job(Job::Sync).last_success =
            Some(DateTime::from_timestamp_millis(1_780_000_000_250).expect("t"));
        assert!(render(&s).contains(
            "learnsync_daemon_last_success_timestamp_seconds{job=\"sync\"} 1780000000.25\n"
        ));
    }

    #[test]
    fn what_learnings_did_is_counted_by_outcome_and_via_with_no_learning_label() {
        use crate::event::{Event, Via};
        use crate::timestamp::Timestamp;
        let mut s = Snapshot::default();
        let before = render(&s);
        assert!(before.contains("# TYPE learnsync_events_total counter\n"));
        assert!(!before.contains("learnsync_events_total{"));
        assert!(!before.contains("\nlearnsync_failures_avoided_total "));
        let at = |n| Timestamp::from_unix(n);
        let events = [
            Event::new("learning-a", "codex", Outcome::Applied, at(1)).via(Via::Deny),
            Event::new("learning-a", "codex", Outcome::Effective, at(2)),
            Event::new("learning-b", "codex", Outcome::Applied, at(3)).via(Via::PreToolUse),
            Event::new("learning-b", "codex", Outcome::Ineffective, at(4)),
            Event::new("learning-b", "codex", Outcome::Recurred, at(5)),
        ];
        let report = crate::impact::report(&events, &[], &Default::default());
        s.counted(&DirCounts {
            impact: Impact::of(&report),
            ..DirCounts::default()
        });
        let text = render(&s);
        for line in [
            "learnsync_events_total{outcome=\"applied\",via=\"deny\"} 1\n",
            "learnsync_events_total{outcome=\"applied\",via=\"pre-tool-use\"} 1\n",
            "learnsync_events_total{outcome=\"applied\",via=\"prompt\"} 0\n",
            "learnsync_events_total{outcome=\"effective\",via=\"none\"} 1\n",
            "learnsync_events_total{outcome=\"recurred\",via=\"none\"} 1\n",
            "learnsync_failures_avoided_total 1\n",
            "learnsync_recurred_after_shown_total 1\n",
            "learnsync_learnings_keep_failing 1\n",
        ] {
            assert!(text.contains(line), "no {line:?} in\n{text}");
        }
        assert_eq!(text.matches("learnsync_events_total{").count(), 4 * 6);
        assert!(!text.contains("learning-a"), "no learning label");
    }

    #[test]
    fn label_values_are_escaped_and_special_values_spelled_as_the_format_wants() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(value(f64::INFINITY), "+Inf");
        assert_eq!(value(f64::NAN), "NaN");
        assert_eq!(value(3.0), "3");
        assert_eq!(value(0.25), "0.25");
    }
}
