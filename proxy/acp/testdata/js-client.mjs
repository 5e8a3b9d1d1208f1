// An editor on the official TypeScript SDK (@agentclientprotocol/sdk), for
// swetouch's relay tests. It starts the agent command, serves its file
// reads and writes from disk, opens a session in WORKSPACE and sends each
// prompt of the scenario in turn; a prompt "wait" is cancelled once the
// agent has said something. It prints what it saw as JSON lines: every
// session/update, every fs request (paths relative to WORKSPACE), and
// each prompt's stop reason (the SDK hands updates and responses over in
// an order of its own: compare these as sets). It copies the bytes the
// agent sends to $JS_CLIENT_LOG, which is the exact record.
// Terminals run their command as a child process.
// Usage: node js-client.mjs SDK_DIR WORKSPACE SCENARIO_JSON COMMAND ARGS...
import { pathToFileURL } from "node:url";
import { Readable, Transform, Writable } from "node:stream";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const [sdk, ws, scenario, command, ...args] = process.argv.slice(2);
const acp = await import(pathToFileURL(path.join(sdk, "dist/v1/stable/acp.js")).href);
const { methods } = acp;
const out = (kind, v) => console.log(JSON.stringify({ kind, v }));
const rel = (p) => path.relative(ws, p);

const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
let spoke = null; // resolves at the agent's first update of a turn
const terminals = new Map(); // id → {output, exited: Promise}
let nextTerminal = 0;

const app = acp.client({ name: "swetouch-js-client" })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    out("fs/read_text_file", { path: rel(params.path), line: params.line, limit: params.limit });
    let lines = fs.readFileSync(params.path, "utf8").split(/(?<=\n)/);
    if (params.line) lines = lines.slice(params.line - 1);
    if (params.limit) lines = lines.slice(0, params.limit);
    return { content: lines.join("") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    out("fs/write_text_file", { path: rel(params.path), content: params.content });
    fs.writeFileSync(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.terminal.create, ({ params }) => {
    out("terminal/create", { command: params.command, args: params.args, cwd: rel(params.cwd) });
    const id = `t${++nextTerminal}`;
    const p = spawn(params.command, params.args ?? [], { cwd: params.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const t = { output: "" };
    p.stdout.on("data", (d) => { t.output += d; });
    p.stderr.on("data", (d) => { t.output += d; });
    t.exited = new Promise((resolve) => p.on("close", (code, signal) => resolve({ exitCode: code, signal })));
    terminals.set(id, t);
    return { terminalId: id };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exited)
  .onRequest(methods.client.terminal.output, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    return { output: t.output, truncated: false, exitStatus: await t.exited };
  })
  .onRequest(methods.client.terminal.release, ({ params }) => { terminals.delete(params.terminalId); return {}; })
  .onRequest(methods.client.session.requestPermission, ({ params }) => ({
    outcome: { outcome: "selected", optionId: params.options[0].optionId },
  }))
  .onNotification(methods.client.session.update, ({ params }) => {
    const u = params.update;
    const text = u.content?.text;
    out(u.sessionUpdate, text && text.length > 4096 ? `${text.length} characters` : text);
    spoke?.();
  });

const raw = process.env.JS_CLIENT_LOG;
const input = raw ? child.stdout.pipe(new Transform({
  transform(chunk, _enc, done) { fs.appendFileSync(raw, chunk); done(null, chunk); },
})) : child.stdout;
await app.connectWith(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(input)), async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  out("initialize", init.protocolVersion);
  const sess = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
  out("session/new", sess.sessionId);
  for (const text of JSON.parse(scenario)) {
    const spoken = new Promise((resolve) => { spoke = resolve; });
    const turn = ctx.request(methods.agent.session.prompt, { sessionId: sess.sessionId, prompt: [{ type: "text", text }] });
    if (text === "wait") {
      await spoken;
      await ctx.notify(methods.agent.session.cancel, { sessionId: sess.sessionId });
    }
    out("stop", (await turn).stopReason);
  }
});
child.stdin.end();
await new Promise((resolve) => child.on("exit", resolve));
