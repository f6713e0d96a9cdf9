#!/usr/bin/env bash
# Times what the context hooks add to an agent (issue 10, item 5; see
# benches/README.md, "hooks.sh"): the whole `learnsync capture` process for
#   (a) Claude `SessionStart` (the session's context block);
#   (b) `UserPromptSubmit` with a prompt a learning confidently matches;
#   (c) `UserPromptSubmit` with a prompt nothing matches (nothing printed);
#   (d) `UserPromptSubmit` with a 64 KiB pasted log (looked up by its ends);
#   (e) `PreToolUse` on a command a learning warns about (the existing warning);
# against `cat` reading the same payload, in one hyperfine run per case, in a
# learnings dir of N learnings (default 10,000) whose search and capture
# indexes a sync has built, as on a machine in use.
# Targets (exit 3 when missed): (b) and (c) median <= 20 ms (the `suggest`
# target at 10,000 learnings: the same lookup), (a) median <= 50 ms.
#
# Installs nothing. Needs hyperfine and python3. hyperfine >= 1.16 feeds the
# payload on stdin (--input); an older one (Debian's 1.15) passes it as the
# last argument, which `capture` reads like stdin (Codex `notify` does the
# same), and `cat` reads the payload file.
# Usage: [N=10000] [RUNS=100] [BENCH_DIR=...] benches/hooks.sh
set -euo pipefail

for tool in hyperfine python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "benches/hooks.sh: $tool is not installed" >&2
    exit 1
  fi
done

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
N="${N:-10000}"
RUNS="${RUNS:-100}"
FIXTURE="$ROOT/tests/fixtures/search"
WORK="${BENCH_DIR:-$TARGET/hooks-bench}"
say() { echo "hooks.sh: $*" >&2; }

say "building learnsync (release) and the corpus generator"
(cd "$ROOT" && cargo build --release --quiet)
HARNESS=$(cd "$ROOT" && cargo bench --quiet --bench search_eval --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "search_eval":
        print(m["executable"])')
BIN="$TARGET/release/learnsync"

rm -rf "$WORK"
mkdir -p "$WORK/home"
export HOME="$WORK/home" LEARNSYNC_DIR="$WORK/learnings" HOSTNAME=bench GIT_CONFIG_NOSYSTEM=1
unset XDG_CONFIG_HOME XDG_DATA_HOME LEARNSYNC_AGENT TERRAPHIM_LEARNINGS_DIR LEARNSYNC_LOG

say "$N learnings: generate, init, first sync (builds the search and capture indexes)"
"$HARNESS" gen "$FIXTURE/learnings" "$LEARNSYNC_DIR" "$N" 7
cp -r "$FIXTURE/kg" "$LEARNSYNC_DIR/"
"$BIN" init --agent bench >/dev/null
"$BIN" sync --no-fetch --no-push -q

# A project of the generated learnings (they are spread over 60), and a
# command one of them warns about.
PROJECT=$(sed -n 's/^project: //p' "$(find "$LEARNSYNC_DIR/a0" -name '*.md' | head -1)")
PAYLOADS="$WORK/payloads"
mkdir -p "$PAYLOADS"
python3 - "$PAYLOADS" "$PROJECT" <<'PY'
import json, sys
out, project = sys.argv[1], sys.argv[2]
cwd = f"/home/dev/{project}"
common = {"session_id": "9f2c1a4e-5b6d-4c3e-8f7a-1b2c3d4e5f60",
          "transcript_path": "/home/dev/.claude/projects/x/9f2c1a4e.jsonl", "cwd": cwd}
log = "\n".join(f"2026-12-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z INFO worker {i}: job done in {i % 97} ms"
                for i in range(900))
cases = {
    "session-start": {"hook_event_name": "SessionStart", "source": "startup"},
    "prompt-match": {"hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                     "prompt": "docker ps says: Got permission denied while trying to connect to the "
                               "Docker daemon socket at unix:///var/run/docker.sock"},
    "prompt-nothing": {"hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                       "prompt": "rename the cart total to subtotal everywhere and update the tests"},
    "prompt-paste": {"hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                     "prompt": "the deploy log, why does it stop?\n" + log[:64 * 1024]},
    "pre-tool": {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                 "tool_input": {"command": "git push -f origin main"}},
}
for name, fields in cases.items():
    with open(f"{out}/{name}.json", "w") as f:
        json.dump({**common, **fields}, f)
PY

# The warned command: the first L1 learning's own command, whatever gen made of it.
WARNED=$(python3 - "$LEARNSYNC_DIR" <<'PY'
import glob, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/a*/*.md")):
    text = open(path).read()
    if "\ncorrection: null" in text or "\noriginal_command: null" in text:
        continue
    for line in text.splitlines():
        if line.startswith("original_command: "):
            value = line[len("original_command: "):]
            if value.startswith('"'):
                import json
                value = json.loads(value)
            print(value)
            sys.exit(0)
PY
)
python3 - "$PAYLOADS/pre-tool.json" "$WARNED" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["tool_input"]["command"] = sys.argv[2]
json.dump(p, open(sys.argv[1], "w"))
PY

# What each case prints, once, so the figures are of the path they name.
for name in session-start prompt-match prompt-nothing prompt-paste pre-tool; do
  bytes=$("$BIN" capture --format claude <"$PAYLOADS/$name.json" | wc -c)
  say "$name prints $bytes bytes"
done

if hyperfine --help | grep -q -- '--input'; then
  MODE="stdin (--input)"
else
  MODE="argument (hyperfine $(hyperfine --version | cut -d' ' -f2) has no --input)"
fi
say "payload fed by $MODE"

# One hyperfine run: cat and capture on the same payload.
time_case() {
  local name="$1" file="$PAYLOADS/$1.json"
  if [ "$MODE" = "stdin (--input)" ]; then
    hyperfine -N --warmup 10 --runs "$RUNS" --input "$file" --export-json "$WORK/$name.result" \
      --command-name cat "cat" \
      --command-name capture "$BIN capture --format claude" >&2
  else
    # hyperfine -N splits the command line like a shell: quote the JSON once.
    local quoted
    quoted=$(python3 -c 'import shlex,sys; print(shlex.quote(open(sys.argv[1]).read()))' "$file")
    hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$WORK/$name.result" \
      --command-name cat "cat $file" \
      --command-name capture "$BIN capture --format claude $quoted" >&2
  fi
}
for name in session-start prompt-match prompt-nothing prompt-paste pre-tool; do
  say "timing $name"
  time_case "$name"
done

echo "# Context hooks: added latency"
echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $N learnings (project \`$PROJECT\`); payload by $MODE;"
echo "learnsync $(git -C "$ROOT" rev-parse --short HEAD). Medians of $RUNS runs; added = capture - cat."
echo
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
cases = [
    ("session-start", "(a) SessionStart: context block", 50),
    ("prompt-match", "(b) UserPromptSubmit: confident match", 20),
    ("prompt-nothing", "(c) UserPromptSubmit: nothing matches", 20),
    ("prompt-paste", "(d) UserPromptSubmit: 64 KiB pasted log", None),
    ("pre-tool", "(e) PreToolUse: warning (for reference)", None),
]
print("| case | capture median | cat median | added | p95 | target |")
print("|---|---:|---:|---:|---:|---|")
ok = True
for name, label, limit in cases:
    r = {x["command"]: x for x in json.load(open(f"{work}/{name}.result"))["results"]}
    cap, cat = r["capture"], r["cat"]
    med = cap["median"] * 1e3
    times = sorted(cap["times"])
    p95 = times[int(0.95 * (len(times) - 1))] * 1e3
    verdict = ""
    if limit is not None:
        good = med <= limit
        ok &= good
        verdict = f"<= {limit} ms " + ("ok" if good else "MISSED")
    print(f"| {label} | {med:.2f} ms | {cat['median']*1e3:.2f} ms | {med - cat['median']*1e3:.2f} ms "
          f"| {p95:.2f} ms | {verdict} |")
sys.exit(0 if ok else 3)
PY
