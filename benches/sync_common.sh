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
# Building a bench target builds the learnsync binary too, with the
# dev-dependencies' features: other symbol names (so not the layout of
# linker/text-order.txt) and the same path, target/release/learnsync. So a
# given binary is copied aside first, and our own release build comes last.
mkdir -p "$WORK/bin"
# A copy in $WORK/bin (renamed into place: an earlier run's copy may still
# be running, a watcher a timed sync started).
keep_bin() {
    cp "$1" "$WORK/bin/.$2.tmp" && mv -f "$WORK/bin/.$2.tmp" "$WORK/bin/$2" ||
        die "cannot copy $1 to $WORK/bin"
}
if [ -n "${LEARNSYNC_BIN:-}" ]; then
    keep_bin "$LEARNSYNC_BIN" learnsync
    say "timing $LEARNSYNC_BIN (copied to $WORK/bin); building the fixture generator"
else
    say "building the fixture generator and learnsync (release)"
fi
if [ -n "${COMPARE_BIN:-}" ]; then
    keep_bin "$COMPARE_BIN" learnsync-compare
    COMPARE_BIN="$WORK/bin/learnsync-compare"
fi
GEN=$(cargo bench --bench sync_fixture --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "sync_fixture" and m.get("executable"):
        print(m["executable"])')
if [ -z "${LEARNSYNC_BIN:-}" ]; then
    cargo build --release --quiet
    keep_bin "$TARGET/release/learnsync" learnsync
fi
BIN="$WORK/bin/learnsync"
[ -x "$BIN" ] && [ -x "$GEN" ] || die "build failed"
