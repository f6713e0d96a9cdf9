// learnsync-managed-plugin: written by `learnsync hooks install opencode`.
// `learnsync hooks uninstall opencode` removes this file; edits are lost on reinstall.
//
// Four things, all through `learnsync capture --format opencode` (one JSON
// document on stdin each):
//
// * every bash call about to run (`tool.execute.before`) is asked about, and
//   waited for (at most WAIT_MS):
//     {"source":"opencode","hook":"tool.execute.before","cwd":"…",
//      "input":{"tool":"bash","sessionID":"…","callID":"…","args":{"command":"…"}}}
//   learnsync answers `{"learnsync":"deny","reason":"…"}` when people approved
//   a learning saying the command fails (the plugin throws with the reason,
//   so the command does not run), or `{"learnsync":"warn","context":"…"}`
//   (added to the session's next model call), or nothing;
// * every finished bash call (`tool.execute.after`) is forwarded, detached,
//   without waiting:
//     {"source":"opencode","hook":"tool.execute.after","cwd":"…",
//      "input":{"tool":"bash","sessionID":"…","callID":"…","args":{"command":"…"}},
//      "output":{"title":"…","output":"…","metadata":{"exit":1,…}}}
// * every user message (`chat.message`) is sent as
//     {"source":"opencode","hook":"chat.message","cwd":"…","input":{"sessionID":"…"},"prompt":"…"}
//   and, at a session's first message, the session is announced once as
//     {"source":"opencode","hook":"session.start","cwd":"…","input":{"sessionID":"…"}};
//   the plugin waits for these (at most WAIT_MS) and keeps what learnsync
//   prints: the session's learnings and a confident match for the message;
// * `experimental.chat.system.transform` adds what was kept for the session
//   to the system prompt of its model calls (opencode versions without this
//   hook ignore it: the messages are still captured, nothing is added).
//
// It throws only to deny a command as above: a learnsync problem must not
// slow down or break the agent beyond WAIT_MS.

import { spawn } from "node:child_process";

const LEARNSYNC_BIN = "__LEARNSYNC_BIN__";
const SHELL_TOOLS = new Set(["bash", "shell"]);
const MAX_OUTPUT = 64 * 1024;
const MAX_PROMPT = 256 * 1024;
const MAX_REPLY = 16 * 1024;
const WAIT_MS = 3000;
const MAX_SESSIONS = 64;

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

// Runs a capture and resolves with what it printed ("" on any problem or
// after WAIT_MS); never rejects.
function ask(payload) {
  return new Promise((resolve) => {
    let done = false;
    let out = "";
    let child;
    const finish = (text) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(text.trim());
    };
    const timer = setTimeout(() => {
      try {
        child?.kill();
      } catch {}
      finish("");
    }, WAIT_MS);
    try {
      child = spawn(LEARNSYNC_BIN, ["capture", "--format", "opencode"], {
        stdio: ["pipe", "pipe", "ignore"],
      });
      child.on("error", () => finish(""));
      child.stdin.on("error", () => {});
      child.stdout.on("data", (chunk) => {
        if (out.length < MAX_REPLY) out += chunk.toString("utf8");
      });
      child.on("close", (code) => finish(code === 0 ? out.slice(0, MAX_REPLY) : ""));
      child.stdin.end(JSON.stringify(payload));
    } catch {
      finish("");
    }
  });
}

function promptText(parts) {
  if (!Array.isArray(parts)) return "";
  const text = parts
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
  return text.length > MAX_PROMPT ? text.slice(0, MAX_PROMPT) : text;
}

export const LearnsyncPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  // sessionID → { context, suggestion }: what the next model calls are told.
  const sessions = new Map();

  function sessionState(sessionID) {
    let state = sessions.get(sessionID);
    if (state) return { state, fresh: false };
    state = { context: "", suggestion: "" };
    sessions.set(sessionID, state);
    if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value);
    return { state, fresh: true };
  }

  return {
    "tool.execute.before": async (input, output) => {
      let verdict = null;
      try {
        if (!input || !SHELL_TOOLS.has(String(input.tool).toLowerCase())) return;
        const command = output?.args?.command ?? input.args?.command ?? null;
        if (typeof command !== "string" || !command.trim()) return;
        const reply = await ask({
          source: "opencode",
          hook: "tool.execute.before",
          cwd,
          input: {
            tool: input.tool,
            sessionID: input.sessionID ?? null,
            callID: input.callID ?? null,
            args: { command },
          },
        });
        if (reply) verdict = JSON.parse(reply);
        if (verdict?.learnsync === "warn" && typeof verdict.context === "string" && input.sessionID) {
          sessionState(input.sessionID).state.suggestion = verdict.context;
        }
      } catch {
        // never let the agent see an error from this plugin, but a denial
        return;
      }
      if (verdict?.learnsync === "deny" && typeof verdict.reason === "string") {
        throw new Error(verdict.reason);
      }
    },
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
    "chat.message": async (input, output) => {
      try {
        const sessionID = input?.sessionID ?? output?.message?.sessionID ?? null;
        if (!sessionID) return;
        const { state, fresh } = sessionState(sessionID);
        state.suggestion = "";
        const asks = [];
        if (fresh) {
          asks.push(
            ask({ source: "opencode", hook: "session.start", cwd, input: { sessionID } }).then((text) => {
              state.context = text;
            }),
          );
        }
        const prompt = promptText(output?.parts);
        if (prompt.trim()) {
          asks.push(
            ask({ source: "opencode", hook: "chat.message", cwd, input: { sessionID }, prompt }).then((text) => {
              state.suggestion = text;
            }),
          );
        }
        await Promise.all(asks);
      } catch {
        // never let the agent see an error from this plugin
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      try {
        const state = sessions.get(input?.sessionID);
        if (!state || !Array.isArray(output?.system)) return;
        for (const text of [state.context, state.suggestion]) {
          if (text) output.system.push(text);
        }
      } catch {
        // never let the agent see an error from this plugin
      }
    },
  };
};
