// The official TypeScript MCP SDK client, driven by `make conformance`
// (package conformance): it reads a plan as one line of JSON on stdin,
// connects to `waitsim serve` over stdio (plan.command) or streamable HTTP
// (plan.url, perhaps through a proxy), warms up with tools/list, writes
// "ready" on stdout and waits for a "go" line on stdin (so that every client
// of a case starts together), then runs the plan's callers in parallel and
// writes what each call saw as one line of JSON on stdout, with the start's
// wall-clock instant (startUnixMs) and its own largest stall (stallMs). Times
// are ms since "go" (with plan.reconnect: since the fresh session's connect
// after it).
//
// What ends a call (its cause): the reply ("received"), the client's own
// request timeout (-32001: "timeout"), a 504 from a proxy before the
// response's headers ("504"), or nothing by plan.deadlineMs: the call is
// still pending then ("hang"). A stream cut after its headers is not an end
// for this client (it reconnects only with an event id; its transport reports
// "SSE stream disconnected"): the fetch below watches the SSE response of
// every tools/call POST and keeps the instant its body failed as cutAtMs of
// the call pending then (the standalone GET stream's cuts are not a call's).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";

const TOOL = "orchestration_wait_agents";
const DEFAULT_REQUEST_TIMEOUT_MS = 60000; // the SDK's own default
const NO_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout's largest delay
const CLOSE_WAIT_MS = 2000; // bound on client.close() before the output is written
// stderrWritten settles when a stdio server's stderr is all in its log file
// (its last line, `waitsim serve --probe`'s, comes as it exits).
let stderrWritten;

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const plan = JSON.parse((await lines.next()).value);

let t0;
const since = () => performance.now() - t0;
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const transportErrors = []; // {atMs, message} after the start
const callCuts = []; // {atMs, message}: a tools/call POST's SSE body failed after its headers

// watchingFetch is fetch, and the SSE body of a tools/call POST's response
// is passed through unchanged but for a note of the instant it fails.
async function watchingFetch(url, init) {
  const res = await fetch(url, init);
  let call = false;
  if (init?.method === "POST" && typeof init.body === "string") {
    try {
      call = JSON.parse(init.body)?.method === "tools/call";
    } catch {}
  }
  if (!call || !res.body || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res;
  const reader = res.body.getReader();
  const body = new ReadableStream({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        if (t0 !== undefined) callCuts.push({ atMs: since(), message: String(e?.message ?? e) });
        controller.error(e);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

function connectTo() {
  let transport;
  if (plan.url) {
    transport = new StreamableHTTPClientTransport(new URL(plan.url), { fetch: watchingFetch });
  } else {
    transport = new StdioClientTransport({ command: plan.command[0], args: plan.command.slice(1), stderr: "pipe" });
    if (plan.stderrFile && transport.stderr) {
      const file = createWriteStream(plan.stderrFile, { flags: "a" });
      stderrWritten = new Promise((resolve) => file.on("close", resolve));
      transport.stderr.pipe(file);
    }
  }
  // Set before connect: the SDK chains its own handler after this one.
  transport.onerror = (e) => {
    if (t0 !== undefined) transportErrors.push({ atMs: since(), message: String(e?.message ?? e) });
  };
  const client = new Client({ name: "waitsim-conformance-ts", version: "1" });
  client.onerror = () => {}; // reported through the transport's handler above
  return client.connect(transport).then(() => client);
}

let client = await connectTo();
await client.listTools(); // warm up: the first request loads code paths (and tools' output schemas)
if (plan.reconnect) await client.close();
process.stdout.write("ready\n");
if ((await lines.next()).value !== "go") process.exit(2);
if (plan.reconnect) {
  // A fresh session: its standalone stream opens as the callers start, as
  // in the simulation, however long the wait at the barrier was.
  client = await connectTo();
}

const calls = [];
let deadlineHit;
const deadline = new Promise((r) => (deadlineHit = r));

async function runCaller(spec) {
  const wait = (spec.startMs ?? 0) - since();
  if (wait > 0) await Promise.race([sleep(wait), deadline]);
  let args = { ...(spec.args ?? {}) };
  const maxCalls = spec.maxCalls || 50;
  for (let index = 1; index <= maxCalls; index++) {
    if (plan.deadlineMs && since() >= plan.deadlineMs) return;
    const cr = { caller: spec.name, index, args, startMs: since(), progressNotes: [] };
    const t = spec.requestTimeoutMs ?? 0;
    const opts = { timeout: t === 0 ? DEFAULT_REQUEST_TIMEOUT_MS : t < 0 ? NO_TIMEOUT_MS : Math.min(t, NO_TIMEOUT_MS) };
    // As the SDK's users write it: resetTimeoutOnProgress without an onprogress
    // handler sends no progress token, so it restarts nothing (contract §4).
    if (spec.progress) {
      opts.onprogress = (p) => cr.progressNotes.push({ atMs: since(), progress: p.progress, total: p.total });
    }
    if (spec.resetOnProgress) opts.resetTimeoutOnProgress = true;
    const call = client.callTool({ name: TOOL, arguments: args }, CallToolResultSchema, opts);
    call.catch(() => {}); // a call still pending at the deadline may settle after it
    try {
      const res = await Promise.race([call, deadline.then(() => "deadline")]);
      cr.endMs = since();
      if (res === "deadline") {
        cr.lost = true;
        cr.cause = "hang";
      } else if (res.isError) {
        cr.isError = true;
        cr.errorText = (res.content ?? []).map((c) => c.text ?? "").join("");
      } else {
        cr.reply = res.structuredContent;
      }
    } catch (e) {
      cr.endMs = since();
      if (e?.code === ErrorCode.RequestTimeout) {
        cr.lost = true;
        cr.cause = "timeout";
      } else if (e?.code === 504) {
        cr.lost = true; // StreamableHTTPError: the proxy answered 504 before the headers
        cr.cause = "504";
      } else cr.rpcError = String(e?.message ?? e);
    }
    const cut = callCuts.find((x) => x.atMs >= cr.startMs && x.atMs <= cr.endMs);
    if (cut) cr.cutAtMs = cut.atMs;
    calls.push(cr);
    const rep = cr.reply;
    if (!spec.follow || !rep || rep.done || rep.remainingMs === undefined) return;
    args = { ...args, timeoutMs: rep.remainingMs };
  }
}

// The client's own stalls: how late its event loop ran a timer after the
// start, sampled at the Go probes' step (plan.stallStepMs; no sampling
// without one); the runner scales its tolerance by them, as by its own
// probe's and the server's.
const stallStepMs = plan.stallStepMs > 0 ? Math.max(1, Math.round(plan.stallStepMs)) : 0;
const eventLoop = stallStepMs > 0 ? monitorEventLoopDelay({ resolution: stallStepMs }) : undefined;
eventLoop?.enable();

let out;
let startUnixMs;
try {
  eventLoop?.reset();
  t0 = performance.now();
  startUnixMs = Date.now();
  if (plan.deadlineMs) setTimeout(deadlineHit, plan.deadlineMs).unref();
  await Promise.all(plan.callers.map(runCaller));
  out = { calls };
} catch (e) {
  out = { calls, error: String(e?.stack ?? e) };
}
eventLoop?.disable();
out.startUnixMs = startUnixMs;
// The histogram's delays include its own resolution's wait: only the excess is a stall.
if (eventLoop?.count > 0) out.stallMs = Math.max(0, eventLoop.max / 1e6 - stallStepMs);
out.transportErrors = transportErrors;
await Promise.race([client.close().catch(() => {}), sleep(CLOSE_WAIT_MS)]);
if (stderrWritten) await Promise.race([stderrWritten, sleep(CLOSE_WAIT_MS)]);
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
