//! The daemon's export job through the real binary (issue 31): with an
//! `export.targets` entry it writes the AGENTS.md block after its sync, and
//! `status`, `/metrics` and `config` show it; a target whose markers are
//! broken is named and the run is partial while the others are written; a
//! relative `to` is refused naming the entry; with no target the job says
//! the one command that adds one. And `hooks install` points the agents it
//! cannot hook to `export`.

use crate::common::Sandbox;
use crate::common::daemon::{Daemon, wait_runs, write_config};
use crate::common::learnings::add_l2_lesson;
use crate::common::net::{free_port, wait_status};
use crate::common::prometheus::{metric, parse_prometheus};
use learnsync::daemon::{ErrorClass, Job, RunOutcome, RunRecord};
use std::time::Duration;

/// An initialised dir whose inbox holds `n` learnings that three effective
/// outcomes from two agents make L2 at the next sync; their ids.
fn with_l2(s: &Sandbox, n: usize) -> Vec<String> {
    s.ok(&["init", "--agent", "claude"]);
    (0..n)
        .map(|i| {
            add_l2_lesson(
                s,
                i,
                "git push -f",
                "use git push --force-with-lease",
                "git",
            )
        })
        .collect()
}

/// The daemon's config: sync at start and every 2 s, export every 2 s,
/// review and publish off, and `extra` after.
fn config(extra: &str) -> String {
    format!(
        "agent: claude\nschedule:\n  sync: \"*/2 * * * * *\"\n  review: \"off\"\n  publish: \"off\"\n  export: \"*/2 * * * * *\"\ndaemon:\n  spread_secs: 0\n{extra}"
    )
}

/// The export runs that ran (not the ticks skipped because a run was
/// going or waiting: with a job every 2 s on a busy machine, there are some).
fn exports(runs: &[RunRecord]) -> Vec<&RunRecord> {
    runs.iter()
        .filter(|r| r.job == Job::Export && r.error_class != Some(ErrorClass::Overlap))
        .collect()
}

#[test]
fn a_daemon_with_an_export_target_writes_the_agents_md_block_after_its_sync_and_says_so() {
    let s = Sandbox::new();
    let ids = with_l2(&s, 2);
    let repo = s.home().join("src/shop");
    std::fs::create_dir_all(&repo).expect("mkdir");
    std::fs::write(
        repo.join("AGENTS.md"),
        "# Shop rules\n\nRun `make check`.\n",
    )
    .expect("write");
    let port = free_port();
    write_config(
        s.dir(),
        &config(&format!(
            "  listen: \"127.0.0.1:{port}\"\nexport:\n  targets:\n    - format: agents-md\n      to: ~/src/shop/AGENTS.md\n      min_trust: L2\n"
        )),
    );
    let shown = s.ok(&["config"]);
    let row = shown
        .lines()
        .find(|l| l.starts_with("export.targets"))
        .unwrap_or_else(|| panic!("no export.targets row in\n{shown}"));
    assert!(
        row.contains(&format!("agents-md {}", repo.join("AGENTS.md").display()))
            && row.contains("min_trust L2")
            && row.contains(".git/learnsync/config.yaml"),
        "{row}"
    );

    let mut d = Daemon::start(s.cmd(&["daemon"]));
    let runs = wait_runs(s.dir(), Duration::from_secs(60), "an export run", |runs| {
        !exports(runs).is_empty()
    });
    let export = exports(&runs)[0].clone();
    assert_eq!(export.outcome, RunOutcome::Ok, "{export:?}");
    assert!(
        export.summary.contains(&format!(
            "agents-md {}: written 1 file(s), 2 learning(s) shown, 0 left out",
            repo.join("AGENTS.md").display()
        )),
        "{}",
        export.summary
    );
    let sync = runs
        .iter()
        .find(|r| r.job == Job::Sync)
        .expect("the start sync");
    assert!(
        sync.end <= export.start,
        "export ran before the sync: {runs:?}"
    );
    let text = std::fs::read_to_string(repo.join("AGENTS.md")).expect("AGENTS.md");
    assert!(
        text.starts_with("# Shop rules\n\nRun `make check`.\n"),
        "{text}"
    );
    assert!(text.contains("<!-- learnsync:begin"), "{text}");
    for id in &ids {
        assert!(text.contains(id.as_str()), "{id} missing: {text}");
    }

    // The next run finds nothing new and says so.
    let runs = wait_runs(
        s.dir(),
        Duration::from_secs(60),
        "a second export",
        |runs| exports(runs).len() >= 2,
    );
    let again = exports(&runs)[1];
    assert!(
        again.summary.contains(": up to date, 2 learning(s) shown"),
        "{again:?}"
    );

    let body = wait_status(port, "/metrics", 200, Duration::from_secs(10));
    let families = parse_prometheus(&body).expect("valid exposition");
    assert_eq!(
        metric(
            &families,
            "learnsync_export_learnings",
            &[("format", "agents-md")]
        ),
        Some(2.0),
        "{body}"
    );
    assert!(
        metric(
            &families,
            "learnsync_daemon_runs_total",
            &[("job", "export"), ("outcome", "ok")]
        )
        .is_some_and(|n| n >= 1.0),
        "{body}"
    );
    // What the learnings did, counted with them after the sync: six
    // effective outcomes typed with `apply` (via manual), none after a
    // warning, so no failure avoided; no per-learning label.
    for (labels, want) in [
        ([("outcome", "effective"), ("via", "manual")], 6.0),
        ([("outcome", "applied"), ("via", "deny")], 0.0),
    ] {
        assert_eq!(
            metric(&families, "learnsync_events_total", &labels),
            Some(want),
            "{body}"
        );
    }
    assert_eq!(
        metric(&families, "learnsync_failures_avoided_total", &[]),
        Some(0.0),
        "{body}"
    );
    assert!(!body.contains("learning=\""), "{body}");

    let status = s.ok(&["status"]);
    assert!(
        status.contains("  export   schedule `*/2 * * * * *`"),
        "{status}"
    );
    let last = status
        .lines()
        .skip_while(|l| !l.starts_with("  export"))
        .find(|l| l.contains("last run:"))
        .unwrap_or_else(|| panic!("no export last run in\n{status}"));
    assert!(
        last.contains(" ok ") && last.contains("2 learning(s) shown"),
        "{last}"
    );
    d.stop();
}

#[test]
fn a_target_with_broken_markers_is_named_and_the_others_are_still_written() {
    let s = Sandbox::new();
    let ids = with_l2(&s, 1);
    let broken = s.root().join("broken/CLAUDE.md");
    std::fs::create_dir_all(broken.parent().expect("parent")).expect("mkdir");
    let mine = "# Mine\n\n<!-- learnsync:begin: generated\nno end marker\n";
    std::fs::write(&broken, mine).expect("write");
    let good = s.root().join("good/AGENTS.md");
    write_config(
        s.dir(),
        &config(&format!(
            "export:\n  targets:\n    - {{format: claude-md, to: {}, min_trust: L2}}\n    - {{format: agents-md, to: {}, min_trust: L2}}\n",
            broken.display(),
            good.display()
        )),
    );
    let mut d = Daemon::start(s.cmd(&["daemon"]));
    let runs = wait_runs(s.dir(), Duration::from_secs(60), "an export run", |runs| {
        !exports(runs).is_empty()
    });
    let export = exports(&runs)[0].clone();
    assert_eq!(
        (export.outcome, export.error_class),
        (RunOutcome::Partial, Some(ErrorClass::Config)),
        "{export:?}"
    );
    assert!(
        export.summary.contains(&format!(
            "failed: export.targets[0] (claude-md {}): {}:3:",
            broken.display(),
            broken.display()
        )) && export
            .summary
            .contains(&format!("agents-md {}: written 1 file(s)", good.display())),
        "{}",
        export.summary
    );
    assert_eq!(std::fs::read_to_string(&broken).expect("read"), mine);
    let text = std::fs::read_to_string(&good).expect("the good target");
    assert!(text.contains(ids[0].as_str()), "{text}");
    d.wait_for("export partial", Duration::from_secs(10));
    let status = s.ok(&["status"]);
    assert!(
        status.contains("partial [config]") && status.contains("export.targets[0]"),
        "{status}"
    );
    d.stop();
}

#[test]
fn a_relative_target_is_refused_naming_the_entry_and_no_target_says_how_to_add_one() {
    let s = Sandbox::new();
    s.ok(&["init", "--agent", "claude"]);
    write_config(
        s.dir(),
        "agent: claude\nexport:\n  targets:\n    - {format: agents-md, to: /abs/AGENTS.md}\n    - {format: agents-md, to: AGENTS.md}\n",
    );
    for args in [&["daemon", "--check"][..], &["config"][..]] {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("export.targets[1]: `to` \"AGENTS.md\" is relative")
                && err.contains("absolute path or ~/"),
            "{err}"
        );
    }
    write_config(
        s.dir(),
        "agent: claude\nexport:\n  targets:\n    - {format: agents.md, to: /abs/AGENTS.md}\n",
    );
    let err = String::from_utf8_lossy(&s.run(&["daemon", "--check"]).stderr).into_owned();
    assert!(
        err.contains("export.targets[0]: format \"agents.md\": expected one of agents-md,"),
        "{err}"
    );

    write_config(s.dir(), "agent: claude\n");
    let out = s.ok(&["daemon", "--check"]);
    let export = out
        .lines()
        .skip_while(|l| !l.starts_with("export"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(export.contains("45 * * * *"), "{out}");
    assert!(
        export.contains("skips: nothing to export to (export.targets is unset)")
            && export.contains("printf \"export:\\n  targets:"),
        "{out}"
    );
}

#[test]
fn hooks_install_points_the_agents_without_hooks_to_export() {
    let s = Sandbox::new();
    let out = s.ok(&["hooks", "install", "claude"]);
    assert!(
        out.lines().any(|l| l
            == "Agents without hooks (Cursor, Copilot, Gemini CLI, Aider, Windsurf) read instruction files: \
                `learnsync export --format agents-md --to ./AGENTS.md` (docs/export.md)."),
        "{out}"
    );
    let out = s.ok(&["hooks", "uninstall", "claude"]);
    assert!(!out.contains("Agents without hooks"), "{out}");
}
