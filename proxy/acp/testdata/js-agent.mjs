// An ACP agent on the official TypeScript SDK (@agentclientprotocol/sdk),
// for swetouch's relay tests. Each prompt is one command:
//   read PATH LINE LIMIT   read through the editor (fs/read_text_file), say the text
//   big PATH               read a (large) file through the editor, say its size
//   write PATH TEXT        write through the editor (fs/write_text_file)
//   shell CMD              run CMD with bash -c itself, say its output
//   term CMD               run CMD with bash -c in an editor terminal, say its output
//   wait                   say "waiting", then run until session/cancel
//   anything else          say "heard: TEXT"
// It copies the bytes it receives to $JS_AGENT_LOG.
// Usage: node js-agent.mjs SDK_DIR
import { pathToFileURL } from "node:url";
import { Readable, Transform, Writable } from "node:stream";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const sdk = process.argv[2];
const acp = await import(pathToFileURL(path.join(sdk, "dist/v1/stable/acp.js")).href);
const { methods } = acp;

const cancels = new Map(); // session → resolve of the waiting turn
let cwd = "/";

const say = (client, sessionId, text) =>
  client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });

const app = acp.agent({ name: "swetouch-js-agent" })
  .onRequest(methods.agent.initialize, ({ params }) => {
    return { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] };
  })
  .onRequest(methods.agent.session.new, ({ params }) => {
    cwd = params.cwd;
    return { sessionId: "js-1" };
  })
  .onNotification(methods.agent.session.cancel, ({ params }) => {
    cancels.get(params.sessionId)?.();
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const text = params.prompt.map((b) => b.text ?? "").join("");
    const [verb, ...rest] = text.split(" ");
    const abs = (p) => path.join(cwd, p);
    switch (verb) {
      case "read": {
        const [p, line, limit] = rest;
        const r = await client.request(methods.client.fs.readTextFile, { sessionId, path: abs(p), line: +line, limit: +limit });
        await say(client, sessionId, r.content);
        break;
      }
      case "big": {
        const r = await client.request(methods.client.fs.readTextFile, { sessionId, path: abs(rest[0]) });
        await say(client, sessionId, `read ${r.content.length} characters`);
        break;
      }
      case "write": {
        const [p, ...words] = rest;
        await client.request(methods.client.fs.writeTextFile, { sessionId, path: abs(p), content: words.join(" ") + "\n" });
        await say(client, sessionId, `wrote ${p}`);
        break;
      }
      case "shell": {
        const out = execFileSync("bash", ["-c", rest.join(" ")], { cwd, encoding: "utf8" });
        await say(client, sessionId, out);
        break;
      }
      case "term": {
        const term = await client.createTerminal({ sessionId, command: "bash", args: ["-c", rest.join(" ")], cwd });
        const exit = await term.waitForExit();
        const out = await term.currentOutput();
        await term.release();
        await say(client, sessionId, `exit ${exit.exitCode}: ${out.output}`);
        break;
      }
      case "wait": {
        const cancelled = new Promise((resolve) => cancels.set(sessionId, resolve));
        await say(client, sessionId, "waiting");
        await cancelled;
        cancels.delete(sessionId);
        return { stopReason: "cancelled" };
      }
      default:
        await say(client, sessionId, `heard: ${text}`);
    }
    return { stopReason: "end_turn" };
  });

const raw = process.env.JS_AGENT_LOG;
const input = raw ? process.stdin.pipe(new Transform({
  transform(chunk, _enc, done) { fs.appendFileSync(raw, chunk); done(null, chunk); },
})) : process.stdin;
const conn = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(input)));
await conn.closed;
