// A session with the official TypeScript SDK client, printed as JSON lines
// so a test can compare it direct and through the relay. Usage:
//   node ts-client.mjs SDK_DIR COMMAND ARGS...
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdk, command, ...args] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdk, "dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const client = new Client({ name: "swetouch-ts-test", version: "1" }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const out = (kind, v) => console.log(JSON.stringify({ kind, v }));

const tools = await client.listTools();
out("tools", tools.tools.map((t) => t.name).sort());
let progress = 0;
const long = await client.callTool(
  { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
  undefined,
  { onprogress: () => { progress++; } },
);
// how many progress notifications land before the result is a race in
// the server (the last one and the result leave together): compare "some"
out("long", { content: long.content, progress: progress > 0 });
out("echo", await client.callTool({ name: "echo", arguments: { message: "a\u2028b \"q\" ü" } }));
out("sum", await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } }));
try {
  await client.callTool({ name: "no-such-tool", arguments: {} });
  out("missing", "no error");
} catch (e) {
  out("missing", String(e.code ?? e.message));
}
await client.close();
