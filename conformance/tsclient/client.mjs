// The official TypeScript MCP SDK client, driven by `make conformance`
// (package conformance): it reads a plan as one line of JSON on stdin,
// connects to `waitsim serve` over stdio (plan.command) or streamable HTTP
// (plan.url), warms up with tools/list, writes "ready" on stdout and waits
// for a "go" line on stdin (so that every client of a case starts together),
// then runs the plan's callers in parallel and writes what each call saw as
// one line of JSON on stdout. Times are ms since "go".
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";

const TOOL = "orchestration_wait_agents";
const DEFAULT_REQUEST_TIMEOUT_MS = 60000; // the SDK's own default
const NO_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout's largest delay

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const plan = JSON.parse((await lines.next()).value);
let transport;
if (plan.url) {
  transport = new StreamableHTTPClientTransport(new URL(plan.url));
} else {
  transport = new StdioClientTransport({ command: plan.command[0], args: plan.command.slice(1), stderr: "pipe" });
  if (plan.stderrFile) transport.stderr?.pipe(createWriteStream(plan.stderrFile, { flags: "a" }));
}
const client = new Client({ name: "waitsim-conformance-ts", version: "1" });
await client.connect(transport);
await client.listTools(); // warm up: the first request loads code paths (and tools' output schemas)
process.stdout.write("ready\n");
if ((await lines.next()).value !== "go") process.exit(2);

let t0;
const since = () => performance.now() - t0;
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const calls = [];

async function runCaller(spec) {
  const wait = (spec.startMs ?? 0) - since();
  if (wait > 0) await sleep(wait);
  let args = { ...(spec.args ?? {}) };
  const maxCalls = spec.maxCalls || 50;
  for (let index = 1; index <= maxCalls; index++) {
    const cr = { caller: spec.name, index, args, startMs: since(), progressNotes: [] };
    const t = spec.requestTimeoutMs ?? 0;
    const opts = { timeout: t === 0 ? DEFAULT_REQUEST_TIMEOUT_MS : t < 0 ? NO_TIMEOUT_MS : t };
    // As the SDK's users write it: resetTimeoutOnProgress without an onprogress
    // handler sends no progress token, so it restarts nothing (contract §4).
    if (spec.progress) {
      opts.onprogress = (p) => cr.progressNotes.push({ atMs: since(), progress: p.progress, total: p.total });
    }
    if (spec.resetOnProgress) opts.resetTimeoutOnProgress = true;
    try {
      const res = await client.callTool({ name: TOOL, arguments: args }, CallToolResultSchema, opts);
      cr.endMs = since();
      if (res.isError) {
        cr.isError = true;
        cr.errorText = (res.content ?? []).map((c) => c.text ?? "").join("");
      } else {
        cr.reply = res.structuredContent;
      }
    } catch (e) {
      cr.endMs = since();
      if (e?.code === ErrorCode.RequestTimeout) cr.lost = true;
      else cr.rpcError = String(e?.message ?? e);
    }
    calls.push(cr);
    const rep = cr.reply;
    if (!spec.follow || !rep || rep.done || rep.remainingMs === undefined) return;
    args = { ...args, timeoutMs: rep.remainingMs };
  }
}

let out;
try {
  t0 = performance.now();
  await Promise.all(plan.callers.map(runCaller));
  out = { calls };
} catch (e) {
  out = { calls, error: String(e?.stack ?? e) };
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
