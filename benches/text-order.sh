#!/usr/bin/env bash
# Makes linker/text-order.txt, the order in which the release build lays out
# the functions the common commands run (build.rs; benches/README.md, "Code
# layout"): each workload below runs once under valgrind's callgrind, and the
# functions they ran are listed grouped by which of the three workloads (the
# capture hook, the context hooks, a sync) ran each, in an order that keeps
# the capture hook's groups together and a sync's together.
#
# Usage: [LEARNSYNC_BIN=path] benches/text-order.sh [FIXTURE...]
#        [LEARNSYNC_BIN=path] benches/text-order.sh --check
#   FIXTURE: a `benches/sync.sh` fixture dir (e.g. target/sync-bench-own/n10000):
#   a sync of a copy of its clone/ (and of fresh/, when there is one) is traced
#   too, the large-dir paths a small team does not reach (the processes it
#   starts detached, a watcher and the indexes' first build, are not traced).
#   Needs valgrind and python3; takes a few minutes.
#   TRACES=dir keeps the traces (an empty or new dir); FROM_TRACES=1 with
#   TRACES makes the list from the traces there, nothing run.
#
# The names are the build's symbols: make the list from a release build of
# the commit that will ship (names hold a hash of the crate's build
# settings and version; a name the linker does not find is skipped, not an
# error).
set -euo pipefail

die() { echo "text-order.sh: $*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 is needed"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ -n "${LEARNSYNC_BIN:-}" ]; then
    BIN=$(cd "$(dirname "$LEARNSYNC_BIN")" && pwd)/$(basename "$LEARNSYNC_BIN")
else
    (cd "$ROOT" && cargo build --release --quiet)
    BIN=$TARGET/release/learnsync
fi

# --check: how much of the list the build holds, and whether it is laid out
# together (the span of its functions' addresses against their total size).
if [ "${1:-}" = --check ]; then
    python3 - "$BIN" "$ROOT/linker/text-order.txt" <<'PY'
import subprocess, sys
binary, order = sys.argv[1:]
text = {}
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[2] in "tTwW":
        text[p[3]] = (int(p[0], 16), int(p[1], 16))
names = [l.strip() for l in open(order) if l.strip() and not l.startswith("#")]
held = [text[n] for n in names if n in text]
if not held:
    sys.exit(f"none of the {len(names)} listed functions is in {binary}: make the list again")
size = sum(s for _, s in held)
span = max(a + s for a, s in held) - min(a for a, _ in held)
print(f"{len(held)} of {len(names)} listed functions in the build, {size / 1e6:.2f} MB of code "
      f"over {span / 1e6:.2f} MB of addresses ({'laid out together' if span < 1.2 * size else 'NOT laid out together'})")
if len(held) < 0.9 * len(names):
    print(f"the list is stale for this build ({len(names) - len(held)} names missing): a build of "
          "another compiler, version or dependency set (a build of the benches or tests has "
          "their features) has other names; make the list again from a plain release build")
    sys.exit(1)
sys.exit(0 if span < 1.2 * size else 1)
PY
    exit
fi
command -v valgrind >/dev/null || die "valgrind is not installed (apt-get install valgrind)"
for f in "$@"; do [ -d "$f/clone" ] || die "$f is not a benches/sync.sh fixture (no clone/)"; done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/text-order.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" LEARNSYNC_DIR="$WORK/learnings" HOSTNAME=order
export GIT_CONFIG_GLOBAL="$WORK/home/gitconfig" GIT_CONFIG_NOSYSTEM=1
unset XDG_CONFIG_HOME XDG_DATA_HOME LEARNSYNC_AGENT TERRAPHIM_LEARNINGS_DIR LEARNSYNC_LOG
if [ "${FROM_TRACES:-0}" = 1 ]; then
    [ -n "${TRACES:-}" ] && [ -d "$TRACES" ] || die "FROM_TRACES=1 needs TRACES, the dir of an earlier run's traces"
elif [ -n "${TRACES:-}" ] && [ -n "$(ls -A "$TRACES" 2>/dev/null)" ]; then
    die "TRACES=$TRACES holds files already (an earlier run's traces would mix in): name an empty dir"
fi
TRACES=${TRACES:-$WORK/cg}
mkdir -p "$HOME" "$TRACES"
git config --file "$GIT_CONFIG_GLOBAL" user.name "text order"
git config --file "$GIT_CONFIG_GLOBAL" user.email "order@learnsync.invalid"
# The long commands re-execute themselves with these allocator settings
# (src/cli/allocator.rs, SETTINGS: keep the two equal); set already, they
# run in the traced process.
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576:glibc.malloc.arena_max=2

step=0
# trace WORKLOAD CMD... (stdin passed on): one traced run of WORKLOAD
# (capture, hooks or sync).
trace() {
    local group=$1
    shift
    step=$((step + 1))
    valgrind -q --tool=callgrind --demangle=no --trace-children=no \
        --callgrind-out-file="$TRACES/$group.$step.%p" "$@" >/dev/null 2>>"$WORK/valgrind.log" ||
        echo "text-order.sh: warning: $* exited $? under valgrind (its functions are listed all the same)" >&2
}
say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

workloads() {
    say "the capture hook"
    git init -q --bare "$WORK/hub.git"
    "$BIN" init --agent order --remote "hub=$WORK/hub.git" >/dev/null
    "$BIN" sync --no-fetch --no-push -q
    S='"session_id":"order-1","cwd":"/home/dev/shop"'
    printf '{%s,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git status --short"},"tool_response":{"stdout":" M src/cart.rs\\n","stderr":"","interrupted":false}}' "$S" >"$WORK/success.json"
    printf '{%s,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"git push -f origin main"},"error":"Exit code 1\\n ! [remote rejected] main -> main (protected branch hook declined)\\nerror: failed to push some refs"}' "$S" >"$WORK/failure.json"
    printf '{%s,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git push origin main"},"tool_response":{"stdout":"","stderr":"","interrupted":false}}' "$S" >"$WORK/fixed.json"
    trace capture "$BIN" capture <"$WORK/success.json"
    trace capture "$BIN" capture <"$WORK/failure.json"
    trace capture "$BIN" capture <"$WORK/failure.json"
    trace capture "$BIN" capture <"$WORK/fixed.json"
    for n in 1 2 3; do
        "$BIN" add --title "tool$n deploy fails without --region" --command "tool$n deploy --prod" \
            --correction "tool$n deploy --prod --region eu-west-$n" >/dev/null
    done
    "$BIN" sync --no-fetch --no-push -q
    pre='{"session_id":"order-2","cwd":"/home/dev/shop","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"tool1 deploy --prod"}}'
    trace capture "$BIN" capture <<<"$pre"
    sed 's/order-1/order-2/' "$WORK/success.json" >"$WORK/shown.json"
    trace capture "$BIN" capture <"$WORK/shown.json"

    say "the context hooks"
    hook() { printf '{"session_id":"order-3","cwd":"/home/dev/shop","transcript_path":"/tmp/t.jsonl",%s}' "$1"; }
    trace hooks "$BIN" capture --format claude <<<"$(hook '"hook_event_name":"SessionStart","source":"startup"')"
    trace hooks "$BIN" capture --format claude <<<"$(hook '"hook_event_name":"UserPromptSubmit","prompt":"tool2 deploy says the region is missing"')"
    trace hooks "$BIN" capture --format claude <<<"$(hook '"hook_event_name":"UserPromptSubmit","prompt":"rename the cart total to subtotal everywhere"')"
    trace hooks "$BIN" capture --format claude <<<"$(hook '"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"tool3 deploy --prod"}}')"
    trace hooks "$BIN" suggest --json "tool1 deploy fails"

    say "a small team's syncs"
    "$BIN" --dir "$WORK/b" init --agent peer --remote "hub=$WORK/hub.git" >/dev/null
    "$BIN" --dir "$WORK/b" add --title "make test needs the docker daemon" --command "make test" \
        --correction "sudo systemctl start docker && make test" >/dev/null
    "$BIN" --dir "$WORK/b" sync -q
    trace sync "$BIN" sync
    "$BIN" --dir "$WORK/b" sync -q
    trace sync "$BIN" sync
    trace sync "$BIN" status

    for f in "$@"; do
        f=$(cd "$f" && pwd)
        for src in clone fresh; do
            [ -d "$f/$src" ] || continue
            say "a sync of $f/$src"
            if [ -x "$f/prepare.sh" ]; then
                "$f/prepare.sh" "$WORK/run" "$f/$src" >/dev/null || die "$f/prepare.sh failed"
            else
                cp -a "$f/$src" "$WORK/run"
            fi
            HOME="$(dirname "$f")/home" GIT_CONFIG_GLOBAL="$(dirname "$f")/home/gitconfig" \
                trace sync "$BIN" --dir "$WORK/run" sync
            "$BIN" --dir "$WORK/run" -q watch --stop >/dev/null 2>&1 || true
            # A first sync leaves the indexes' first build to a detached process.
            local pending="$WORK/run/.git/learnsync/index-build-pending"
            while [ -f "$pending" ] && kill -0 "$(cat "$pending" 2>/dev/null)" 2>/dev/null; do sleep 0.1; done
            rm -rf "$WORK/run"
        done
    done
}

[ "${FROM_TRACES:-0}" = 1 ] || workloads "$@"
say "writing linker/text-order.txt"
python3 - "$BIN" "$TRACES" "$ROOT/linker/text-order.txt" <<'PY'
import os, re, subprocess, sys
binary, traces, out = sys.argv[1:]
# The binary's functions (what the linker can order), by symbol name.
text = {}
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[2] in "tTwW":
        text[p[3]] = int(p[1], 16)
# Which workloads ran each function (c: the capture hook, h: the context
# hooks, s: a sync) and in how many of each one's traces.
ran = {}
for name in os.listdir(traces):
    workload = name.split(".")[0]
    if workload not in ("capture", "hooks", "sync"):
        continue
    workload = workload[0]
    fns = set()
    for line in open(os.path.join(traces, name), errors="replace"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if m and m.group(1) in text:
            fns.add(m.group(1))
    for fn in fns:
        counts = ran.setdefault(fn, {})
        counts[workload] = counts.get(workload, 0) + 1
# Functions grouped by the workloads that run them, the groups in an order
# that keeps each of the capture hook's and each of a sync's together:
# either touches its groups' pages and no others.
order = ["h", "ch", "c", "cs", "chs", "hs", "s"]
groups = {}
for fn, by in ran.items():
    groups.setdefault("".join(w for w in "chs" if w in by), []).append(fn)
if not groups:
    sys.exit(f"no traced function of {binary} in {traces}: nothing written")
with open(out, "w") as f:
    f.write("# The functions the common commands run, in the order the release build\n"
            "# lays them out (build.rs), grouped by what runs them: c = the capture\n"
            "# hook, h = the context hooks, s = a sync. Made by benches/text-order.sh;\n"
            "# do not edit.\n")
    for key in order:
        # Within a group, what most runs of its workload run comes first
        # (a sync's common path before a first sync's or a large dir's).
        lead = "s" if "s" in key else key[0]
        names = sorted(groups.get(key, []), key=lambda n: (-ran[n].get(lead, 0), n))
        f.write(f"# {key}: {len(names)} functions, {sum(text[n] for n in names) / 1e6:.2f} MB\n")
        f.writelines(n + "\n" for n in names)
listed = sum(len(v) for v in groups.values())
size = sum(text[n] for v in groups.values() for n in v)
print(f"{listed} of {len(text)} functions listed, {size / 1e6:.2f} of {sum(text.values()) / 1e6:.2f} MB of code", file=sys.stderr)
PY
