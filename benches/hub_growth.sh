#!/usr/bin/env bash
# The hub's growth per outcome event (issue 32): a simulated team syncing
# through one bare hub, measured after `git gc`, and the same history with
# the learning files' derived fields written two other ways, so the
# designs compare on the very same commits. See benches/README.md.
#
#   benches/hub_growth.sh            # 20 agents, 60 rounds ("minutes")
#   ROUNDS=10 benches/hub_growth.sh  # a quick look
#
# Environment (defaults in brackets):
#   AGENTS        agents, each its own clone, syncing once a round      [20]
#   ROUNDS        rounds; each agent records its events, then syncs     [60]
#   RATE          outcome events per agent per round, in percent        [50]
#   LEARNINGS     learnings on the hub before the day                   [1000]
#   EVENTS        events on the hub before the day                      [10000]
#   BATCH         rounds ("minutes") an agent's outcome events may wait
#                 before a sync sends them, as the daemon's scheduled
#                 syncs do (`sync --batch-evidence`, daemon.evidence_batch_*);
#                 0: every sync sends what it has                       [10]
#   LEARNSYNC_BIN time this learnsync binary instead of building one
#   BENCH_DIR     where it runs        [$CARGO_TARGET_DIR/hub-growth]
#
# Each round every agent records its outcome events with `learnsync apply`
# (what the hooks write; 40% applied, 35% effective, 20% ineffective, 5%
# recurred, about learnings with a correction drawn at random) and runs one
# `learnsync sync`, in turn, so each merges what the others pushed since.
#
# Reported: bytes the hub's packs grew (each `git gc`ed), bytes a new clone
# downloads, both per outcome event and against the bytes of the event
# lines themselves; then the same for the hub's history rewritten with
#   - "level only": `quality` at its neutral value in every commit
#     (`trust_level`, `promoted_at`, `wiki_page_name` as committed);
#   - "neutral": every derived field at its neutral value (L0/L1 from the
#     learning itself, quality zero, promoted_at and wiki_page_name null),
#     what commits would carry if the work tree alone held derived state.
set -euo pipefail

die() { echo "hub_growth.sh: $*" >&2; exit 1; }
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
command -v git >/dev/null || die "git is not on PATH"
command -v python3 >/dev/null || die "python3 is needed"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
AGENTS=${AGENTS:-20} ROUNDS=${ROUNDS:-60} RATE=${RATE:-50} BATCH=${BATCH:-10}
LEARNINGS=${LEARNINGS:-1000} EVENTS=${EVENTS:-10000}
WORK=${BENCH_DIR:-$TARGET/hub-growth}
rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# Hermetic environment, $BIN and $GEN.
# shellcheck source=benches/sync_common.sh
. "$ROOT/benches/sync_common.sh"

# The hub: LEARNINGS learnings and EVENTS events on agents/hub (= agents/me),
# as the sync benchmark makes them; main with the policy.
"$BIN" --dir "$WORK/init" --agent bench -q init >/dev/null
HUB="$WORK/hub.git"
git init -q --bare "$HUB"
git -C "$HUB" config gc.auto 0
git -C "$HUB" config receive.autogc false
say "hub: $LEARNINGS learnings, $EVENTS events"
"$GEN" --hub "$HUB" --policy "$WORK/init/.learnsync/policy.yaml" --learnings "$LEARNINGS" \
    --events "$EVENTS" --source-agents "$AGENTS" base 2>/dev/null
git -C "$HUB" update-ref refs/heads/main refs/heads/agents/hub
git -C "$HUB" update-ref -d refs/heads/agents/me

# The learnings an agent can be shown: those with a correction.
git -C "$HUB" grep -l '^correction: ' agents/hub -- '*.md' | sed 's#^agents/hub:##; s#.*/##; s#\.md$##' >"$WORK/ids.txt"
[ -s "$WORK/ids.txt" ] || die "no learning with a correction on the hub"

say "$AGENTS clones, each \`learnsync init\` and a first sync"
for ((a = 0; a < AGENTS; a++)); do
    d="$WORK/agent$a"
    git clone -q --no-local -o hub "$HUB" "$d" 2>/dev/null
    git -C "$d" checkout -q -b "agents/a$a"
    "$BIN" --dir "$d" -q init --agent "a$a" --hub hub >/dev/null
    # The age rule is simulated in rounds by the driver below (a round is
    # a "minute" but lasts seconds); the count rule is learnsync's own.
    printf 'daemon:\n  evidence_batch_secs: 86400\n  evidence_batch_events: 20\n' \
        >>"$d/.git/learnsync/config.yaml"
    "$BIN" --dir "$d" -q sync
done

size_pack() { # bare repo -> bytes of its packs after gc
    git -C "$1" gc -q --prune=now
    git -C "$1" count-objects -v | awk '/^size-pack:/ {print $2 * 1024}'
}
clone_bytes() { # bare repo -> bytes a new clone of every branch downloads
    rm -rf "$WORK/clone-probe"
    git clone -q --bare --no-local "$1" "$WORK/clone-probe"
    du -sb "$WORK/clone-probe/objects/pack" | cut -f1
}
cp -a "$HUB" "$WORK/hub-before.git"
BEFORE=$(size_pack "$WORK/hub-before.git")
CLONE_BEFORE=$(clone_bytes "$WORK/hub-before.git")

say "$ROUNDS rounds of $AGENTS agents (about $((AGENTS * ROUNDS * RATE / 100)) events)"
python3 - "$BIN" "$WORK" "$AGENTS" "$ROUNDS" "$RATE" "$BATCH" <<'EOF'
import json, random, subprocess, sys, time
bin_, work, agents, rounds, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
batch = int(sys.argv[6])
ids = open(f"{work}/ids.txt").read().split()
rng = random.Random(32)
events = 0
started = time.time()
# The round of each agent's oldest event still waiting in its inbox.
oldest = [None] * agents

def sync(a, r):
    d = f"{work}/agent{a}"
    if batch == 0 or (oldest[a] is not None and r - oldest[a] >= batch):
        subprocess.run([bin_, "--dir", d, "-q", "sync"], check=True)
        oldest[a] = None
        return
    out = subprocess.run([bin_, "--dir", d, "--json", "sync", "--batch-evidence"],
                         check=True, capture_output=True).stdout
    if json.loads(out)["held_events"] == 0:
        oldest[a] = None

for r in range(rounds):
    for a in range(agents):
        d = f"{work}/agent{a}"
        # RATE percent: whole events, then the remainder by chance.
        n = rate // 100 + (1 if rng.randrange(100) < rate % 100 else 0)
        for _ in range(n):
            outcome = rng.choices(["applied", "effective", "ineffective", "recurred"], [40, 35, 20, 5])[0]
            subprocess.run([bin_, "--dir", d, "-q", "apply", "--outcome", outcome, rng.choice(ids)], check=True)
            events += 1
            if oldest[a] is None:
                oldest[a] = r
        sync(a, r)
    if (r + 1) % 10 == 0:
        print(f"  round {r + 1}/{rounds}: {events} events, {time.time() - started:.0f} s", file=sys.stderr)
# The day ends: whatever still waits goes out (the age rule, later).
for a in range(agents):
    if oldest[a] is not None:
        sync(a, rounds + batch)
open(f"{work}/events-recorded", "w").write(str(events))
EOF
EVENTS_DAY=$(cat "$WORK/events-recorded")
[ "$EVENTS_DAY" -gt 0 ] || die "no event recorded"

# The event lines the day added, from the hub's agents' branches merged
# (each agent's own events files on its own branch): their bytes.
LINE_BYTES=$(for ((a = 0; a < AGENTS; a++)); do
    git -C "$HUB" diff --no-renames -U0 refs/heads/main "refs/heads/agents/a$a" -- "events/a$a/" | grep '^+{' || true
done | python3 -c 'import sys
lines = [l[1:] for l in sys.stdin]
print(sum(len(l.encode()) for l in lines), len(lines))')
read -r LINE_TOTAL LINE_COUNT <<<"$LINE_BYTES"
[ "$LINE_COUNT" = "$EVENTS_DAY" ] || die "the hub holds $LINE_COUNT new event lines, $EVENTS_DAY were recorded"

# The same history, its learning files' derived fields written another way.
rewrite() { # mode out.git
    git init -q --bare "$2"
    git -C "$HUB" fast-export --all --signed-tags=strip |
        python3 "$ROOT/benches/hub_growth_rewrite.py" "$1" |
        git -C "$2" fast-import --quiet
    git -C "$2" config gc.auto 0
}
say "rewriting the day's history two ways and measuring each after gc"
rewrite level "$WORK/hub-level.git"
rewrite neutral "$WORK/hub-neutral.git"
# Their starting points: the hub before the day, rewritten the same way.
HUB_SAVED=$HUB
HUB="$WORK/hub-before.git" rewrite level "$WORK/hub-before-level.git"
HUB="$WORK/hub-before.git" rewrite neutral "$WORK/hub-before-neutral.git"
HUB=$HUB_SAVED

echo
echo "## Hub growth per outcome event ($(date -u +%Y-%m-%dT%H:%MZ), $(git --version))"
echo
echo "$AGENTS agents, each syncing once a round, $ROUNDS rounds, $EVENTS_DAY outcome events,"
echo "events sent after waiting up to $BATCH round(s) (BATCH; 0: by every sync)"
echo "($(python3 -c "print(f'{$LINE_TOTAL / $LINE_COUNT:.0f}')") bytes per event line); hub before: $LEARNINGS learnings, $EVENTS events."
echo "Bytes after \`git gc\`; \"per event\" = growth ÷ events, and as a multiple of the event line's bytes."
echo
echo "| derived fields in commits | hub grew | per event | × line | new clone grew | per event | × line |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for mode in as-committed level neutral; do
    case $mode in
    as-committed) after=$HUB before=$WORK/hub-before.git label="as committed today" ;;
    level) after=$WORK/hub-level.git before=$WORK/hub-before-level.git label="level only (quality neutral)" ;;
    neutral) after=$WORK/hub-neutral.git before=$WORK/hub-before-neutral.git label="none (work tree only)" ;;
    esac
    cp -a "$after" "$WORK/probe.git"
    a=$(size_pack "$WORK/probe.git")
    ca=$(clone_bytes "$WORK/probe.git")
    rm -rf "$WORK/probe.git"
    if [ "$mode" = as-committed ]; then b=$BEFORE cb=$CLONE_BEFORE; else
        cp -a "$before" "$WORK/probe.git"
        b=$(size_pack "$WORK/probe.git")
        cb=$(clone_bytes "$WORK/probe.git")
        rm -rf "$WORK/probe.git"
    fi
    python3 -c "
g, c, n, lb = $a - $b, $ca - $cb, $EVENTS_DAY, $LINE_TOTAL / $LINE_COUNT
print(f'| $label | {g:,} B | {g / n:,.0f} B | {g / n / lb:.1f} | {c:,} B | {c / n:,.0f} B | {c / n / lb:.1f} |')"
done
echo
echo "Commits on the hub: $(git -C "$HUB" rev-list --all | wc -l) ($(git -C "$HUB" rev-list --all --merges | wc -l) merges)."
