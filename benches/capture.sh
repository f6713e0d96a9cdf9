#!/usr/bin/env bash
# Times the whole `learnsync capture` process against `cat` reading the same
# payload, in one hyperfine run (see benches/README.md):
#   (a) a successful command's payload (the common case: nothing to do);
#   (b) a failing command's payload, written to the inbox (with its fsyncs);
#   (c) a successful command in a session with 1 learning shown and followed
#       for its outcome (DESIGN 4.1), and (d) with 20 (an unrelated command:
#       the common case, a call counted against their windows).
# Targets: median (a) <= 1.5x cat, median (b) <= 4x cat, (c) and (d) <= 2x cat.
#
# Installs nothing. Needs hyperfine >= 1.16 and python3.
# Usage: [BENCH_TMPDIR=/dev/shm] [LEARNSYNC_BIN=path] benches/capture.sh [runs]
# (LEARNSYNC_BIN times that build instead of building one: an older build
# against this one, one after the other.)
# Exit 3 when a target is missed.
set -euo pipefail

if ! command -v hyperfine >/dev/null 2>&1; then
  echo "benches/capture.sh: hyperfine is not installed (apt-get install hyperfine, or cargo install hyperfine)" >&2
  exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "benches/capture.sh: python3 is needed to read hyperfine's JSON" >&2
  exit 1
fi

RUNS="${1:-300}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [ -n "${LEARNSYNC_BIN:-}" ]; then
  BIN="$LEARNSYNC_BIN"
else
  (cd "$ROOT" && cargo build --release --quiet)
  BIN="$TARGET/release/learnsync"
fi

# BENCH_TMPDIR=/dev/shm puts the learnings dir on tmpfs, to see the cost without the disk.
WORK="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/capture-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" LEARNSYNC_DIR="$WORK/learnings" HOSTNAME=bench
unset XDG_CONFIG_HOME XDG_DATA_HOME LEARNSYNC_AGENT TERRAPHIM_LEARNINGS_DIR
mkdir -p "$HOME"
"$BIN" init --agent bench >/dev/null

SUCCESS="$WORK/success.json"
FAILURE="$WORK/failure.json"
cat >"$SUCCESS" <<'JSON'
{"session_id":"9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60","transcript_path":"/home/dev/.claude/projects/-home-dev-shop/9f2c1a4e.jsonl","cwd":"/home/dev/shop","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git status --short","description":"Show the status"},"tool_response":{"stdout":" M src/cart.rs\n M src/total.rs\n","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01HXq8rW3mK9vN2pL5tY7zA4"}
JSON
# A different session, so (a) never finds a pending failure from (b).
cat >"$FAILURE" <<'JSON'
{"session_id":"bench-failures","transcript_path":"/home/dev/.claude/projects/-home-dev-shop/bench.jsonl","cwd":"/home/dev/shop","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"git push -f origin main","description":"Force push"},"tool_use_id":"toolu_01HXq8rW3mK9vN2pL5tY7zA5","error":"Exit code 1\nTo gitea.example.com:team/shop.git\n ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs to 'gitea.example.com:team/shop.git'"}
JSON

# The capture index as a sync leaves it; what captures add goes to its log.
"$BIN" sync --no-fetch --no-push >/dev/null
LOG="$LEARNSYNC_DIR/.git/learnsync/capture-log.jsonl"

# hyperfine >= 1.16 for --input (Debian's 1.15 lacks it).
if ! hyperfine --help | grep -q -- '--input'; then
  echo "benches/capture.sh: hyperfine $(hyperfine --version | cut -d' ' -f2) has no --input; need >= 1.16 (cargo install hyperfine --version 1.20.0 --locked)" >&2
  exit 1
fi

# (a) success; (b) failure. After the first capture of (b) every further run
# would be a recurrence (an event instead of a learning); emptying the capture
# log before each run (what a sync does) keeps every run on the new-learning
# path, with the index snapshot and the session log in place as in real use.
hyperfine -N --warmup 20 --runs "$RUNS" --input "$SUCCESS" \
  --export-json "$WORK/success.json.result" \
  --command-name cat "cat" \
  --command-name capture "$BIN capture" >&2
hyperfine -N --warmup 20 --runs "$RUNS" --input "$FAILURE" \
  --prepare "truncate -s 0 $LOG" \
  --export-json "$WORK/failure.json.result" \
  --command-name cat "cat" \
  --command-name capture "$BIN capture" >&2

captured=$(find "$LEARNSYNC_DIR/.git/learnsync/inbox" -name '*.md' | wc -l)
echo "learnings written by (b): $captured"

# (c), (d): sessions shown 1 and 20 learnings (PreToolUse warnings), each
# run from the same session file (restored before each run, untimed), so
# every run follows the showings as the first call after them does.
SESSIONS="$LEARNSYNC_DIR/.git/learnsync/sessions"
for n in $(seq 1 20); do
  "$BIN" add --title "tool$n deploy fails without --region" --command "tool$n deploy --prod" \
    --correction "tool$n deploy --prod --region eu-west-$n" >/dev/null
done
"$BIN" sync --no-fetch --no-push >/dev/null
pre() { printf '{"session_id":"%s","cwd":"/home/dev/shop","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"tool%s deploy --prod"}}' "$1" "$2"; }
pre shown-1 1 | "$BIN" capture >/dev/null
for n in $(seq 1 20); do pre shown-20 "$n" | "$BIN" capture >/dev/null; done
for s in shown-1 shown-20; do
  cp "$SESSIONS/$s.jsonl" "$WORK/$s.saved"
  sed "s/9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60/$s/" "$SUCCESS" >"$WORK/$s.json"
done
grep -c '"shown"' "$WORK/shown-20.saved" | sed 's/^/showings followed in (d): /'
for s in shown-1 shown-20; do
  hyperfine -N --warmup 20 --runs "$RUNS" --input "$WORK/$s.json" \
    --prepare "cp $WORK/$s.saved $SESSIONS/$s.jsonl" \
    --export-json "$WORK/$s.json.result" \
    --command-name cat "cat" \
    --command-name capture "$BIN capture" >&2
done


python3 - "$WORK/success.json.result" "$WORK/failure.json.result" \
  "$WORK/shown-1.json.result" "$WORK/shown-20.json.result" <<'PY'
import json, sys
targets = {"(a) success": 1.5, "(b) failure": 4.0,
           "(c) success, 1 showing followed": 2.0, "(d) success, 20 showings followed": 2.0}
ok = True
for (label, limit), path in zip(targets.items(), sys.argv[1:]):
    results = {r["command"]: r for r in json.load(open(path))["results"]}
    cat, cap = results["cat"]["median"], results["capture"]["median"]
    ratio = cap / cat
    verdict = "ok" if ratio <= limit else "MISSED"
    ok &= ratio <= limit
    print(f"{label}: capture median {cap*1e3:.3f} ms, cat median {cat*1e3:.3f} ms, "
          f"ratio {ratio:.2f} (target <= {limit:g}x) {verdict}")
sys.exit(0 if ok else 3)
PY
