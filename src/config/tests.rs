use super::*;

fn dir() -> Sourced<PathBuf> {
    Sourced {
        value: "/tmp/x".into(),
        source: Source::Default,
    }
}

/// The config of a dir with this repo file and nothing else set.
fn from_repo_file(repo: &FileConfig) -> Config {
    Config::resolve(
        &Flags::default(),
        &Env::default(),
        dir(),
        repo,
        &FileConfig::default(),
    )
    .expect("ok")
}

#[test]
fn precedence_is_flag_env_repo_user_default() {
    let repo = FileConfig::parse("agent: from-repo\nhub: origin\n").expect("valid");
    let user =
        FileConfig::parse("agent: from-user\nhub: upstream\ngitea: {url: https://u.example}\n")
            .expect("valid");
    let env = Env {
        agent: Some("from-env".into()),
        ..Env::default()
    };
    let c = Config::resolve(&Flags::default(), &env, dir(), &repo, &user).expect("ok");
    assert_eq!(c.home_agent.value, "from-env");
    assert_eq!(c.hub_name(), Some("origin"));
    assert_eq!(
        c.gitea_url.as_ref().map(|h| h.source.clone()),
        Some(Source::UserFile)
    );
    let c = Config::resolve(&Flags::default(), &Env::default(), dir(), &repo, &user).expect("ok");
    assert_eq!(c.home_agent.value, "from-repo");
    assert_eq!(c.home_agent.source, Source::RepoFile);
    let flags = Flags {
        agent: Some("acting".into()),
        ..Flags::default()
    };
    let c = Config::resolve(
        &flags,
        &Env::default(),
        dir(),
        &FileConfig::default(),
        &user,
    )
    .expect("ok");
    assert_eq!(c.home_agent.value, "from-user");
    assert_eq!(c.acting_agent, "acting");
    assert_eq!(c.schedule_sync.source, Source::Default);
    assert_eq!(c.identity().email, "from-user@learnsync.invalid");
}

#[test]
fn dir_comes_from_flag_then_env_then_terraphim_then_xdg() {
    let env = Env {
        terraphim_dir: Some("/t".into()),
        xdg_data_home: Some("/xdg".into()),
        ..Env::default()
    };
    let d = Config::resolve_dir(&Flags::default(), &env, &FileConfig::default());
    assert_eq!(
        (d.value, d.source),
        (PathBuf::from("/t"), Source::Env("TERRAPHIM_LEARNINGS_DIR"))
    );
    let env = Env {
        xdg_data_home: Some("/xdg".into()),
        ..Env::default()
    };
    let d = Config::resolve_dir(&Flags::default(), &env, &FileConfig::default());
    assert_eq!(d.value, PathBuf::from("/xdg/learnsync"));
}

#[test]
fn invalid_files_name_the_key_and_what_was_expected() {
    for (text, want) in [
        ("agent: [a]\n", "agent"),
        ("agnet: x\n", "agnet"),
        ("remotes:\n  - name: o\n    fetch: maybe\n", "fetch"),
        ("schedule:\n  sync: every minute\n", "schedule.sync"),
        ("agent: ../x\n", "agent"),
        ("gitea:\n  token: abc\n", "gitea.token"),
        ("lock_wait_secs: soon\n", "lock_wait_secs"),
        ("watch: sometimes\n", "watch"),
        ("daemon:\n  listen: everywhere\n", "daemon.listen"),
        ("daemon:\n  debounce_secs: soon\n", "daemon.debounce_secs"),
        (
            "export:\n  targets:\n    - {format: agents-md, to: AGENTS.md}\n",
            "export.targets[0]: `to` \"AGENTS.md\" is relative",
        ),
        (
            "export:\n  targets:\n    - {format: agents-md, to: /a}\n    - {format: word, to: /b}\n",
            "export.targets[1]: format \"word\": expected one of agents-md",
        ),
        (
            "export:\n  targets:\n    - {format: skills, to: /a, min_trust: L1}\n",
            "export.targets[0]: min_trust \"L1\"",
        ),
        (
            "export:\n  targets:\n    - {format: skills, to: /a, trust: L2}\n",
            "export.targets[0]: unknown field `trust`",
        ),
        (
            "export:\n  targets:\n    - {to: /a}\n",
            "export.targets[0]: `format` is missing",
        ),
        (
            "export:\n  targets: /a\n",
            "export.targets: expected a list",
        ),
    ] {
        let err = FileConfig::parse(text).expect_err(text);
        assert!(err.contains(want), "{text:?} -> {err}");
    }
}

#[test]
fn export_targets_default_to_none_and_l3_and_expand_the_home() {
    let c = Config::resolve(
        &Flags::default(),
        &Env::default(),
        dir(),
        &FileConfig::default(),
        &FileConfig::default(),
    )
    .expect("ok");
    assert!(c.export_targets.value.is_empty());
    assert_eq!(c.schedule_export.value, "45 * * * *");
    let user = FileConfig::parse(
        "export:\n  targets:\n    - {format: agents-md, to: ~/src/AGENTS.md}\n    - {format: skills, to: /s, min_trust: L2, project: shop}\n",
    )
    .expect("valid");
    let env = Env {
        home: Some("/home/u".into()),
        ..Env::default()
    };
    let c = Config::resolve(
        &Flags::default(),
        &env,
        dir(),
        &FileConfig::default(),
        &user,
    )
    .expect("ok");
    let t = &c.export_targets;
    assert_eq!(t.source, Source::UserFile);
    assert_eq!(
        (t.value[0].to.clone(), t.value[0].min_trust),
        (
            PathBuf::from("/home/u/src/AGENTS.md"),
            crate::learning::TrustLevel::L3
        )
    );
    assert_eq!(t.value[1].project.as_deref(), Some("shop"));
    let row = c
        .rows()
        .iter()
        .find(|r| r.key == "export.targets")
        .expect("row");
    assert_eq!(
        row.value.as_deref(),
        Some(
            "agents-md /home/u/src/AGENTS.md (min_trust L3); skills /s (min_trust L2, project shop)"
        )
    );
    let err = Config::resolve(
        &Flags::default(),
        &Env::default(),
        dir(),
        &FileConfig::default(),
        &user,
    )
    .expect_err("no HOME for ~/");
    assert!(err.to_string().contains("export.targets[0]"), "{err}");
}

#[test]
fn listen_addresses_default_to_loopback() {
    for (text, want) in [
        ("9477", "127.0.0.1:9477"),
        (":9477", "127.0.0.1:9477"),
        ("localhost:80", "127.0.0.1:80"),
        ("[::1]:9477", "[::1]:9477"),
        ("0.0.0.0:9477", "0.0.0.0:9477"),
    ] {
        assert_eq!(
            parse_listen(text).expect(text).to_string(),
            want,
            "{text:?}"
        );
    }
    for bad in ["", "host:1", "127.0.0.1", "127.0.0.1:99999"] {
        assert!(parse_listen(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn every_key_is_a_row_once_and_secrets_are_never_shown() {
    let repo = FileConfig::parse("gitea:\n  token_command: pass show gitea\n").expect("valid");
    let env = Env {
        gitea_token_set: true,
        ..Env::default()
    };
    let c = Config::resolve(
        &Flags::default(),
        &env,
        dir(),
        &repo,
        &FileConfig::default(),
    )
    .expect("ok");
    let rows = c.rows();
    assert_eq!(rows.len(), KEYS.len() + 1, "{rows:?}");
    for key in KEYS {
        assert_eq!(
            rows.iter().filter(|r| r.key == key.name).count(),
            1,
            "{}",
            key.name
        );
    }
    let row = |name: &str| rows.iter().find(|r| r.key == name).cloned().expect(name);
    let value = |name: &str| row(name).value.unwrap_or_else(|| "null".into());
    assert_eq!(value("gitea.token"), "(set, not shown)");
    assert_eq!(row("gitea.token").source, "env GITEA_TOKEN");
    assert_eq!(value("gitea.token_command"), "(set, not shown)");
    assert!(!format!("{rows:?}").contains("pass show"));
    assert_eq!(value("lock_wait_secs"), "30");
    // An empty GITEA_TOKEN is unset, as everywhere.
    assert!(!from_repo_file(&repo).gitea_token_env);
}

#[test]
fn defaults_in_force_are_shown_and_only_what_is_unset_has_no_value() {
    let repo = FileConfig::parse("agent: claude\n").expect("valid");
    let c = from_repo_file(&repo);
    let row = |name: &str| {
        let r = c.rows().iter().find(|r| r.key == name).expect(name);
        (r.value.clone(), r.source.clone())
    };
    let default = |v: &str| (Some(v.to_string()), "default".to_string());
    assert_eq!(row("author.name"), default("claude"));
    assert_eq!(row("author.email"), default("claude@learnsync.invalid"));
    assert_eq!(row("wiki.branch"), default("(the wiki remote's HEAD)"));
    assert_eq!(
        row("remotes"),
        default("(every git remote, fetch and push)")
    );
    for unset in ["hub", "gitea.url", "gitea.token", "daemon.listen"] {
        assert_eq!(row(unset).0, None, "{unset}");
    }
    let identity = c.identity();
    assert_eq!(
        (identity.name.as_str(), identity.email.as_str()),
        ("claude", "claude@learnsync.invalid")
    );
    let user = FileConfig::parse("author: {name: CI Bot, email: ci@example.com}\n").expect("valid");
    let c = Config::resolve(&Flags::default(), &Env::default(), dir(), &repo, &user).expect("ok");
    assert_eq!(c.identity().email, "ci@example.com");
    assert_eq!(c.author_name.source, Source::UserFile);
}

#[test]
fn a_dir_that_is_a_file_or_lies_below_one_is_named_with_its_origin() {
    let tmp = tempfile::tempdir().expect("tmp");
    let file = tmp.path().join("notes.md");
    std::fs::write(&file, "x").expect("write");
    let at = |value: PathBuf, source: Source| dir_problem(&Sourced { value, source });
    assert_eq!(at(tmp.path().to_path_buf(), Source::Flag), None);
    assert_eq!(at(tmp.path().join("new/learnings"), Source::Flag), None);
    let problem = at(file.clone(), Source::Flag).expect("a file");
    assert!(
        problem.contains("--dir") && problem.contains("is a file"),
        "{problem}"
    );
    let problem = at(file.join("below"), Source::Env("LEARNSYNC_DIR")).expect("below");
    assert!(
        problem.contains("LEARNSYNC_DIR") && problem.contains(&file.display().to_string()),
        "{problem}"
    );
}
