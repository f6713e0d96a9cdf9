// learnsync-managed-plugin: written by `learnsync hooks install opencode`.
// `learnsync hooks uninstall opencode` removes this file; edits are lost on reinstall.
//
// Forwards every finished bash call (opencode's `tool.execute.after`) to
// `learnsync capture --format opencode` on stdin, as one JSON document:
//
//   {"source":"opencode","hook":"tool.execute.after","cwd":"…",
//    "input":{"tool":"bash","sessionID":"…","callID":"…","args":{"command":"…"}},
//    "output":{"title":"…","output":"…","metadata":{"exit":1,…}}}
//
// It never throws and never waits for learnsync: a capture problem must not
// slow down or break the agent.

import { spawn } from "node:child_process";

const LEARNSYNC_BIN = "__LEARNSYNC_BIN__";
const SHELL_TOOLS = new Set(["bash", "shell"]);
const MAX_OUTPUT = 64 * 1024;

function tail(text) {
  if (typeof text !== "string") return text ?? null;
  return text.length > MAX_OUTPUT ? text.slice(text.length - MAX_OUTPUT) : text;
}

function metadataOf(output) {
  const meta = output && typeof output.metadata === "object" && output.metadata !== null ? output.metadata : {};
  // opencode's bash tool reports `exit`; keep the other spellings if a version uses them.
  const out = {};
  for (const key of ["exit", "exitCode", "exit_code", "description", "truncated"]) {
    if (key in meta) out[key] = meta[key];
  }
  return out;
}

function forward(payload) {
  try {
    const child = spawn(LEARNSYNC_BIN, ["capture", "--format", "opencode"], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.unref();
  } catch {
    // learnsync missing or not runnable: capture is best effort.
  }
}

export const LearnsyncPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  return {
    "tool.execute.after": async (input, output) => {
      try {
        if (!input || !SHELL_TOOLS.has(String(input.tool).toLowerCase())) return;
        forward({
          source: "opencode",
          hook: "tool.execute.after",
          cwd,
          input: {
            tool: input.tool,
            sessionID: input.sessionID ?? null,
            callID: input.callID ?? null,
            args: { command: input.args?.command ?? null, description: input.args?.description ?? null },
          },
          output: {
            title: output?.title ?? null,
            output: tail(output?.output ?? output?.metadata?.output ?? null),
            metadata: metadataOf(output),
          },
        });
      } catch {
        // never let the agent see an error from this plugin
      }
    },
  };
};
