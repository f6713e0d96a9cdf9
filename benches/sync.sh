#!/usr/bin/env bash
# The sync benchmark (issue 4, "Speed"; issue 13, the apply-heavy workload):
# see benches/README.md.
#
#   benches/sync.sh                  # issue 4's workload: 1k, 10k, 100k existing learnings
#   WORKLOAD=apply benches/sync.sh   # issue 13's: agents mostly apply what exists
#   WORKLOAD=own benches/sync.sh     # issue 32's: as apply, branches carry only their own writes
#   QUICK=1 benches/sync.sh          # 1k and 10k only, 3 runs (a few minutes)
#
# Environment (defaults in brackets; [add | apply] where the workloads differ):
#   WORKLOAD         add (issue 4), apply (issue 13) or own (32)   [add]
#   SIZES            existing learnings per fixture, for (c)       [1000 10000 100000]
#   MAIN_N           the fixture of (a)                            [10000]
#   NOOP_N           the fixture of (b)                            [largest of SIZES]
#   EVENTS           base events (fixed)                           [10 x N | 100000]
#   SOURCE_AGENTS    folders a0..a<K-1> holding the base           [10 | 20]
#   BRANCHES         agent branches a0..a<B-1> on the hub          [10]
#   COMMITS          commits per branch                            [1 | 5]
#   ADD_LEARNINGS    new learnings per branch                      [100]
#   ADD_EVENTS       new events per branch                         [1000]
#   EXISTING_SHARE   percent of branch events on base learnings    [- | 70]
#   FIRST_SYNC=1     also time the first sync after `init` on a clone  [0 | 1]
#   MERGE_OPTS       options of the git side's merges              [none | -X theirs]
#   RUNS             timed runs per command (interleaved)          [10]
#   RUNS_LARGE       runs per command when N >= 100000             [5]
#   LEARNSYNC_BIN    time this learnsync binary instead of building one
#   COMPARE_BIN      also time this other build in the same rounds (before/after)
#   BENCH_DIR        where fixtures live (reused when unchanged)   [$CARGO_TARGET_DIR/sync-bench[-apply]]
#   REGEN=1          regenerate fixtures even when cached
#   PROFILE=1        also `perf record` one learnsync sync at MAIN_N (needs perf)
#   SIGNED=1         a roster with an ssh-ed25519 key per agent (in the base's
#                    policy, in force as the clone's local one: no hub), every
#                    branch tip signed, the clone signing its own commits:
#                    the cost of verification and signing (issue 34)
set -euo pipefail

die() { echo "sync.sh: $*" >&2; exit 1; }
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

command -v hyperfine >/dev/null ||
    die "hyperfine is not installed (apt-get install hyperfine, or cargo install hyperfine)"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time); it measures peak memory"
command -v git >/dev/null || die "git is not on PATH"
command -v python3 >/dev/null || die "python3 is needed to read hyperfine's JSON"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "${QUICK:-0}" = 1 ]; then
    SIZES=${SIZES:-"1000 10000"}
    RUNS=${RUNS:-3}
fi
WORKLOAD=${WORKLOAD:-add}
case "$WORKLOAD" in
add)
    SOURCE_AGENTS=${SOURCE_AGENTS:-10} COMMITS=${COMMITS:-1} FIRST_SYNC=${FIRST_SYNC:-0}
    MERGE_OPTS=${MERGE_OPTS:-} WORK=${BENCH_DIR:-$TARGET/sync-bench}
    ;;
apply)
    SOURCE_AGENTS=${SOURCE_AGENTS:-20} COMMITS=${COMMITS:-5} FIRST_SYNC=${FIRST_SYNC:-1}
    EXISTING_SHARE=${EXISTING_SHARE:-70} EVENTS=${EVENTS:-100000}
    # Two branches' recomputed derived fields of one learning are a textual
    # conflict for git (the reason learnsync exists): git keeps theirs.
    MERGE_OPTS=${MERGE_OPTS:--X theirs} WORK=${BENCH_DIR:-$TARGET/sync-bench-apply}
    ;;
own)
    # As apply, but each branch holds only what its agent wrote (its new
    # learnings, its events): git merges them without a conflict.
    SOURCE_AGENTS=${SOURCE_AGENTS:-20} COMMITS=${COMMITS:-5} FIRST_SYNC=${FIRST_SYNC:-1}
    EXISTING_SHARE=${EXISTING_SHARE:-70} EVENTS=${EVENTS:-100000}
    MERGE_OPTS=${MERGE_OPTS:-} WORK=${BENCH_DIR:-$TARGET/sync-bench-own}
    ;;
*) die "WORKLOAD is add, apply or own, not $WORKLOAD" ;;
esac
EXISTING_SHARE=${EXISTING_SHARE:-70}
SIGNED=${SIGNED:-0}
[ "$SIGNED" = 1 ] && WORK="$WORK-signed"
SIZES=${SIZES:-"1000 10000 100000"}
MAIN_N=${MAIN_N:-10000}
NOOP_N=${NOOP_N:-$(printf '%s\n' $SIZES | sort -n | tail -1)}
EVENTS_PER_LEARNING=${EVENTS_PER_LEARNING:-10}
BRANCHES=${BRANCHES:-10}
ADD_LEARNINGS=${ADD_LEARNINGS:-100}
ADD_EVENTS=${ADD_EVENTS:-1000}
RUNS=${RUNS:-10}
RUNS_LARGE=${RUNS_LARGE:-5}
# The fixture's own clone is synced to set it up and checked; a watcher that
# sync starts (watch: auto at 10,000 files) is stopped, and waited for until
# it has removed its socket, so no copy of the clone races its cleanup.
stop_clone_watcher() {
    "$BIN" --dir "$1" -q watch --stop || true
    local i=0
    while [ -e "$1/.git/learnsync/watch.sock" ] && [ "$i" -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
events_for() { echo "${EVENTS:-$(($1 * EVENTS_PER_LEARNING))}"; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# 1. Hermetic environment and build ($BIN, $GEN).
# shellcheck source=benches/sync_common.sh
. "$ROOT/benches/sync_common.sh"
# What the fixture's bytes depend on: the generator and the library's
# writers it calls (not every library change, so a fixture survives work on
# the cycle itself).
GEN_KEY=$(cd "$ROOT" && cat benches/sync_fixture.rs src/learning.rs src/event.rs src/trust.rs src/policy.rs src/timestamp.rs | sha1sum | cut -c1-12)

# The policy file exactly as `learnsync init` writes it.
rm -rf "$WORK/init"
"$BIN" --dir "$WORK/init" --agent bench -q init >/dev/null
POLICY="$WORK/policy.yaml"
cp "$WORK/init/.learnsync/policy.yaml" "$POLICY"
# The clone's config: with SIGNED=1 no hub (the base's policy, and its
# roster of keys, is in force locally) and the home agent's key.
CLONE_CONFIG='agent: me\nhub: hub\n'
INIT_FLAGS=(--hub hub)
if [ "$SIGNED" = 1 ]; then
    command -v ssh-keygen >/dev/null || die "SIGNED=1 needs ssh-keygen"
    KEYS="$WORK/keys"
    mkdir -p "$KEYS"
    roster="agents:"
    n_agents=$((SOURCE_AGENTS > BRANCHES ? SOURCE_AGENTS : BRANCHES))
    for a in me $(seq -f 'a%g' 0 $((n_agents - 1))); do
        [ -f "$KEYS/$a" ] || ssh-keygen -q -t ed25519 -N '' -C "$a" -f "$KEYS/$a"
        roster="$roster
  - {name: $a, signing_key: \"$(cut -d' ' -f1,2 "$KEYS/$a.pub")\"}"
    done
    grep -v '^agents: \[\]$' "$WORK/init/.learnsync/policy.yaml" >"$POLICY"
    echo "$roster" >>"$POLICY"
    CLONE_CONFIG="agent: me\nsigning:\n  key: $KEYS/me\n"
    INIT_FLAGS=(--signing-key "$KEYS/me")
fi

# A new team member: a clone of the hub's agents/me (the base, whatever
# branches the hub holds besides), `learnsync init`, no sync yet.
adopt_fresh() {
    local n=$1 d="$WORK/n$1"
    say "n=$n: a second clone, adopted by learnsync init"
    rm -rf "$d/fresh"
    # agents/me as generated (a timed push, or a run killed, may have moved it).
    if [ -f "$d/hub-refs.txt" ]; then
        while read -r id r; do git -C "$d/hub.git" update-ref "$r" "$id"; done <"$d/hub-refs.txt"
    fi
    git clone -q --no-local --single-branch -b agents/me -o hub "$d/hub.git" "$d/fresh"
    "$BIN" --dir "$d/fresh" -q init --agent me "${INIT_FLAGS[@]}" >"$d/fresh-init.log" 2>&1 ||
        die "n=$n: learnsync init failed on fresh/ (log in $d/fresh-init.log)"
    if [ -f "$d/base" ] && [ "$(git -C "$d/fresh" rev-parse HEAD)" != "$(cat "$d/base")" ]; then
        die "n=$n: the new member's clone is not at the base"
    fi
}

# 2-3. Fixtures: hub.git (agents/hub = agents/me = base, agents/a*) and clone/
# (agents/me at base, checked out, configured as `learnsync init` would).
fixture() {
    local n=$1 d="$WORK/n$1" e
    e=$(events_for "$n")
    local key="v3 $WORKLOAD n=$n e=$e k=$SOURCE_AGENTS b=$BRANCHES c=$COMMITS al=$ADD_LEARNINGS ae=$ADD_EVENTS x=$EXISTING_SHARE f=$FIRST_SYNC $GEN_KEY $(sha1sum <"$POLICY" | cut -c1-12)"
    # A cached hub whose refs lost their objects (an older script let git's
    # auto-gc repack it under a timed run) is generated again.
    if [ "${REGEN:-0}" != 1 ] && [ "$(cat "$d/.key" 2>/dev/null)" = "$key" ] &&
        git -C "$d/hub.git" for-each-ref >/dev/null 2>&1; then
        say "n=$n: fixture cached in $d"
        return
    fi
    say "n=$n: generating hub ($n learnings, $e events)"
    rm -rf "$d"
    mkdir -p "$d"
    git init -q --bare "$d/hub.git"
    # Timed pushes must not start a repack of the fixture behind our back.
    git -C "$d/hub.git" config gc.auto 0
    git -C "$d/hub.git" config receive.autogc false
    local args=(--hub "$d/hub.git" --policy "$POLICY" --learnings "$n" --events "$e"
        --branches "$BRANCHES" --add-learnings "$ADD_LEARNINGS" --add-events "$ADD_EVENTS"
        --source-agents "$SOURCE_AGENTS" --workload "$WORKLOAD" --commits "$COMMITS"
        --existing-share "$EXISTING_SHARE")
    "$GEN" "${args[@]}" base
    say "n=$n: cloning agents/me (checkout of $n files)"
    # --no-local: the clone holds only what agents/me reaches, like a real machine.
    git clone -q --no-local --single-branch -b agents/me -o hub "$d/hub.git" "$d/clone"
    git -C "$d/clone" config remote.hub.fetch '+refs/heads/*:refs/remotes/hub/*'
    mkdir -p "$d/clone/.git/learnsync/inbox"
    printf "$CLONE_CONFIG" >"$d/clone/.git/learnsync/config.yaml"
    # A machine that has synced before: its capture index snapshot exists
    # (nothing to commit, so HEAD stays at the base).
    "$BIN" --dir "$d/clone" -q sync --no-fetch --no-push
    # That sync may have started a watcher (watch: auto, >= 10,000 files):
    # stop it, so the pristine clone carries no socket into its copies.
    stop_clone_watcher "$d/clone"
    # (The new member's clone, fresh/, is made by verify(), with the build timed.)
    say "n=$n: adding $BRANCHES agent branches ($COMMITS commit(s), +$ADD_LEARNINGS learnings, +$ADD_EVENTS events each)"
    "$GEN" "${args[@]}" branches
    if [ "$SIGNED" = 1 ]; then
        say "n=$n: signing each agent branch's tip with its agent's key"
        for ((i = 0; i < BRANCHES; i++)); do
            local tip signed
            tip=$(git -C "$d/hub.git" rev-parse "refs/heads/agents/a$i")
            signed=$(git -C "$d/hub.git" -c gpg.format=ssh -c "user.signingkey=$KEYS/a$i" \
                -c user.name="a$i" -c user.email="a$i@learnsync.invalid" \
                commit-tree -S -p "$tip" -m "a$i: signed" "$tip^{tree}")
            git -C "$d/hub.git" update-ref "refs/heads/agents/a$i" "$signed"
        done
    fi
    git -C "$d/hub.git" rev-parse refs/heads/agents/me >"$d/base"
    git -C "$d/hub.git" for-each-ref --format='%(objectname) %(refname)' >"$d/hub-refs.txt"
    (cd "$d/hub.git/objects/pack" && ls pack-*.pack) >"$d/hub-packs.txt"
    echo "$key" >"$d/.key"
    say "n=$n: fixture ready ($(du -sh "$d" | cut -f1))"
}

# The scripts each timed run uses, written afresh every run (cheap) so a
# cached fixture gets the current ones.
scripts() {
    local n=$1 d="$WORK/n$1"
    # The hub's packs as generated (a fixture cached before this list
    # existed gets today's packs: none is ever dropped wrongly).
    [ -f "$d/hub-packs.txt" ] || (cd "$d/hub.git/objects/pack" && ls pack-*.pack) >"$d/hub-packs.txt"
    [ -f "$d/hub-refs.txt" ] || git -C "$d/hub.git" for-each-ref --format='%(objectname) %(refname)' >"$d/hub-refs.txt"
    # Pristine copies for each timed run: cp -a, then refresh the index's stat
    # data (cp changes inodes and ctimes; without this git and learnsync
    # would both re-hash every file).
    cat >"$d/prepare.sh" <<EOF
#!/bin/sh
# prepare.sh COPY [SOURCE]: a pristine copy of clone/ (or SOURCE, e.g. fresh/).
set -e
# A first sync leaves the indexes' first build of a large dir to a detached
# \`learnsync index\` (docs/sync.md): wait for any still running in this
# fixture's copies, so no timed run shares the machine with one and no copy
# is removed under it. (Its cost is timed on its own: \`learnsync index\`.)
for m in "$d"/run-*/.git/learnsync/index-build-pending; do
    while [ -f "\$m" ] && kill -0 "\$(cat "\$m" 2>/dev/null)" 2>/dev/null; do sleep 0.05; done
done
rm -rf "\$1"
cp -a "\${2:-$d/clone}" "\$1"
git -C "\$1" update-index -q --refresh >/dev/null 2>&1 || true
# The hub's refs exactly as generated: a timed sync may have created one
# (a hosted agent's branch) that points into a pack dropped below, which
# git's upload-pack then refuses ("not our ref").
git -C "$d/hub.git" for-each-ref --format='%(refname)' | while read -r r; do
    grep -q " \$r\$" "$d/hub-refs.txt" || git -C "$d/hub.git" update-ref -d "\$r"
done
while read -r id r; do git -C "$d/hub.git" update-ref "\$r" "\$id"; done <"$d/hub-refs.txt"
# Each timed push leaves a pack on the hub that nothing reaches once the ref
# is reset: drop those not in the fixture's list (by name: git refreshes the
# mtime of packs it reuses), so the hub stays the fixture and git's auto-gc
# never starts repacking it in the background of a later timed run.
for p in "$d/hub.git/objects/pack/"pack-*.pack; do
    grep -qxF "\${p##*/}" "$d/hub-packs.txt" || rm -f "\${p%.pack}".*
done
EOF
    local merges=""
    for ((i = 0; i < BRANCHES; i++)); do merges="$merges hub/agents/a$i"; done
    cat >"$d/git-merge.sh" <<EOF
#!/bin/sh
# The git CLI doing what sync does: fetch, then successive merges of each branch.
set -e
cd "\$1"
git fetch -q hub
for b in $merges; do git merge -q --no-edit $MERGE_OPTS "\$b"; done
if [ "\${2:-}" = push ]; then git push -q hub agents/me; fi
EOF
    chmod +x "$d/prepare.sh" "$d/git-merge.sh"
}

runs_for() { if [ "$1" -ge 100000 ]; then echo "$RUNS_LARGE"; else echo "$RUNS"; fi; }

maxrss_kb() { # command... ; prints the peak RSS in KiB of the command
    /usr/bin/time -v "$@" 2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt" >&2; die "failed: $*"; }
    awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt"
}

# The interleaved runner: round after round, each command once (in an order
# that rotates), each after its own untimed prepare; wall time and the peak
# RSS of the command's process tree (wait4) of every run, as JSON.
#   rounds.py OUT RUNS  NAME PREPARE RUN STDERR-PATTERN  [NAME PREPARE RUN STDERR]...
# PREPARE and RUN are shell commands; STDERR-PATTERN ("-": discard) gets the
# run number for {k}, so the step timings of every timed run are kept.
cat >"$WORK/rounds.py" <<'EOF'
import json, os, subprocess, sys, time
out, runs, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cmds = [rest[i:i + 4] for i in range(0, len(rest), 4)]
samples = {c[0]: {"times": [], "rss_kb": []} for c in cmds}
for r in range(runs):
    for i in range(len(cmds)):
        name, prepare, run, err = cmds[(i + r) % len(cmds)]
        subprocess.run(["sh", "-c", prepare], check=True, stdout=subprocess.DEVNULL)
        stderr = subprocess.DEVNULL if err == "-" else open(err.replace("{k}", str(r + 1)), "w")
        t0 = time.perf_counter()
        p = subprocess.Popen(["sh", "-c", run], stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        if status != 0:
            sys.exit(f"{name}: exit status {status} (run {r + 1})")
        samples[name]["times"].append(t)
        samples[name]["rss_kb"].append(usage.ru_maxrss)
        print(f"  [{r + 1}/{runs}] {name}: {t * 1000:.0f} ms, {usage.ru_maxrss // 1024} MiB", file=sys.stderr)
json.dump({"results": [dict(name=c[0], **samples[c[0]]) for c in cmds]}, open(out, "w"), indent=1)
EOF

# Counts the report needs, from the fixture and from one cycle's result:
# learnings the branches touched (their file or a new event line), learning
# files the cycle's recompute commit rewrote, and the objects a push of the
# result must send (reachable from it, not from any ref the hub had).
counts() {
    local n=$1 d="$WORK/n$1" dir=$2 base
    base=$(cat "$d/base")
    local affected rewritten sends
    affected=$(for ((i = 0; i < BRANCHES; i++)); do
        git -C "$d/hub.git" diff --no-renames --name-only "$base" "agents/a$i" -- ':!events' ':!.learnsync'
        git -C "$d/hub.git" diff --no-renames -U0 "$base" "agents/a$i" -- events | grep '^+{' || true
    done | python3 -c 'import re, sys
ids = set()
for l in sys.stdin:
    m = re.search(r"\"learning\":\"([^\"]+)\"", l) if l.startswith("+{") else re.search(r"([^/]+)\.md$", l.strip())
    if m: ids.add(m.group(1))
print(len(ids))')
    # Files the cycle's commit holds in a version no parent has: the
    # recompute's rewrites (a separate recompute commit before issue 32).
    if git -C "$dir" log -1 --format=%s HEAD | grep -q 'recompute derived state'; then
        rewritten=$(git -C "$dir" diff --name-only HEAD~1 HEAD | wc -l)
    else
        rewritten=$(git -C "$dir" diff-tree -r -c --name-only HEAD | tail -n +2 | wc -l)
    fi
    sends=$(pushed_objects "$n" "$dir")
    echo "$affected $rewritten $sends"
}

# Objects reachable from a clone's HEAD that the hub (as generated) lacks:
# what a push of it sends.
pushed_objects() {
    local d="$WORK/n$1" dir=$2
    # shellcheck disable=SC2046
    git -C "$dir" rev-list --objects HEAD --not $(git -C "$d/hub.git" for-each-ref --format='%(objectname)' 'refs/heads/agents/a*') "$(cat "$d/base")" | wc -l
}

# 4. Correctness of what is timed.
verify() {
    local n=$1 d="$WORK/n$1" ls="$WORK/n$1/run-ls" gt="$WORK/n$1/run-git" fs="$WORK/n$1/run-first"
    say "n=$n: verifying one learnsync sync and the git merges"
    # The machine that has synced before keeps a search index and an
    # events index of the build timed (a cached fixture may hold ones an
    # older build wrote, in a layout it would rebuild in the timed sync).
    rm -rf "$d/clone/.git/learnsync/search" "$d/clone/.git/learnsync/events.redb"
    "$BIN" --dir "$d/clone" -q query --limit 1 "warm the index" >/dev/null
    "$BIN" --dir "$d/clone" -q sync --no-fetch --no-push
    stop_clone_watcher "$d/clone"
    [ -f "$d/clone/.git/learnsync/events.redb" ] || die "n=$n: no events index after a local sync"
    # And the new member is adopted by the build timed (`init` builds its
    # events index, which a cached fixture holds in an older build's layout).
    # COMPARE_BIN's runs copy the same clones: a build of another events
    # index layout rebuilds it inside its timed runs.
    if [ "$FIRST_SYNC" = 1 ]; then
        adopt_fresh "$n"
        [ -f "$d/fresh/.git/learnsync/events.redb" ] || die "n=$n: no events index after init"
    fi
    "$d/prepare.sh" "$ls"
    local rc=0
    "$BIN" --dir "$ls" --json sync >"$d/sync-report.json" || rc=$?
    [ "$rc" = 0 ] || die "n=$n: learnsync sync exited $rc (report in $d/sync-report.json)"
    [ -z "$(git -C "$ls" status --porcelain)" ] || die "n=$n: git status is not clean after sync"
    local base missing=0 added=0
    base=$(cat "$d/base")
    git -C "$ls" ls-tree -r --name-only HEAD | sort >"$d/ls-files.txt"
    rm -f "$d/added.txt.tmp"
    for ((i = 0; i < BRANCHES; i++)); do
        git -C "$d/hub.git" diff --name-only --diff-filter=A "$base" "agents/a$i" -- "a$i/" >>"$d/added.txt.tmp"
    done
    sort -u "$d/added.txt.tmp" >"$d/added.txt" && rm -f "$d/added.txt.tmp"
    added=$(wc -l <"$d/added.txt")
    missing=$(comm -23 "$d/added.txt" "$d/ls-files.txt" | wc -l)
    [ "$added" = $((BRANCHES * ADD_LEARNINGS)) ] || die "n=$n: the branches add $added learnings, expected $((BRANCHES * ADD_LEARNINGS))"
    [ "$missing" = 0 ] || die "n=$n: $missing new learnings missing after sync"
    while read -r f; do [ -f "$ls/$f" ] || die "n=$n: $f not in the work tree"; done <"$d/added.txt"
    local events want affected rewritten sends
    events=$(git -C "$ls" ls-files -z events | (cd "$ls" && xargs -0 cat) | wc -l)
    want=$(($(events_for "$n") + BRANCHES * ADD_EVENTS))
    [ "$events" = "$want" ] || die "n=$n: $events event lines after sync, expected $want"
    [ "$(git -C "$ls" rev-parse HEAD)" = "$(git -C "$d/hub.git" rev-parse agents/me)" ] ||
        die "n=$n: the hub's agents/me is not the clone's HEAD (push did not happen)"
    read -r affected rewritten sends <<<"$(counts "$n" "$ls")"
    if [ "$FIRST_SYNC" = 1 ]; then
        "$d/prepare.sh" "$fs" "$d/fresh"
        rc=0
        "$BIN" --dir "$fs" -q sync || rc=$?
        [ "$rc" = 0 ] || die "n=$n: the first sync after init exited $rc"
        [ -z "$(git -C "$fs" status --porcelain)" ] || die "n=$n: git status is not clean after the first sync"
        # Both machines saw the same commits: the same files, byte for byte (§6).
        [ "$(git -C "$fs" rev-parse 'HEAD^{tree}')" = "$(git -C "$ls" rev-parse 'HEAD^{tree}')" ] ||
            die "n=$n: the first sync after init and a synced machine's sync end with different trees"
    fi

    "$d/prepare.sh" "$gt"
    "$d/git-merge.sh" "$gt" >"$d/git-merge.log" 2>&1 || die "n=$n: git merge did not complete (conflicts?); see $gt and $d/git-merge.log"
    [ -z "$(git -C "$gt" diff --name-only --diff-filter=U)" ] || die "n=$n: git merge left conflicts"
    [ -z "$(git -C "$gt" status --porcelain)" ] || die "n=$n: git status is not clean after the git merges"
    local differ gsends
    differ=$(diff <(git -C "$ls" ls-tree -r HEAD) <(git -C "$gt" ls-tree -r HEAD) | grep -c '^<' || true)
    gsends=$(pushed_objects "$n" "$gt")
    echo "  n=$n ok: exit 0, status clean, $added/$added new learnings, $events event lines, pushed;" \
        "$affected learnings touched by the branches, $rewritten rewritten by the recompute, $sends objects to push" \
        "(git: $gsends); git fetch + $BRANCHES successive merges${MERGE_OPTS:+ ($MERGE_OPTS)}: no conflicts left;" \
        "trees differ in $differ path(s)" >&2
    echo "$differ" >"$d/tree-differ"
    echo "$affected $rewritten $sends $gsends" >"$d/counts"
}

# (a) and (c): learnsync sync vs git fetch + merges, each from a pristine
# copy, interleaved round by round; every learnsync run logs its steps.
bench_merge() {
    local n=$1 d="$WORK/n$1" runs
    runs=$(runs_for "$n")
    say "n=$n: timing sync of $BRANCHES branches ($runs interleaved rounds)"
    rm -f "$d"/steps-*.txt
    local timing="LEARNSYNC_LOG=learnsync::timing=debug"
    local cmds=(
        "learnsync sync, synced before" "$d/prepare.sh $d/run-ls" "$timing $BIN --dir $d/run-ls -q sync" "$d/steps-before-{k}.txt"
        "git fetch + merges" "$d/prepare.sh $d/run-git" "$d/git-merge.sh $d/run-git" "-"
        "git fetch + merges + push" "$d/prepare.sh $d/run-git" "$d/git-merge.sh $d/run-git push" "-"
    )
    if [ "$FIRST_SYNC" = 1 ]; then
        cmds+=("learnsync first sync after init" "$d/prepare.sh $d/run-first $d/fresh"
            "$timing $BIN --dir $d/run-first -q sync" "$d/steps-first-{k}.txt")
    fi
    if [ -n "${COMPARE_BIN:-}" ]; then
        # Another build (e.g. the previous commit's), timed in the same rounds.
        cmds+=("compare: synced before" "$d/prepare.sh $d/run-cmp" "$timing $COMPARE_BIN --dir $d/run-cmp -q sync" "$d/steps-cmpbefore-{k}.txt")
        if [ "$FIRST_SYNC" = 1 ]; then
            cmds+=("compare: first sync after init" "$d/prepare.sh $d/run-cmpfirst $d/fresh"
                "$timing $COMPARE_BIN --dir $d/run-cmpfirst -q sync" "$d/steps-cmpfirst-{k}.txt")
        fi
    fi
    python3 "$WORK/rounds.py" "$d/merge.json" "$runs" "${cmds[@]}"
}

# (b): nothing new, on a clone that has synced once. With `watch: auto` (the
# default) a dir of 10,000 files or more gets a watcher from its first sync;
# the two syncs before timing let it start and hand out a token, as on a
# machine in use. The same clone with `watch: off` shows the full scan.
bench_noop() {
    local n=$1 d="$WORK/n$1" runs
    runs=$(runs_for "$n")
    say "n=$n: timing a sync with nothing new ($runs runs each)"
    "$d/prepare.sh" "$d/run-noop"
    "$BIN" --dir "$d/run-noop" -q sync
    rm -rf "$d/run-noop-off"
    cp -a "$d/run-noop" "$d/run-noop-off"
    git -C "$d/run-noop-off" update-index -q --refresh >/dev/null 2>&1 || true
    printf "${CLONE_CONFIG}watch: off\n" >"$d/run-noop-off/.git/learnsync/config.yaml"
    "$BIN" --dir "$d/run-noop" -q sync
    sleep 1
    "$BIN" --dir "$d/run-noop" -q sync
    hyperfine -N --warmup 2 --runs "$((runs * 2))" --style basic --export-json "$d/noop.json" \
        -n "learnsync sync, nothing new (n=$n)" "$BIN --dir $d/run-noop -q sync" \
        -n "learnsync sync --no-fetch --no-push (n=$n)" "$BIN --dir $d/run-noop -q sync --no-fetch --no-push" \
        -n "git status (n=$n)" "git -C $d/run-noop status --porcelain" \
        -n "learnsync sync, nothing new, watch: off (n=$n)" "$BIN --dir $d/run-noop-off -q sync" >&2
    maxrss_kb "$BIN" --dir "$d/run-noop" -q sync >"$d/noop.rss"
    [ -z "$(git -C "$d/run-noop" status --porcelain)" ] || die "n=$n: no-op sync left the tree dirty"
    "$BIN" --dir "$d/run-noop" -q watch --stop >/dev/null || true
}

ALL=$(printf '%s\n' $SIZES "$MAIN_N" "$NOOP_N" | sort -nu)
# Every timed sync may start a watcher (watch: auto, >= 10,000 files) on its
# run dir; a copy replaced under it can leave it running. Stop them all when
# the script ends, so no watcher of ours loads the machine afterwards.
stop_watchers() {
    local n d
    for n in $ALL; do
        for d in "$WORK/n$n"/run-*; do
            [ -d "$d/.git" ] || continue
            "$BIN" --dir "$d" -q watch --stop >/dev/null 2>&1 || true
            [ -z "${COMPARE_BIN:-}" ] || "$COMPARE_BIN" --dir "$d" -q watch --stop >/dev/null 2>&1 || true
        done
    done
}
trap stop_watchers EXIT
for n in $ALL; do fixture "$n"; scripts "$n"; done
for n in $ALL; do verify "$n"; done
for n in $ALL; do
    bench_merge "$n"
    if [ "${NOOP:-1}" = 1 ]; then bench_noop "$n"; else rm -f "$WORK/n$n/noop.json"; fi
done

if [ "${PROFILE:-0}" = 1 ]; then
    command -v perf >/dev/null || die "PROFILE=1 needs perf (apt-get install linux-perf)"
    d="$WORK/n$MAIN_N"
    "$d/prepare.sh" "$d/run-ls"
    perf record -q -g -o "$d/perf.data" -- "$BIN" --dir "$d/run-ls" -q sync
    perf report -i "$d/perf.data" --no-children --stdio --percent-limit 2 2>/dev/null | grep -v '^$' | head -60
fi

# 5. Report.
echo
echo "## learnsync sync benchmark, workload $WORKLOAD ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(git --version))"
echo
if [ -n "${EVENTS:-}" ]; then base_events="$EVENTS"; else base_events="${EVENTS_PER_LEARNING}N"; fi
echo "Each fixture: N learnings in $SOURCE_AGENTS folders + $base_events events on the hub; $BRANCHES branches"
echo "each adding $ADD_LEARNINGS learnings + $ADD_EVENTS events in $COMMITS commit(s)$([ "$WORKLOAD" != add ] && echo ", $EXISTING_SHARE% of the events about existing learnings")$([ "$WORKLOAD" = own ] && echo ", each branch holding only its own writes")."
echo "Medians of interleaved runs; RSS = peak resident memory of the largest process of any run."
echo "git = \`git fetch\` + $BRANCHES successive \`git merge --no-edit${MERGE_OPTS:+ $MERGE_OPTS}\` on a copy of the same clone."
# The code layout the build has (build.rs): it moves the peak RSS by ~7 MiB.
echo "Code layout: $(LEARNSYNC_BIN="$BIN" "$ROOT/benches/text-order.sh" --check 2>&1 || true)"
echo
python3 - "$FIRST_SYNC" $(for n in $ALL; do echo "$WORK/n$n"; done) <<'EOF'
import json, re, statistics, sys
first, dirs = sys.argv[1] == "1", sys.argv[2:]
ms = lambda s: "%.0f ms" % (s * 1000)
mb = lambda k: "%.0f MiB" % (k / 1024)
states = [("learnsync sync, synced before", "synced before")]
if first:
    states.insert(0, ("learnsync first sync after init", "first sync after init"))
head = "| N | git fetch+merges | git +push |"
for _, label in states:
    head += f" learnsync, {label} | ratio to git +push | ratio to git |"
head += " learnsync RSS | git RSS | touched | rewritten | objects pushed (git's) | no-op sync | no-op, watch: off |"
print(head)
print("|" + "---:|" * (head.count("|") - 1))
extra = []
for d in dirs:
    n = int(re.search(r"n(\d+)$", d).group(1))
    r = {x["name"]: x for x in json.load(open(d + "/merge.json"))["results"]}
    med = {k: statistics.median(v["times"]) for k, v in r.items()}
    rss = {k: max(v["rss_kb"]) for k, v in r.items()}
    try:
        noop = [x["median"] for x in json.load(open(d + "/noop.json"))["results"]]
    except OSError:
        noop = None
    c = list(map(int, open(d + "/counts").read().split()))
    g, gp = med["git fetch + merges"], med["git fetch + merges + push"]
    row = f"| {n:,} | {ms(g)} | {ms(gp)} |"
    for name, _ in states:
        row += f" {ms(med[name])} | **{med[name] / gp:.2f}** | {med[name] / g:.2f} |"
    row += f" {mb(max(rss[name] for name, _ in states))} |"
    row += f" {mb(max(rss['git fetch + merges'], rss['git fetch + merges + push']))} |"
    row += f" {c[0]:,} | {c[1]:,} | {c[2]:,} ({c[3]:,}) |"
    row += f" {ms(noop[0])} | {ms(noop[3])} |" if noop else " | |"
    print(row)
    for name in [k for k in med if k.startswith("compare: ")]:
        extra.append(f"N={n:,}, COMPARE_BIN, {name[9:]}: {ms(med[name])}, ratio to git +push {med[name] / gp:.2f}, to git {med[name] / g:.2f}, RSS {mb(rss[name])}")
print()
for line in extra:
    print(line)
EOF
echo
echo "Where one sync's time goes (ms, medians over the timed runs, LEARNSYNC_LOG=learnsync::timing=debug;"
echo "fetch and push are the git binary's work (push: its wall time, the indexes updated meanwhile included);"
echo "µs/learning = the recompute step over the learnings touched):"
echo
python3 - $(for n in $ALL; do echo "$WORK/n$n"; done) <<'EOF'
import glob, re, statistics, sys
groups = [
    ("whole cycle", lambda s: s in ("open, recover, ask the watcher", "commit local work", "fetch, merge, recompute, push (all remotes)", "capture index", "search index", "capture and search indexes", "events index")),
    ("commit local work", lambda s: s == "commit local work"),
    ("fetch", lambda s: s.startswith("fetch ") and "," not in s),
    ("merge the heads", lambda s: s.startswith("merge ")),
    ("recompute", lambda s: s == "recompute the affected learnings"),
    ("  events index catch-up", lambda s: s == "  bring the events index along"),
    ("work tree + index", lambda s: s in ("diff the merged tree", "move the ref, write the work tree", "write the objects, move the ref", "write the work tree", "write the index", "store the events index")),
    ("  objects + ref", lambda s: s == "write the objects, move the ref"),
    ("  work-tree files", lambda s: s == "write the work tree"),
    ("push", lambda s: s.startswith("push ") or s == "  while pushing"),
    ("  indexes while pushing", lambda s: s == "  while pushing"),
    ("capture index", lambda s: s == "capture index"),
    ("search index", lambda s: s == "search index"),
    ("both, one read (first build)", lambda s: s == "capture and search indexes"),
    ("events index (first build)", lambda s: s == "events index"),
]
# The capture and search indexes are updated while the push runs: their laps
# then come before the exchange's, inside its time, and the whole cycle must
# not count them twice.
def steps(path):
    sums = {g: 0.0 for g, _ in groups}
    exchanged = False
    for line in open(path):
        m = re.search(r"DEBUG (.*): ([0-9.]+) ms$", line.rstrip())
        if m:
            step = m.group(1)
            nested = not exchanged and step in ("capture index", "search index", "capture and search indexes")
            exchanged = exchanged or step == "fetch, merge, recompute, push (all remotes)"
            for g, match in groups:
                if match(step) and not (nested and g == "whole cycle"):
                    sums[g] += float(m.group(2))
    return sums
cols = []
for d in sys.argv[1:]:
    n = int(re.search(r"n(\d+)$", d).group(1))
    touched = int(open(d + "/counts").read().split()[0])
    for state, label in (("first", "first sync"), ("before", "synced before"), ("cmpfirst", "COMPARE_BIN first sync"), ("cmpbefore", "COMPARE_BIN synced before")):
        runs = [steps(p) for p in sorted(glob.glob(f"{d}/steps-{state}-*.txt"))]
        if runs:
            med = {g: statistics.median(r[g] for r in runs) for g, _ in groups}
            med["µs/learning"] = med["recompute"] * 1000 / max(touched, 1)
            cols.append((f"N={n:,} {label}", med))
rows = [g for g, _ in groups] + ["µs/learning"]
print("| step | " + " | ".join(c for c, _ in cols) + " |")
print("|---|" + "---:|" * len(cols))
for g in rows:
    print(f"| {g} | " + " | ".join(f"{s[g]:.0f}" for _, s in cols) + " |")
EOF
echo
echo "Raw JSON: $WORK/n*/merge.json (every run), noop.json; step logs: $WORK/n*/steps-*.txt"
