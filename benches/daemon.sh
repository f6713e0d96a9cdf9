#!/usr/bin/env bash
# The daemon benchmark (issue 11, "Speed and footprint"): see benches/README.md.
#
#   benches/daemon.sh            # full run: 10 min idle, 10 min on default schedules, 3 capture delays
#   QUICK=1 benches/daemon.sh    # 1 min each, 1 capture delay (about 4 minutes)
#
# Environment (defaults in brackets):
#   IDLE_SECS     how long the idle phase (a) watches the daemon        [600; QUICK 60]
#   DEFAULT_SECS  how long phase (b) watches it                         [IDLE_SECS]
#   LEARNINGS     learnings in the watched dir                          [1000]
#   REPEATS       capture-to-second-machine measurements                [3; QUICK 1]
#   BENCH_DIR     scratch space                                         [$CARGO_TARGET_DIR/daemon-bench]
#
# (a) idle: no work due (sync once a year, review and publish off; the
#     start-up sync runs before the watch starts), `--listen` on;
# (b) default schedules with nothing to sync (a sync a minute, no remote);
# for both: CPU time used (user+system, all threads), wake-ups (context
# switches, all threads), peak RSS (VmHWM), read from /proc.
# (c) a capture on machine A until its file is in machine B's work tree,
#     both daemons on the default configuration (debounce 30 s, a sync a
#     minute with each machine's offset), through a bare hub.
set -euo pipefail

die() { echo "daemon.sh: $*" >&2; exit 1; }
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

[ "$(uname -s)" = Linux ] || die "reads /proc: Linux only"
command -v git >/dev/null || die "git is not on PATH"
command -v python3 >/dev/null || die "python3 is needed to write the fixture"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "${QUICK:-0}" = 1 ]; then
    IDLE_SECS=${IDLE_SECS:-60}
    REPEATS=${REPEATS:-1}
fi
IDLE_SECS=${IDLE_SECS:-600}
DEFAULT_SECS=${DEFAULT_SECS:-$IDLE_SECS}
REPEATS=${REPEATS:-3}
LEARNINGS=${LEARNINGS:-1000}
WORK=${BENCH_DIR:-$TARGET/daemon-bench}
rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
say "building learnsync (release)"
cargo build --release --quiet
BIN="$TARGET/release/learnsync"

export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config"
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL="$WORK/home/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --file "$GIT_CONFIG_GLOBAL" user.name "learnsync bench"
git config --file "$GIT_CONFIG_GLOBAL" user.email "bench@learnsync.invalid"
unset LEARNSYNC_DIR TERRAPHIM_LEARNINGS_DIR LEARNSYNC_LOG GIT_DIR GIT_WORK_TREE GITEA_TOKEN
TCK=$(getconf CLK_TCK)

# A dir of $LEARNINGS learnings, adopted by init.
fixture() {
    local dir=$1 agent=$2
    python3 - "$dir/$agent" "$LEARNINGS" <<'EOF'
import os, sys
folder, n = sys.argv[1], int(sys.argv[2])
os.makedirs(folder, exist_ok=True)
for i in range(n):
    lid = "learning-%032x-1780000000000" % (i + 1)
    with open(os.path.join(folder, lid + ".md"), "w") as f:
        f.write(f"""---
id: {lid}
title: Lesson {i}
agent_id: {os.path.basename(folder)}
captured_at: 2026-06-01T12:00:00Z
updated_at: 2026-06-01T12:00:00Z
trust_level: L1
source: manual
keywords: [bench, k{i % 50}]
original_command: tool --step {i}
error_context: step {i} failed
correction: run tool --step {i} --fixed
kind: correction
---

Why step {i} fails, and what works instead.
""")
EOF
    "$BIN" --dir "$dir" --agent "$agent" init >/dev/null
}

# cpu_ticks wakeups of a pid (all threads).
probe() {
    local pid=$1 cpu=0 sw=0 t
    cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    for t in /proc/"$pid"/task/*/status; do
        sw=$((sw + $(awk '/^(voluntary|nonvoluntary)_ctxt_switches/ {s += $2} END {print s}' "$t")))
    done
    echo "$cpu $sw"
}

hwm_kib() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# footprint NAME DIR CONFIG: starts a daemon, waits for its start-up sync,
# watches it for IDLE_SECS, prints one table row.
footprint() {
    local name=$1 dir=$2 config=$3 secs=$4 port
    printf '%s' "$config" > "$dir/.git/learnsync/config.yaml"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$BIN" --dir "$dir" daemon --listen "127.0.0.1:$port" 2>"$WORK/$name.log" &
    local pid=$!
    local waited=0
    until grep -qs "sync ok" "$WORK/$name.log"; do
        sleep 0.2; waited=$((waited + 1))
        [ $waited -lt 600 ] || { kill "$pid"; die "$name: no start-up sync: $(cat "$WORK/$name.log")"; }
    done
    sleep 1
    read -r cpu0 sw0 < <(probe "$pid")
    say "$name: watching pid $pid for ${secs}s"
    sleep "$secs"
    read -r cpu1 sw1 < <(probe "$pid")
    local hwm rss
    hwm=$(hwm_kib "$pid"); rss=$(rss_kib "$pid")
    kill -TERM "$pid"; wait "$pid" || true
    python3 - "$name" "$secs" "$cpu0" "$cpu1" "$sw0" "$sw1" "$TCK" "$hwm" "$rss" <<'EOF'
import sys
name, secs, c0, c1, s0, s1, tck, hwm, rss = sys.argv[1:]
cpu = (int(c1) - int(c0)) / int(tck)
wake = int(s1) - int(s0)
print(f"| {name} | {int(secs)} s | {cpu:.2f} s | {wake} ({wake / int(secs) * 60:.1f}/min) | {int(hwm) / 1024:.1f} MiB | {int(rss) / 1024:.1f} MiB |")
EOF
}

say "fixture: $LEARNINGS learnings"
fixture "$WORK/idle" bench
echo "| phase | watched | CPU used | wake-ups | peak RSS | RSS at the end |"
echo "|---|---|---|---|---|---|"
footprint "idle (no work due)" "$WORK/idle" $'agent: bench\nschedule:\n  sync: "0 0 1 1 *"\n  review: "off"\n  publish: "off"\n' "$IDLE_SECS"
footprint "default schedules, nothing to sync" "$WORK/idle" $'agent: bench\n' "$DEFAULT_SECS"

# (c) capture on A -> file in B's tree, default configuration.
say "capture delay: $REPEATS measurement(s)"
git init -q --bare "$WORK/hub.git"
"$BIN" --dir "$WORK/a" --agent laptop-a init --remote "hub=$WORK/hub.git" >/dev/null
"$BIN" --dir "$WORK/b" --agent laptop-b init --remote "hub=$WORK/hub.git" >/dev/null
"$BIN" --dir "$WORK/a" daemon 2>"$WORK/a.log" &
PA=$!
"$BIN" --dir "$WORK/b" daemon 2>"$WORK/b.log" &
PB=$!
trap 'kill $PA $PB 2>/dev/null || true' EXIT
sleep 3
delays=()
for i in $(seq 1 "$REPEATS"); do
    # A random moment within the minute, so B's offset is not always lucky.
    sleep $((RANDOM % 60))
    t0=$(date +%s.%N)
    id=$("$BIN" --dir "$WORK/a" add --title "capture $i" --correction "fixed $i")
    until [ -f "$WORK/b/laptop-a/$id.md" ]; do
        sleep 0.1
        awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - t0 > 300) }' && die "capture $i never reached B"
    done
    t1=$(date +%s.%N)
    d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    say "capture $i: ${d}s"
    delays+=("$d")
done
kill -TERM $PA $PB; wait $PA $PB 2>/dev/null || true
trap - EXIT
echo
echo "capture on A to its file in B's work tree (default debounce 30 s, a sync a minute): ${delays[*]} s"
