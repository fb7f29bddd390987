// make mcp-conformance: the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in conformance/mcp-suite/) against
// `waitsim serve` in each of its HTTP modes, on 127.0.0.1 with ports the
// kernel picks. Run by the Node 22 that conformance/mcp-suite installs (the
// suite needs fs.globSync):
//
//   node scripts/mcp-conformance.mjs --waitsim out/bin/waitsim --suite out/mcp-suite --out out/mcp-conformance
//
// For each mode it starts one `waitsim serve` (the modes side by side, each
// mode's scenarios one after another), runs each generic scenario of
// the suite against it (`conformance server --url … --scenario … -o …`),
// reads the checks.json the suite writes, and stops the server with SIGTERM
// (it must exit 0 and log no panic). A generic scenario passes when none of
// its checks is a FAILURE and each WARNING is one of NOT_SERVES (a warning
// the scenario or the mode causes, not serve: each with its reason). The
// scenarios that need what serve does not have (the "everything" server's
// test tools, prompts, resources, completions) are listed with the reason
// and not run. A scenario of the suite that is in neither list fails the run
// (a new version of the suite brought it: decide where it belongs).
//
// Exit: 0 every generic scenario passed in every mode; 1 one failed; 2 a
// setup error (no server URL, the suite not installed). Results:
// <out>/summary.json, the suite's checks.json under <out>/<mode>/<scenario>/,
// the servers' logs as <out>/<mode>/serve.log.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// The scenarios every MCP server can pass, whatever its tools.
const GENERIC = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "server-sse-polling",
];

// Warnings of generic scenarios that are not serve's: [scenario, check id,
// the modes where it is expected, why].
const STATELESS = ["stateless-sse", "stateless-json"];
const NOT_SERVES = [
  ["server-sse-polling", "server-sse-priming-event", ["sse", "stateless-sse"],
    "the scenario's own POST declares MCP-Protocol-Version 2025-03-26, and servers prime an SSE stream only for " +
    "2025-11-25 or later (older clients cannot take an event with empty data): go-sdk and the TypeScript SDK alike; " +
    "the TypeScript SDK 1.32.2's own server, with an event store, a retry interval and the scenario's " +
    "test_reconnection tool, gets the same warning (the scenario is in the suite's pending list)"],
  ["server-sse-polling", "server-sse-retry-field", ["sse", "stateless-sse"],
    "as the priming event: the retry field rides on the priming event the scenario's 2025-03-26 POST does not get"],
  ["server-sse-polling", "server-sse-disconnect-resume", ["sse"],
    "the scenario calls the \"everything\" server's test_reconnection tool, which serve does not have: the call's " +
    "POST stream carries its error (unknown tool) and ends; with serve's event store that event has an id, so the " +
    "scenario, having seen no result, reconnects with Last-Event-ID to a stream that is over and gets nothing more " +
    "(without an event store it has no id to reconnect with and checks nothing)"],
  ["server-sse-polling", "server-sse-polling-session", STATELESS,
    "--stateless serves without sessions by design, so there is no session id to give"],
  ["server-sse-multiple-streams", "server-sse-multiple-streams-session", STATELESS,
    "--stateless serves without sessions by design; the scenario needs one and checks nothing else"],
];

// The scenarios that need what serve does not have, and why.
const EVERYTHING_TOOL = (name) => `calls the "everything" server's ${name} tool; serve has one tool, orchestration_wait_agents`;
const NOT_APPLICABLE = {
  "completion-complete": "completes a prompt argument (completion/complete); serve has no prompts or resource templates, so no completions",
  "tools-call-simple-text": EVERYTHING_TOOL("test_simple_text"),
  "tools-call-image": EVERYTHING_TOOL("test_image_content"),
  "tools-call-audio": EVERYTHING_TOOL("test_audio_content"),
  "tools-call-embedded-resource": EVERYTHING_TOOL("test_embedded_resource"),
  "tools-call-mixed-content": EVERYTHING_TOOL("test_multiple_content_types"),
  "tools-call-with-logging": EVERYTHING_TOOL("test_tool_with_logging"),
  "tools-call-error": EVERYTHING_TOOL("test_error_handling"),
  "tools-call-with-progress": EVERYTHING_TOOL("test_tool_with_progress"),
  "tools-call-sampling": EVERYTHING_TOOL("test_sampling"),
  "tools-call-elicitation": EVERYTHING_TOOL("test_elicitation"),
  "json-schema-2020-12": EVERYTHING_TOOL("json_schema_2020_12_tool"),
  "elicitation-sep1034-defaults": EVERYTHING_TOOL("test_elicitation_sep1034_defaults"),
  "elicitation-sep1330-enums": EVERYTHING_TOOL("test_elicitation_sep1330_enums"),
  "resources-list": "serve has no resources (the check passes vacuously on go-sdk's empty list; the capability is not advertised)",
  "resources-read-text": "reads the \"everything\" server's resource test://static-text; serve has no resources",
  "resources-read-binary": "reads the \"everything\" server's resource test://static-binary; serve has no resources",
  "resources-templates-read": "reads the \"everything\" server's resource template test://template/{id}/data; serve has no resources",
  "resources-subscribe": "subscribes to a resource (resources/subscribe); serve has no resources",
  "resources-unsubscribe": "unsubscribes from a resource; serve has no resources",
  "prompts-list": "serve has no prompts (the check passes vacuously on go-sdk's empty list; the capability is not advertised)",
  "prompts-get-simple": "gets the \"everything\" server's prompt test_simple_prompt; serve has no prompts",
  "prompts-get-with-args": "gets the \"everything\" server's prompt test_prompt_with_arguments; serve has no prompts",
  "prompts-get-embedded-resource": "gets the \"everything\" server's prompt test_prompt_with_embedded_resource; serve has no prompts",
  "prompts-get-with-image": "gets the \"everything\" server's prompt test_prompt_with_image; serve has no prompts",
};

const MODES = [
  { name: "sse", flags: [] },
  { name: "json", flags: ["--json-response"] },
  { name: "stateless-sse", flags: ["--stateless"] },
  { name: "stateless-json", flags: ["--stateless", "--json-response"] },
];

const SCENARIO_TIMEOUT_MS = 60_000; // the SSE scenarios read for at most 10 s + 5 s
// The first server may build the test binary that serves (waitsim serve
// builds it once and reuses it while the sources are unchanged).
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 5_000;
const LISTENING = "waitsim serve: listening on ";

function usage(msg) {
  console.error(`mcp-conformance: ${msg}\nusage: node scripts/mcp-conformance.mjs --waitsim BIN --suite DIR --out DIR [--file SCENARIO.yaml]`);
  process.exit(2);
}

const opt = { file: "conformance/scenarios/slow-bridge.yaml" };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ""), v = process.argv[i + 1];
  if (!["waitsim", "suite", "out", "file"].includes(k) || v === undefined) usage(`bad argument ${process.argv[i]}`);
  opt[k] = v;
}
if (!opt.waitsim || !opt.suite || !opt.out) usage("--waitsim, --suite and --out are needed");
const cli = path.resolve(opt.suite, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
if (!fs.existsSync(cli)) usage(`no conformance suite at ${cli} (make mcp-suite installs it)`);
const suiteVersion = JSON.parse(fs.readFileSync(path.resolve(cli, "../../package.json"), "utf8")).version;

// Every process this run starts, so that none outlives it.
const children = new Set();
function track(child) {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}
function killAll() {
  for (const c of children) {
    try { c.kill("SIGKILL"); } catch { /* gone */ }
  }
}
// However this process ends (an uncaught error, a closed stdout), its
// children end with it.
process.on("exit", killAll);
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => process.exit(2));
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE"]) {
  process.on(sig, () => {
    console.error(`mcp-conformance: ${sig}: stopping every process it started`);
    killAll();
    process.exit(128 + os.constants.signals[sig]);
  });
}

// startServe starts `waitsim serve` in mode and resolves with its URL once it
// listens.
function startServe(mode, dir) {
  const log = fs.openSync(path.join(dir, "serve.log"), "w");
  const child = track(spawn(opt.waitsim, ["serve", opt.file, "--http", "127.0.0.1:0", ...mode.flags], { stdio: ["ignore", "ignore", "pipe"] }));
  let seen = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${LISTENING}" line within ${START_TIMEOUT_MS} ms:\n${seen}`)), START_TIMEOUT_MS);
    child.stderr.on("data", (b) => {
      fs.writeSync(log, b);
      seen += b.toString();
      const m = seen.match(/waitsim serve: listening on (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`waitsim serve exited (${signal ?? code}) before it listened:\n${seen}`));
    });
  });
  child.stderr.on("end", () => fs.closeSync(log));
  return { child, url, exited, log: () => seen };
}

// stopServe sends SIGTERM and waits for the exit: code 0 within
// STOP_TIMEOUT_MS, or a problem.
async function stopServe(s) {
  s.child.kill("SIGTERM");
  const r = await Promise.race([s.exited, new Promise((res) => setTimeout(() => res(null), STOP_TIMEOUT_MS))]);
  if (r === null) {
    s.child.kill("SIGKILL");
    await s.exited;
    return `did not stop within ${STOP_TIMEOUT_MS} ms of SIGTERM`;
  }
  if (r.code !== 0) return `exited ${r.signal ?? r.code} on SIGTERM, want 0`;
  if (/panic while handling|^panic: /m.test(s.log())) return "logged a panic";
  return "";
}

// runScenario runs one scenario against url, writing under dir, and
// resolves with its checks (or a synthetic FAILURE when it could not run).
function runScenario(url, scenario, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    const child = track(spawn(process.execPath, [cli, "server", "--url", url, "--scenario", scenario, "-o", dir], { stdio: ["ignore", "pipe", "pipe"] }));
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (out += b));
    const timer = setTimeout(() => child.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      fs.writeFileSync(path.join(dir, "output.txt"), out);
      const sub = fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, "checks.json")));
      if (signal || sub.length !== 1) {
        const why = signal ? `killed after ${SCENARIO_TIMEOUT_MS} ms` : `exit ${code}, no checks.json`;
        resolve([{ id: scenario, status: "FAILURE", errorMessage: `the suite did not run it (${why}): ${out.slice(-500)}` }]);
        return;
      }
      resolve(JSON.parse(fs.readFileSync(path.join(dir, sub[0], "checks.json"), "utf8")));
    });
  });
}

// verdict judges one scenario's checks in mode.
function verdict(scenario, mode, checks) {
  const count = (s) => checks.filter((c) => c.status === s).length;
  const problems = [], explained = [];
  for (const c of checks) {
    if (c.status === "FAILURE") problems.push(`FAILURE ${c.id}: ${c.errorMessage ?? c.description}`);
    if (c.status !== "WARNING") continue;
    const ok = NOT_SERVES.find(([s, id, modes]) => s === scenario && id === c.id && modes.includes(mode));
    if (ok) explained.push({ check: c.id, why: ok[3] });
    else problems.push(`WARNING ${c.id}: ${c.errorMessage ?? c.description}`);
  }
  return {
    scenario,
    status: problems.length > 0 ? "failed" : count("SUCCESS") > 0 ? "passed" : "passed (nothing to check)",
    success: count("SUCCESS"), failure: count("FAILURE"), warning: count("WARNING"), info: count("INFO"),
    problems, explained,
    notes: count("SUCCESS") > 0 ? [] : checks.filter((c) => c.status === "INFO" && c.details?.message).map((c) => `${c.id}: ${c.details.message}`),
  };
}

async function main() {
  const started = Date.now();
  fs.rmSync(opt.out, { recursive: true, force: true });
  fs.mkdirSync(opt.out, { recursive: true });
  console.log(`MCP conformance suite ${suiteVersion} (Node ${process.versions.node}) against ${opt.waitsim} serve ${opt.file}`);

  // Every scenario of the suite is either generic or listed as not applicable.
  const listed = execFileSync(process.execPath, [cli, "list", "--server"], { encoding: "utf8", timeout: 30_000 })
    .split("\n").map((l) => l.match(/^\s*-\s+(\S+)/)?.[1]).filter(Boolean);
  const setupProblems = [];
  for (const s of listed) {
    if (!GENERIC.includes(s) && !(s in NOT_APPLICABLE)) setupProblems.push(`the suite's scenario ${s} is neither generic nor listed as not applicable (scripts/mcp-conformance.mjs)`);
  }
  for (const s of [...GENERIC, ...Object.keys(NOT_APPLICABLE)]) {
    if (!listed.includes(s)) setupProblems.push(`scenario ${s} is not in the suite any more (scripts/mcp-conformance.mjs)`);
  }

  const summary = { suite: suiteVersion, node: process.versions.node, file: opt.file, modes: {}, notApplicable: NOT_APPLICABLE, problems: setupProblems };
  let failed = setupProblems.length > 0;
  // The modes run side by side, one server each (a mode's scenarios one
  // after another, as before): the first server starts alone, since it
  // may build the test binary that serves, and the others reuse it.
  const runMode = async (mode, serve) => {
    const dir = path.join(opt.out, mode.name);
    let url;
    try {
      url = await serve.url;
    } catch (e) {
      killAll();
      console.error(`mcp-conformance: ${mode.name}: ${e.message}`);
      process.exit(2);
    }
    const results = [];
    for (const scenario of GENERIC) {
      results.push(verdict(scenario, mode.name, await runScenario(url, scenario, path.join(dir, scenario))));
    }
    return { mode, url, results, stop: await stopServe(serve) };
  };
  const start = (mode) => {
    const dir = path.join(opt.out, mode.name);
    fs.mkdirSync(dir, { recursive: true });
    return startServe(mode, dir);
  };
  const first = start(MODES[0]);
  await first.url.catch(() => {}); // runMode reports its failure
  const runs = await Promise.all(MODES.map((mode, i) => runMode(mode, i === 0 ? first : start(mode))));
  for (const { mode, url, results, stop } of runs) {
    summary.modes[mode.name] = { flags: mode.flags, url, scenarios: results, serve: stop || "stopped on SIGTERM, exit 0" };
    console.log(`\n${mode.name} (waitsim serve --http ${[url.replace(/^http:\/\/|\/mcp$/g, ""), ...mode.flags].join(" ")})`);
    for (const r of results) {
      console.log(`  ${r.status === "failed" ? "FAIL" : "ok  "} ${r.scenario.padEnd(28)} ${r.status}: ${r.success} passed, ${r.failure} failed, ${r.warning} warnings (${r.explained.length} not serve's)`);
      for (const p of r.problems) console.log(`         ${p}`);
      for (const e of r.explained) console.log(`         not serve's: ${e.check}: ${e.why}`);
      for (const n of r.notes) console.log(`         ${n}`);
      failed ||= r.status === "failed";
    }
    if (stop) {
      console.log(`  FAIL waitsim serve ${stop}`);
      failed = true;
    }
  }
  console.log(`\nnot run: the scenarios that need what serve does not have (${Object.keys(NOT_APPLICABLE).length}; stdio: the suite has no stdio server scenarios)`);
  for (const [s, why] of Object.entries(NOT_APPLICABLE)) console.log(`  n/a  ${s.padEnd(30)} ${why}`);
  for (const p of setupProblems) console.log(`FAIL ${p}`);
  fs.writeFileSync(path.join(opt.out, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
  console.log(`\n${failed ? "FAILED" : "passed"}: ${GENERIC.length} generic scenarios × ${MODES.length} modes in ${((Date.now() - started) / 1000).toFixed(1)} s; ${path.join(opt.out, "summary.json")}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  killAll();
  console.error(`mcp-conformance: ${e.stack ?? e}`);
  process.exit(2);
});
