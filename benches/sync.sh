#!/usr/bin/env bash
# The sync benchmark (issue 4, "Speed"): see benches/README.md.
#
#   benches/sync.sh             # full run: 1k, 10k, 100k existing learnings
#   QUICK=1 benches/sync.sh     # 1k and 10k only, 3 runs (a few minutes)
#
# Environment (defaults in brackets):
#   SIZES            existing learnings per fixture, for (c)       [1000 10000 100000]
#   MAIN_N           the fixture of (a)                            [10000]
#   NOOP_N           the fixture of (b)                            [largest of SIZES]
#   EVENTS_PER_LEARNING  base events = this x learnings            [10]
#   BRANCHES         agent branches a0..a<B-1> on the hub          [10]
#   ADD_LEARNINGS    new learnings per branch                      [100]
#   ADD_EVENTS       new events per branch                         [1000]
#   RUNS             hyperfine runs per command                    [10]
#   RUNS_LARGE       runs per command when N >= 100000             [5]
#   BENCH_DIR        where fixtures live (reused when unchanged)   [$CARGO_TARGET_DIR/sync-bench]
#   REGEN=1          regenerate fixtures even when cached
#   PROFILE=1        also `perf record` one learnsync sync at MAIN_N (needs perf)
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
SIZES=${SIZES:-"1000 10000 100000"}
MAIN_N=${MAIN_N:-10000}
NOOP_N=${NOOP_N:-$(printf '%s\n' $SIZES | sort -n | tail -1)}
EVENTS_PER_LEARNING=${EVENTS_PER_LEARNING:-10}
BRANCHES=${BRANCHES:-10}
ADD_LEARNINGS=${ADD_LEARNINGS:-100}
ADD_EVENTS=${ADD_EVENTS:-1000}
RUNS=${RUNS:-10}
RUNS_LARGE=${RUNS_LARGE:-5}
WORK=${BENCH_DIR:-$TARGET/sync-bench}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# Hermetic git and learnsync: no user config, a fixed identity (cargo keeps its own).
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL="$WORK/home/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --file "$GIT_CONFIG_GLOBAL" user.name "learnsync bench"
git config --file "$GIT_CONFIG_GLOBAL" user.email "bench@learnsync.invalid"
git config --file "$GIT_CONFIG_GLOBAL" init.defaultBranch main
unset LEARNSYNC_DIR TERRAPHIM_LEARNINGS_DIR LEARNSYNC_LOG GIT_DIR GIT_WORK_TREE

# 1. Build.
say "building learnsync (release) and the fixture generator"
cargo build --release --quiet
BIN="$TARGET/release/learnsync"
GEN=$(cargo bench --bench sync_fixture --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "sync_fixture" and m.get("executable"):
        print(m["executable"])')
[ -x "$BIN" ] && [ -x "$GEN" ] || die "build failed"

# The policy file exactly as `learnsync init` writes it.
rm -rf "$WORK/init"
"$BIN" --dir "$WORK/init" --agent bench -q init >/dev/null
POLICY="$WORK/policy.yaml"
cp "$WORK/init/.learnsync/policy.yaml" "$POLICY"

# 2-3. Fixtures: hub.git (agents/hub = agents/me = base, agents/a*) and clone/
# (agents/me at base, checked out, configured as `learnsync init` would).
fixture() {
    local n=$1 d="$WORK/n$1"
    local key="v2 n=$n e=$((n * EVENTS_PER_LEARNING)) b=$BRANCHES al=$ADD_LEARNINGS ae=$ADD_EVENTS $(sha1sum <"$GEN" | cut -c1-12) $(sha1sum <"$POLICY" | cut -c1-12)"
    if [ "${REGEN:-0}" != 1 ] && [ "$(cat "$d/.key" 2>/dev/null)" = "$key" ]; then
        say "n=$n: fixture cached in $d"
        return
    fi
    say "n=$n: generating hub ($n learnings, $((n * EVENTS_PER_LEARNING)) events)"
    rm -rf "$d"
    mkdir -p "$d"
    git init -q --bare "$d/hub.git"
    local args=(--hub "$d/hub.git" --policy "$POLICY" --learnings "$n" --events "$((n * EVENTS_PER_LEARNING))"
        --branches "$BRANCHES" --add-learnings "$ADD_LEARNINGS" --add-events "$ADD_EVENTS")
    "$GEN" "${args[@]}" base
    say "n=$n: cloning agents/me (checkout of $n files)"
    # --no-local: the clone holds only what agents/me reaches, like a real machine.
    git clone -q --no-local --single-branch -b agents/me -o hub "$d/hub.git" "$d/clone"
    git -C "$d/clone" config remote.hub.fetch '+refs/heads/*:refs/remotes/hub/*'
    mkdir -p "$d/clone/.git/learnsync/inbox"
    printf 'agent: me\nhub: hub\n' >"$d/clone/.git/learnsync/config.yaml"
    # A machine that has synced before: its capture index snapshot exists
    # (nothing to commit, so HEAD stays at the base).
    "$BIN" --dir "$d/clone" -q sync --no-fetch --no-push
    # That sync may have started a watcher (watch: auto, >= 10,000 files):
    # stop it, so the pristine clone carries no socket into its copies.
    "$BIN" --dir "$d/clone" -q watch --stop || true
    say "n=$n: adding $BRANCHES agent branches (+$ADD_LEARNINGS learnings, +$ADD_EVENTS events each)"
    "$GEN" "${args[@]}" branches
    git -C "$d/hub.git" rev-parse refs/heads/agents/me >"$d/base"
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
    # Pristine copies for each timed run: cp -a, then refresh the index's stat
    # data (cp changes inodes and ctimes; without this git and learnsync
    # would both re-hash every file).
    cat >"$d/prepare.sh" <<EOF
#!/bin/sh
set -e
rm -rf "\$1"
cp -a "$d/clone" "\$1"
git -C "\$1" update-index -q --refresh >/dev/null 2>&1 || true
git -C "$d/hub.git" update-ref refs/heads/agents/me $(cat "$d/base")
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
for b in $merges; do git merge -q --no-edit "\$b"; done
if [ "\${2:-}" = push ]; then git push -q hub agents/me; fi
EOF
    chmod +x "$d/prepare.sh" "$d/git-merge.sh"
}

runs_for() { if [ "$1" -ge 100000 ]; then echo "$RUNS_LARGE"; else echo "$RUNS"; fi; }

maxrss_kb() { # command... ; prints the peak RSS in KiB of the command
    /usr/bin/time -v "$@" 2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt" >&2; die "failed: $*"; }
    awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt"
}

# 4. Correctness of what is timed.
verify() {
    local n=$1 d="$WORK/n$1" ls="$WORK/n$1/run-ls" gt="$WORK/n$1/run-git"
    say "n=$n: verifying one learnsync sync and the git merges"
    "$d/prepare.sh" "$ls"
    local rc=0
    "$BIN" --dir "$ls" --json sync >"$d/sync-report.json" || rc=$?
    [ "$rc" = 0 ] || die "n=$n: learnsync sync exited $rc (report in $d/sync-report.json)"
    [ -z "$(git -C "$ls" status --porcelain)" ] || die "n=$n: git status is not clean after sync"
    local base missing=0 added=0
    base=$(cat "$d/base")
    git -C "$ls" ls-tree -r --name-only HEAD | sort >"$d/ls-files.txt"
    for ((i = 0; i < BRANCHES; i++)); do
        git -C "$d/hub.git" diff --name-only --diff-filter=A "$base" "agents/a$i" -- "a$i/" >>"$d/added.txt.tmp"
    done
    sort -u "$d/added.txt.tmp" >"$d/added.txt" && rm -f "$d/added.txt.tmp"
    added=$(wc -l <"$d/added.txt")
    missing=$(comm -23 "$d/added.txt" "$d/ls-files.txt" | wc -l)
    [ "$added" = $((BRANCHES * ADD_LEARNINGS)) ] || die "n=$n: the branches add $added learnings, expected $((BRANCHES * ADD_LEARNINGS))"
    [ "$missing" = 0 ] || die "n=$n: $missing new learnings missing after sync"
    while read -r f; do [ -f "$ls/$f" ] || die "n=$n: $f not in the work tree"; done <"$d/added.txt"
    local events want
    events=$(git -C "$ls" ls-files -z events | (cd "$ls" && xargs -0 cat) | wc -l)
    want=$((n * EVENTS_PER_LEARNING + BRANCHES * ADD_EVENTS))
    [ "$events" = "$want" ] || die "n=$n: $events event lines after sync, expected $want"
    [ "$(git -C "$ls" rev-parse HEAD)" = "$(git -C "$d/hub.git" rev-parse agents/me)" ] ||
        die "n=$n: the hub's agents/me is not the clone's HEAD (push did not happen)"

    "$d/prepare.sh" "$gt"
    "$d/git-merge.sh" "$gt" || die "n=$n: git merge did not complete (conflicts?); see $gt"
    [ -z "$(git -C "$gt" diff --name-only --diff-filter=U)" ] || die "n=$n: git merge left conflicts"
    [ -z "$(git -C "$gt" status --porcelain)" ] || die "n=$n: git status is not clean after the git merges"
    local differ
    differ=$(diff <(git -C "$ls" ls-tree -r HEAD) <(git -C "$gt" ls-tree -r HEAD) | grep -c '^<' || true)
    echo "  n=$n ok: exit 0, status clean, $added/$added new learnings, $events event lines, pushed;" \
        "git fetch + $BRANCHES successive merges: no conflicts; trees differ in $differ path(s)" >&2
    echo "$differ" >"$d/tree-differ"
}

median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.4f" % x["median"] for x in r))' "$1"; }

# (a) and (c): learnsync sync vs git fetch + merges, each from a pristine copy.
bench_merge() {
    local n=$1 d="$WORK/n$1" runs
    runs=$(runs_for "$n")
    say "n=$n: timing sync of $BRANCHES branches ($runs runs each)"
    hyperfine -N --runs "$runs" --style basic --export-json "$d/merge.json" \
        --prepare "$d/prepare.sh $d/run-ls" \
        --prepare "$d/prepare.sh $d/run-git" \
        --prepare "$d/prepare.sh $d/run-git" \
        -n "learnsync sync (n=$n)" "$BIN --dir $d/run-ls -q sync" \
        -n "git fetch + $BRANCHES merges (n=$n)" "$d/git-merge.sh $d/run-git" \
        -n "git fetch + $BRANCHES merges + push (n=$n)" "$d/git-merge.sh $d/run-git push" >&2
    "$d/prepare.sh" "$d/run-ls"
    maxrss_kb "$BIN" --dir "$d/run-ls" -q sync >"$d/merge.rss"
    "$d/prepare.sh" "$d/run-git"
    maxrss_kb "$d/git-merge.sh" "$d/run-git" >"$d/git.rss"
    # Where the time goes: three more runs with the cycle's steps timed.
    for k in 1 2 3; do
        "$d/prepare.sh" "$d/run-ls"
        LEARNSYNC_LOG=learnsync::timing=debug "$BIN" --dir "$d/run-ls" -q sync 2>"$d/steps-$k.txt" >/dev/null
    done
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
    printf 'agent: me\nhub: hub\nwatch: off\n' >"$d/run-noop-off/.git/learnsync/config.yaml"
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
for n in $ALL; do fixture "$n"; scripts "$n"; done
for n in $ALL; do verify "$n"; done
for n in $ALL; do bench_merge "$n"; bench_noop "$n"; done

if [ "${PROFILE:-0}" = 1 ]; then
    command -v perf >/dev/null || die "PROFILE=1 needs perf (apt-get install linux-perf)"
    d="$WORK/n$MAIN_N"
    "$d/prepare.sh" "$d/run-ls"
    perf record -q -g -o "$d/perf.data" -- "$BIN" --dir "$d/run-ls" -q sync
    perf report -i "$d/perf.data" --no-children --stdio --percent-limit 2 2>/dev/null | grep -v '^$' | head -60
fi

# 5. Report.
echo
echo "## learnsync sync benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(git --version))"
echo
echo "Each fixture: N learnings + ${EVENTS_PER_LEARNING}N events on the hub; $BRANCHES branches each adding"
echo "$ADD_LEARNINGS learnings + $ADD_EVENTS events. Medians; RSS = peak resident memory of one run."
echo "git = \`git fetch\` + $BRANCHES successive \`git merge --no-edit\` (no conflicts, no -X option needed)."
echo
echo "| N learnings | learnsync sync | git fetch+merge | ratio | git +push | ratio | learnsync RSS | git RSS (largest process) | no-op sync | no-op --no-fetch --no-push | git status | no-op, watch: off | no-op RSS |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $ALL; do
    d="$WORK/n$n"
    read -r ls g gp <<<"$(median "$d/merge.json")"
    read -r no nolocal gs off <<<"$(median "$d/noop.json")"
    python3 - "$n" "$ls" "$g" "$gp" "$(cat "$d/merge.rss")" "$(cat "$d/git.rss")" "$no" "$nolocal" "$gs" "$off" "$(cat "$d/noop.rss")" <<'EOF'
import sys
n, ls, g, gp, rss, grss, no, nl, gs, off, nrss = sys.argv[1:]
ms = lambda s: "%.0f ms" % (float(s) * 1000)
mb = lambda k: "%.0f MiB" % (int(k) / 1024)
print(f"| {int(n):,} | {ms(ls)} | {ms(g)} | {float(ls)/float(g):.2f} | {ms(gp)} | {float(ls)/float(gp):.2f} | {mb(rss)} | {mb(grss)} | {ms(no)} | {ms(nl)} | {ms(gs)} | {ms(off)} | {mb(nrss)} |")
EOF
done
echo
d="$WORK/n$MAIN_N"
read -r ls g gp <<<"$(median "$d/merge.json")"
python3 -c "import sys; ls,g=map(float,sys.argv[1:]); print(f'(a) n=$MAIN_N: learnsync {ls*1000:.0f} ms vs git fetch+merge {g*1000:.0f} ms: ratio {ls/g:.2f} (target <= 1.0)')" "$ls" "$g"
read -r no _ gs off <<<"$(median "$WORK/n$NOOP_N/noop.json")"
python3 -c "import sys; no,gs,off=map(float,sys.argv[1:]); print(f'(b) n=$NOOP_N: no-op sync {no*1000:.0f} ms with the watcher (target <= 150 ms), {off*1000:.0f} ms with watch: off; git status {gs*1000:.0f} ms')" "$no" "$gs" "$off"
echo "(c) see the table above, and where one sync's time goes at each N (ms, median of"
echo "    3 runs with LEARNSYNC_LOG=learnsync::timing=debug; fetch and push are the git binary's work):"
echo
python3 - $(for n in $ALL; do echo "$WORK/n$n"; done) <<'EOF'
import re, sys
groups = [
    ("commit local work", lambda s: s == "commit local work"),
    ("fetch", lambda s: s.startswith("fetch ") and "," not in s),
    ("merge 10 heads", lambda s: s.startswith("merge ")),
    ("recompute", lambda s: s == "recompute the affected learnings"),
    ("work tree + index", lambda s: s in ("diff the merged tree", "move the ref, write the work tree", "write the index")),
    ("push", lambda s: s.startswith("push ")),
    ("capture index", lambda s: s == "capture index"),
    ("events index", lambda s: s == "events index"),
]
import glob, statistics
def steps(path):
    sums = {g: 0.0 for g, _ in groups}
    for line in open(path):
        m = re.search(r"DEBUG (.*): ([0-9.]+) ms$", line.rstrip())
        if not m or m.group(1).startswith(" "):
            continue
        for g, match in groups:
            if match(m.group(1)):
                sums[g] += float(m.group(2))
                break
    return sums
cols = []
for d in sys.argv[1:]:
    runs = [steps(p) for p in sorted(glob.glob(d + "/steps-*.txt"))]
    cols.append((re.search(r"n(\d+)$", d).group(1),
                 {g: statistics.median(r[g] for r in runs) for g, _ in groups}))
print("| step | " + " | ".join(f"N={int(n):,}" for n, _ in cols) + " |")
print("|---|" + "---:|" * len(cols))
for g, _ in groups:
    print(f"| {g} | " + " | ".join(f"{s[g]:.0f}" for _, s in cols) + " |")
EOF
echo "Raw hyperfine JSON: $WORK/n*/merge.json, noop.json"
