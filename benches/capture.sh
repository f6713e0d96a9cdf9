#!/usr/bin/env bash
# Times the whole `learnsync capture` process against `cat` reading the same
# payload, in one hyperfine run (see benches/README.md):
#   (a) a successful command's payload (the common case: nothing to do);
#   (b) a failing command's payload, written to the inbox (with its fsyncs).
# Targets: median (a) <= 2x cat, median (b) <= 4x cat.
#
# Installs nothing. Needs hyperfine, jq-free. Usage: benches/capture.sh [runs]
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
(cd "$ROOT" && cargo build --release --quiet)
BIN="$TARGET/release/learnsync"

WORK="$(mktemp -d)"
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

# After the first capture of (b) every further run is a recurrence (an event
# file, with the same fsyncs as a learning); clearing the index before each run
# keeps every run on the new-learning path instead.
INDEX="$LEARNINGS_INDEX_PLACEHOLDER"
INDEX="$LEARNSYNC_DIR/.git/learnsync/capture-index.json"

hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$WORK/result.json" \
  --command-name cat-success "cat $SUCCESS" \
  --command-name capture-success "$BIN capture --input-file-placeholder" \
  >/dev/null 2>&1 || true
