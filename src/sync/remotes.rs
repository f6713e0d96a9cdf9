//! Steps 2, 3 and 5 of the cycle: fetch every remote, merge every fetched
//! head not yet in ours (sorted by remote and name), move the ref once, bring
//! the work tree along, and push `agents/<home>`, retrying a rejected push.

use super::derive::EventIndex;
use super::heads::{self, merge_head};
use super::owners::Owners;
use super::{MergedHead, RemoteReport, Settings, SyncError, SyncOptions, SyncReport, recover};
use crate::config::{Config, RemoteConfig};
use crate::repo::{PushOutcome, Repo};
use crate::store::LearningsDir;
use gix::ObjectId;
use std::collections::{BTreeSet, HashMap};

const PUSH_ATTEMPTS: u32 = 3;

/// The remotes this clone syncs with: the configured list, else every git remote.
pub fn configured(repo: &Repo, config: &Config) -> Vec<RemoteConfig> {
    match &config.remotes {
        Some(list) => list.value.clone(),
        None => repo
            .remote_names()
            .into_iter()
            .map(|name| RemoteConfig {
                name,
                fetch: true,
                push: true,
            })
            .collect(),
    }
}

/// Fetches, merges and pushes. `before_push` is called once, when the tree
/// to push is final and its first push has started (the caller brings its
/// indexes along while the git binary sends); not at all when nothing is
/// pushed.
pub fn exchange(
    repo: &Repo,
    dir: &LearningsDir,
    settings: &Settings,
    auths: &HashMap<String, crate::repo::HttpAuth>,
    options: &SyncOptions,
    report: &mut SyncReport,
    before_push: &mut dyn FnMut(),
) -> Result<(), SyncError> {
    let remotes = &settings.remotes;
    if remotes.is_empty() {
        return Ok(());
    }
    let x = Exchange {
        repo,
        dir,
        settings,
        auths,
        options,
        branch: crate::paths::agent_branch(&settings.home),
    };
    let mut reports = x.remote_reports();
    // The other agents this clone writes as: their branches get our commit
    // too (§1), before ours, so no push starts early then.
    let mut hosted = super::owners::hosted(&dir.state());
    hosted.remove(&settings.home);
    // The remote pushed to first, and its push when it started early.
    let first_push = if options.push && hosted.is_empty() {
        remotes
            .iter()
            .zip(&reports)
            .position(|(r, rep)| r.push && rep.errors.is_empty())
    } else {
        None
    };
    let mut early: Option<crate::repo::PendingPush> = None;
    if options.fetch {
        let heads = x.fetch_all(&mut reports, report)?;
        if options.stopping() {
            // What was fetched stays in the tracking refs for the next cycle.
            report.stopped = true;
            report.remotes = reports;
            return Ok(());
        }
        // The first push starts as soon as the merged head is in the ref:
        // git sends while the work tree and index are written.
        let first = first_push.map(|i| &remotes[i].name);
        options.step("merging");
        x.merge_all(&heads, report, &mut || {
            if let Some(name) = first {
                early = Some(repo.start_push(name, &x.branch, auths.get(name)));
            }
        })?;
    }
    if options.push {
        let mut before_push = Some(before_push);
        for (i, (r, rep)) in remotes.iter().zip(reports.iter_mut()).enumerate() {
            if !r.push || !rep.errors.is_empty() {
                continue;
            }
            if options.stopping() {
                report.stopped = true;
                break;
            }
            // A hosted agent's branch first: a branch carrying an agent's
            // writes must never be seen ahead of that agent's own, or the
            // others would refuse them (§6.1) and never look at them again.
            // One that failed holds the home branch back too, till the next cycle.
            for agent in &hosted {
                x.push_hosted(&r.name, agent, rep, report)?;
            }
            if !rep.errors.is_empty() {
                continue;
            }
            let started = early.take_if(|_| Some(i) == first_push);
            x.push_home(&r.name, rep, report, started, &mut before_push)?;
        }
    }
    // A push started early and not waited for (the cycle was asked to
    // stop): let it finish, so no git runs on after the cycle.
    if let Some(p) = early.take() {
        let _ = p.finish();
    }
    report.remotes = reports;
    Ok(())
}

/// One exchange with the remotes: what each of its steps reads.
struct Exchange<'a> {
    repo: &'a Repo,
    dir: &'a LearningsDir,
    settings: &'a Settings,
    /// The Gitea token, for the remotes on the Gitea host only.
    auths: &'a HashMap<String, crate::repo::HttpAuth>,
    options: &'a SyncOptions,
    /// Our branch, `agents/<home>`.
    branch: String,
}

impl Exchange<'_> {
    /// A report for each remote, with an error for a name git does not know.
    fn remote_reports(&self) -> Vec<RemoteReport> {
        let known = self.repo.remote_names();
        self.settings
            .remotes
            .iter()
            .map(|r| RemoteReport {
                name: r.name.clone(),
                errors: if known.contains(&r.name) {
                    Vec::new()
                } else {
                    vec![format!(
                        "no git remote named {:?} (see `git remote -v`)",
                        r.name
                    )]
                },
                ..RemoteReport::default()
            })
            .collect()
    }

    /// Fetches every remote that fetches and had no error, till the cycle
    /// is asked to stop: the heads they brought.
    fn fetch_all(
        &self,
        reports: &mut [RemoteReport],
        report: &mut SyncReport,
    ) -> Result<Vec<(String, ObjectId)>, SyncError> {
        let mut heads: Vec<(String, ObjectId)> = Vec::new();
        for (r, rep) in self.settings.remotes.iter().zip(reports.iter_mut()) {
            if !r.fetch || !rep.errors.is_empty() {
                continue;
            }
            if self.options.stopping() {
                report.stopped = true;
                break;
            }
            let mut lap = super::Lap::start();
            self.options.step(&format!("fetching from {}", r.name));
            let fetched = self.repo.fetch(&r.name, self.auths.get(&r.name));
            lap.done(&format!("fetch {}", r.name));
            match fetched {
                Ok(()) => {
                    rep.fetched = true;
                    heads.extend(self.repo.tracking_refs(&r.name)?);
                }
                Err(e) => rep
                    .errors
                    .push(crate::redact::redact(&e.to_string()).into_owned()),
            }
        }
        Ok(heads)
    }

    /// Pushes our branch to `remote` (finishing the push `started` early,
    /// if it did): a rejected push fetches, merges and tries again, up to
    /// [`PUSH_ATTEMPTS`] times. `before_push` runs during the first push.
    fn push_home(
        &self,
        remote: &str,
        rep: &mut RemoteReport,
        report: &mut SyncReport,
        mut started: Option<crate::repo::PendingPush>,
        before_push: &mut Option<&mut dyn FnMut()>,
    ) -> Result<(), SyncError> {
        let (repo, branch) = (self.repo, &self.branch);
        let auth = self.auths.get(remote);
        // Nothing to push when the fetch just saw the remote at our head.
        let ours = repo.head_commit()?;
        if started.is_none()
            && rep.fetched
            && ours.is_some()
            && repo.ref_commit(&format!("refs/remotes/{remote}/{branch}"))? == ours
        {
            rep.pushed = true;
            rep.up_to_date = true;
        }
        let attempts = if rep.up_to_date { 0 } else { PUSH_ATTEMPTS };
        for attempt in 1..=attempts {
            rep.push_attempts = attempt;
            let mut lap = super::Lap::start();
            let pending = match started.take() {
                Some(p) => p,
                None => repo.start_push(remote, branch, auth),
            };
            self.options.step(&format!("pushing {branch} to {remote}"));
            if let Some(f) = before_push.take() {
                f();
                lap.done("  while pushing");
            }
            let pushed = pending.finish();
            lap.done(&format!("push {remote}"));
            match pushed {
                PushOutcome::Pushed => {
                    rep.pushed = true;
                    break;
                }
                PushOutcome::UpToDate => {
                    rep.pushed = true;
                    rep.up_to_date = true;
                    break;
                }
                PushOutcome::Rejected(why) if attempt < PUSH_ATTEMPTS => {
                    tracing::info!("push to {remote} rejected, fetching and merging first: {why}");
                    if why.contains("lock") {
                        // Give the other push a moment to finish.
                        std::thread::sleep(std::time::Duration::from_millis(
                            200 * u64::from(attempt),
                        ));
                    }
                    match repo.fetch(remote, auth) {
                        Ok(()) => {
                            let heads = repo.tracking_refs(remote)?;
                            self.merge_all(&heads, report, &mut || {})?;
                        }
                        Err(e) => {
                            rep.errors.push(e.to_string());
                            break;
                        }
                    }
                }
                PushOutcome::Rejected(why) => {
                    rep.errors
                        .push(format!("push rejected {attempt} times: {why}"));
                }
                PushOutcome::Failed(why) => {
                    rep.errors.push(format!("push failed: {why}"));
                    break;
                }
            }
        }
        Ok(())
    }

    /// Pushes our head to `agents/<agent>` on `remote` for a hosted agent
    /// (§1), before the home branch. A rejected push (the agent's own machine
    /// pushed) fetches, merges that machine's work like another machine of the
    /// same agent, and retries.
    fn push_hosted(
        &self,
        remote: &str,
        agent: &str,
        rep: &mut RemoteReport,
        report: &mut SyncReport,
    ) -> Result<(), SyncError> {
        let (repo, branch) = (self.repo, &self.branch);
        let auth = self.auths.get(remote);
        let to = crate::paths::agent_branch(agent);
        let ours = repo.head_commit()?;
        if ours.is_some() && repo.ref_commit(&format!("refs/remotes/{remote}/{to}"))? == ours {
            return Ok(());
        }
        for attempt in 1..=PUSH_ATTEMPTS {
            match repo.start_push_as(remote, branch, &to, auth).finish() {
                PushOutcome::Pushed => {
                    rep.pushed_as.push(to);
                    return Ok(());
                }
                PushOutcome::UpToDate => return Ok(()),
                PushOutcome::Rejected(why) if attempt < PUSH_ATTEMPTS => {
                    tracing::info!(
                        "push of {to} to {remote} rejected, fetching and merging first: {why}"
                    );
                    if let Err(e) = repo.fetch(remote, auth) {
                        rep.errors.push(e.to_string());
                        return Ok(());
                    }
                    let heads = repo.tracking_refs(remote)?;
                    self.merge_all(&heads, report, &mut || {})?;
                }
                PushOutcome::Rejected(why) => {
                    rep.errors
                        .push(format!("push of {to} rejected {attempt} times: {why}"));
                }
                PushOutcome::Failed(why) => {
                    rep.errors.push(format!("push of {to} failed: {why}"));
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The Gitea token for each remote it may go to: only a remote on the
/// Gitea server itself (same scheme, host and port as `gitea.url`,
/// [`crate::gitea::token::scope_for_remote`]); every other remote is left to
/// git's credential helpers. The token is resolved once, and only when some
/// remote may have it.
pub fn http_auths(
    repo: &Repo,
    config: &Config,
    remote_names: &[&str],
) -> HashMap<String, crate::repo::HttpAuth> {
    use crate::gitea::TokenScope;
    let mut out = HashMap::new();
    let Some(source) = config.gitea_token() else {
        return out;
    };
    let gitea_url = config.gitea_url.as_ref().map(|s| s.value.as_str());
    let mut token: Option<Option<secrecy::SecretString>> = None;
    for name in remote_names {
        let Some(url) = repo.remote_url(name) else {
            continue;
        };
        match crate::gitea::token::scope_for_remote(gitea_url, &url) {
            TokenScope::Send { origin, plain_http } => {
                let resolved = token.get_or_insert_with(|| match source.resolve() {
                    Ok(t) => Some(t),
                    Err(e) => {
                        tracing::warn!("no Gitea token for git remotes: {e}");
                        None
                    }
                });
                let Some(secret) = resolved.clone() else {
                    continue;
                };
                if plain_http {
                    tracing::warn!(
                        "sending the Gitea token to remote {name} over plain http ({origin}), \
                         because gitea.url is http: anyone on the path can read it; use https"
                    );
                }
                out.insert(
                    name.to_string(),
                    crate::repo::HttpAuth {
                        origin,
                        token: secret,
                    },
                );
            }
            TokenScope::Withhold(why) if url.starts_with("http") => {
                tracing::debug!("remote {name}: the Gitea token is not sent ({why})");
            }
            TokenScope::Withhold(_) => {}
        }
    }
    out
}

/// Reads every blob the heads bring that our tree lacks, all heads at
/// once, in pack order: the fetch put them in one pack, where a blob is
/// mostly a delta on another head's version of the same file, so one pass
/// over all of them inflates each chain once (head by head, each pass
/// walked the chains again). Only a cache: the merges read what they need.
fn prefetch_heads<'a>(
    repo: &Repo,
    start: ObjectId,
    heads: impl IntoIterator<Item = &'a (String, ObjectId)>,
) -> Result<(), SyncError> {
    let ours = repo.commit_tree(start)?;
    let mut wanted = Vec::new();
    for (_, theirs) in heads {
        // A head already in ours is not merged (a no-op sync sees only those).
        if *theirs == start || repo.merge_base(start, *theirs)? == Some(*theirs) {
            continue;
        }
        let tree = repo.commit_tree(*theirs)?;
        wanted.extend(
            heads::diff_trees(repo, ours, tree)?
                .into_iter()
                .filter_map(|d| d.theirs),
        );
    }
    repo.prefetch_blobs(wanted);
    Ok(())
}

/// The owners' branches as fetched from every configured remote, the
/// hub's first (it speaks for an owner when several remotes have its
/// branch), then the others by name.
/// An owner the roster of `policy` gives a signing key is taken only from
/// commits signed with it (§5.2).
fn owners_now(
    repo: &Repo,
    settings: &Settings,
    policy: &crate::policy::Policy,
) -> Result<Owners, SyncError> {
    let hub = settings.hub.as_deref();
    let mut names: Vec<String> = settings.remotes.iter().map(|r| r.name.clone()).collect();
    names.sort_by_key(|n| (Some(n.as_str()) != hub, n.clone()));
    Ok(Owners::new(
        repo,
        &names,
        crate::signing::roster_keys(policy),
    )?)
}

/// Work-tree files written at once (their bytes in memory together).
const WORK_TREE_BATCH: usize = 512;

/// This cycle's own commit, when HEAD is still it: its one parent and its
/// message, for [`one_commit`] to fold in. Never pushed yet, so nothing
/// anywhere refers to it.
fn own_commit(
    repo: &Repo,
    report: &SyncReport,
    start: ObjectId,
) -> Result<Option<(ObjectId, String)>, SyncError> {
    let Some(own) = report
        .commit
        .as_deref()
        .and_then(|c| c.parse::<ObjectId>().ok())
    else {
        return Ok(None);
    };
    if own != start {
        return Ok(None);
    }
    let (parents, message) = repo.commit_parents(own)?;
    Ok(match parents.as_slice() {
        [parent] => Some((*parent, message)),
        _ => None,
    })
}

/// The cycle's merges (and recompute) as one commit: `head`'s tree, with
/// `first` and every head merged as parents (an octopus when more than
/// one), so a sync adds one commit to the history however many peers it
/// merged.
fn one_commit(
    repo: &Repo,
    head: ObjectId,
    first: ObjectId,
    merged: &[(String, ObjectId, usize)],
    recomputed: bool,
    own: Option<&str>,
    who: &crate::repo::Identity,
) -> Result<ObjectId, SyncError> {
    let tree = repo.commit_tree(head)?;
    let mut parents = vec![first];
    parents.extend(merged.iter().map(|(_, id, _)| *id));
    let mut msg = match own {
        Some(own) => {
            let (subject, body) = own.split_once('\n').unwrap_or((own, ""));
            let mut m = format!("{}, merge {} head(s)\n\n", subject.trim_end(), merged.len());
            let body = body.trim();
            if !body.is_empty() {
                m.push_str(body);
                m.push_str("\n\n");
            }
            m
        }
        None => format!("learnsync: merge {} head(s)\n\n", merged.len()),
    };
    for (label, _, paths) in merged {
        msg.push_str(&format!("{label}: {paths} path(s)\n"));
    }
    if recomputed {
        msg.push_str("Derived state recomputed after merging.\n");
    }
    Ok(repo.write_commit(tree, &parents, &msg, who)?)
}

/// Where the merges of one cycle stand: the head so far, and what the one
/// commit they end in will name as its parents.
struct Merging {
    head: ObjectId,
    /// Where we stood, or the head we fast-forwarded to.
    first_parent: ObjectId,
    /// The heads merged: label, commit, paths.
    merged_in: Vec<(String, ObjectId, usize)>,
    /// The head last fast-forwarded to, when it is another agent's (or
    /// `main`): not a commit to push as ours when we sign.
    ff_other: Option<(String, ObjectId, usize)>,
}

impl Exchange<'_> {
    /// Merges every head into ours, then moves the ref once and updates the
    /// work tree and index (crash-safe through the cycle marker). `moved` is
    /// called once the ref points at the merged head, before the work tree is
    /// written (the caller starts its push there).
    fn merge_all(
        &self,
        heads: &[(String, ObjectId)],
        report: &mut SyncReport,
        moved: &mut dyn FnMut(),
    ) -> Result<(), SyncError> {
        let repo = self.repo;
        let Some(start) = repo.head_commit()? else {
            return Ok(());
        };
        let hub = self.settings.hub.as_deref();
        let who = &self.settings.identity;
        // The commits written on the way, replaced before the ref moves, are
        // not signed: only the one the ref moves to is (§5.2).
        let passing = who.unsigned();
        let mut lap = super::Lap::start();
        let policy = super::derive::policy_in(repo, hub, repo.commit_tree(start)?)?;
        let mut owners = owners_now(repo, self.settings, &policy)?;
        let (main, mut affected) = self.decided_on_main(start)?;
        prefetch_heads(repo, start, heads)?;
        lap.done("policy, owners, prefetch the heads");
        // The blobs the merges read stay cached for the recompute and the
        // events index, which read most of them again (handing each out
        // once here cost the apply workload's recompute 120-200 ms at
        // 10,000 learnings for 1.5 MiB of the own workload's peak).
        let merging =
            self.merge_heads(start, heads, &passing, &mut owners, &mut affected, report)?;
        let mut lap = super::Lap::start();
        // What the signature checks (made as the merges needed them) found.
        report.problems.append(&mut owners.problems);
        let old_tree = repo.commit_tree(start)?;
        let mut index = EventIndex::kept(self.dir);
        let (recomputed, levels) = heads::recompute_after(
            repo,
            merging.head,
            old_tree,
            &affected,
            &mut index,
            crate::hub::HubAt {
                name: hub,
                main: &main,
            },
            &passing,
        )?;
        // Stored while the merge commit is made (the merged tree is already
        // written), and waited for before the cycle's objects are packed:
        // the events the catch-up read (2.7 MiB at 10,000 learnings) are
        // then freed before the pack is encoded. The store may so record a
        // tree whose objects a kill during the pack write loses; the next
        // cycle then finds it cannot catch up from it, and rebuilds it.
        let stored = index.persist_in_background();
        let head = self.fold(start, merging, recomputed, report)?;
        if head == start {
            crate::hub::record(&self.dir.state(), &main);
            return Ok(());
        }
        lap.done("recompute the affected learnings");
        drop(stored);
        lap.done("store the events index");
        // The merges' and the recompute's objects (at 100,000 learnings,
        // ~20 MB of folder trees and blobs held in memory) go to their pack
        // before the diff decodes both trees: the pack is written with no
        // decoded tree beside it, and the diff with no held object.
        repo.release_trees();
        repo.persist_objects()?;
        let new_tree = repo.commit_tree(head)?;
        let heads::Walk { diffs, partial, .. } = heads::walk_trees(repo, old_tree, new_tree)?;
        // The rest reads blobs only: the trees the diff decoded make room for
        // the work tree.
        repo.release_trees();
        lap.done("diff the merged tree");
        recover::begin(
            self.dir,
            &recover::Marker {
                tree: new_tree.to_string(),
                paths: diffs.iter().map(|d| d.path.clone()).collect(),
            },
        )?;
        crate::fault::point("merge:before-ref");
        repo.fast_forward(
            Some(start),
            head,
            "learnsync: sync merged fetched heads",
            who,
        )?;
        crate::fault::point("merge:after-ref");
        moved();
        lap.done("write the objects, move the ref");
        let fresh = self.write_work_tree(&diffs)?;
        lap.done("write the work tree");
        crate::fault::point("merge:after-worktree");
        if partial {
            repo.write_index(new_tree, &fresh)?;
        } else {
            let edits = diffs.iter().map(|d| (d.path.as_str(), d.theirs));
            repo.update_index(old_tree, new_tree, edits, &fresh)?;
        }
        recover::end(self.dir);
        crate::hub::record(&self.dir.state(), &main);
        lap.done("write the index");
        for change in levels {
            if change.to > change.from {
                report.promoted.push(change);
            } else {
                report.demoted.push(change);
            }
        }
        Ok(())
    }

    /// What the hub's main decides, and the learnings to recompute for it
    /// whatever the merges bring: one whose record there changed since the
    /// last completed cycle (it may have reached us from a peer first), and
    /// every one when the policy in force changed on `main` (§5.2).
    fn decided_on_main(
        &self,
        start: ObjectId,
    ) -> Result<(crate::hub::MainState, BTreeSet<String>), SyncError> {
        let hub = self.settings.hub.as_deref();
        let recorded = crate::hub::recorded(&self.dir.state());
        let main = crate::hub::main_state(self.repo, hub, &recorded)?;
        let mut affected = main.changed_since(&recorded);
        if hub.is_some() && main.policy != recorded.policy {
            affected.extend(super::derive::all_ids(
                self.repo,
                self.repo.commit_tree(start)?,
            )?);
        }
        Ok((main, affected))
    }

    /// Merges each head in turn (each through a commit of its own, unsigned:
    /// the next head's merge base needs one), saying each in the report and
    /// adding what it changed to `affected`.
    fn merge_heads(
        &self,
        start: ObjectId,
        heads: &[(String, ObjectId)],
        passing: &crate::repo::Identity,
        owners: &mut Owners,
        affected: &mut BTreeSet<String>,
        report: &mut SyncReport,
    ) -> Result<Merging, SyncError> {
        let home = self.settings.home.as_str();
        let mut m = Merging {
            head: start,
            first_parent: start,
            merged_in: Vec::new(),
            ff_other: None,
        };
        let mut lap = super::Lap::start();
        for (label, theirs) in heads {
            let merged = merge_head(self.repo, m.head, *theirs, label, passing, owners)?;
            report.refused.extend(merged.refused);
            if let Some(new) = merged.head {
                if merged.fast_forward {
                    m.first_parent = new;
                    m.ff_other = (super::owners::head_agent(label) != Some(home))
                        .then(|| (label.clone(), new, merged.paths.len()));
                } else {
                    m.merged_in
                        .push((label.clone(), *theirs, merged.paths.len()));
                }
                report.merged.push(MergedHead {
                    head: label.clone(),
                    commit: new.to_string(),
                    fast_forward: merged.fast_forward,
                    paths: merged.paths.len(),
                    conflicts_kept: merged.conflicts_kept,
                });
                affected.extend(merged.affected);
                m.head = new;
            }
            lap.done(&format!("merge {label}"));
        }
        Ok(m)
    }

    /// The cycle makes one commit however many heads it merges: its first
    /// parent is where we stood (or the head we fast-forwarded to), the
    /// others the heads merged; this cycle's own commit, not pushed yet, is
    /// folded in too, so it carries the agent's writes, the merges and the
    /// recompute at once (the commits replaced stay on disk, unreachable).
    /// The head the ref moves to; `start` when nothing changed.
    fn fold(
        &self,
        start: ObjectId,
        m: Merging,
        recomputed: Option<ObjectId>,
        report: &SyncReport,
    ) -> Result<ObjectId, SyncError> {
        let (repo, who) = (self.repo, &self.settings.identity);
        let recomputed_too = recomputed.is_some();
        let mut head = recomputed.unwrap_or(m.head);
        let own = own_commit(repo, report, start)?;
        let wrote = m.merged_in.len() + usize::from(recomputed_too);
        let fold = match own.filter(|_| wrote > 0) {
            Some((parent, message)) => Some((parent, Some(message))),
            None => (wrote > 1 && !m.merged_in.is_empty()).then_some((m.first_parent, None)),
        };
        if let Some((first, own_message)) = fold {
            head = one_commit(
                repo,
                head,
                first,
                &m.merged_in,
                recomputed_too,
                own_message.as_deref(),
                who,
            )?;
        } else if who.signing_key.is_some() && head != m.first_parent {
            // One merge, or a recompute alone: written on the way, unsigned.
            head = repo.rewrite_commit(head, who)?;
        } else if let Some(ff) = m
            .ff_other
            .filter(|_| who.signing_key.is_some() && head != start)
        {
            // Another agent's commit is not ours to push as our tip unsigned
            // (§5.2): a merge commit, as `git merge --no-ff` makes, is signed.
            head = one_commit(repo, head, start, &[ff], false, None, who)?;
        }
        Ok(head)
    }

    /// Brings the work tree along the diffs, never over an edit made while
    /// we merged: the stats of the files written, for the index (a file
    /// left as the person edited it gets an empty stat). The blob cache is
    /// empty after it: the index takes the blobs' place.
    fn write_work_tree(
        &self,
        diffs: &[heads::Diff],
    ) -> Result<HashMap<String, gix::index::entry::Stat>, SyncError> {
        let repo = self.repo;
        let mut fresh = HashMap::new();
        // A file whose stat is the one the index recorded is as the last cycle
        // left it, and is not read; only the others are compared by content.
        let indexed = repo.indexed(diffs.iter().map(|d| d.path.as_str()))?;
        // The whole index (15 MiB at 100,000 learnings) is read again once the
        // files are written, not kept beside their bytes.
        repo.release_index();
        let untouched: Vec<bool> = diffs
            .iter()
            .map(|d| {
                d.ours
                    .is_some_and(|id| indexed.holds(repo.root(), &d.path, id))
            })
            .collect();
        // A batch at a time, its blobs read ahead in pack order and each
        // handed out once: a sync can write most of a large dir, and all its
        // blobs read ahead at once (the merged events files among them) were
        // the work-tree step's peak of memory.
        repo.reading_blobs_once(|| self.write_batches(diffs, &untouched, &mut fresh))?;
        Ok(fresh)
    }

    /// [`Self::write_work_tree`]'s writes, a batch at a time.
    fn write_batches(
        &self,
        diffs: &[heads::Diff],
        untouched: &[bool],
        fresh: &mut HashMap<String, gix::index::entry::Stat>,
    ) -> Result<(), SyncError> {
        let repo = self.repo;
        for (batch, same) in diffs
            .chunks(WORK_TREE_BATCH)
            .zip(untouched.chunks(WORK_TREE_BATCH))
        {
            repo.prefetch_blobs(
                batch
                    .iter()
                    .zip(same)
                    .flat_map(|(d, same)| [d.ours.filter(|_| !same), d.theirs])
                    .flatten(),
            );
            let mut writes = Vec::with_capacity(batch.len());
            for (d, same) in batch.iter().zip(same) {
                let edited = !same && {
                    let on_disk = std::fs::read(repo.root().join(&d.path)).ok();
                    on_disk != d.ours.map(|id| repo.read_blob(id)).transpose()?
                };
                if edited {
                    tracing::warn!(
                        "{} changed while syncing; left as it is for the next sync",
                        d.path
                    );
                    fresh.insert(d.path.clone(), gix::index::entry::Stat::default());
                    continue;
                }
                match d.theirs {
                    Some(id) => writes.push((d.path.clone(), repo.read_blob(id)?)),
                    None => repo.remove_file(&d.path)?,
                }
            }
            for (path, stat) in repo.write_files(&writes)? {
                if let Some(stat) = stat {
                    fresh.insert(path, stat);
                }
            }
        }
        Ok(())
    }
}
