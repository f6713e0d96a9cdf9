# Shared by benches/sync.sh and benches/hub_growth.sh (sourced, not run):
# a hermetic environment under $WORK, and the learnsync binary ($BIN) and
# fixture generator ($GEN) to time. Needs $WORK, $TARGET, `say` and `die`.

# Hermetic git and learnsync: no user config, a fixed identity (cargo keeps its own).
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL="$WORK/home/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --file "$GIT_CONFIG_GLOBAL" user.name "learnsync bench"
git config --file "$GIT_CONFIG_GLOBAL" user.email "bench@learnsync.invalid"
git config --file "$GIT_CONFIG_GLOBAL" init.defaultBranch main
unset LEARNSYNC_DIR TERRAPHIM_LEARNINGS_DIR LEARNSYNC_LOG GIT_DIR GIT_WORK_TREE

# The binary: $LEARNSYNC_BIN, else a release build; and the generator.
if [ -n "${LEARNSYNC_BIN:-}" ]; then
    BIN=$(cd "$(dirname "$LEARNSYNC_BIN")" && pwd)/$(basename "$LEARNSYNC_BIN")
    say "timing $BIN; building the fixture generator"
else
    say "building learnsync (release) and the fixture generator"
    cargo build --release --quiet
    BIN="$TARGET/release/learnsync"
fi
GEN=$(cargo bench --bench sync_fixture --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "sync_fixture" and m.get("executable"):
        print(m["executable"])')
[ -x "$BIN" ] && [ -x "$GEN" ] || die "build failed"
