#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  EXIT_BUSY
} from "./cli-chunk-NDNCUSG4.js";
import "./cli-chunk-HXIO53ZC.js";
import "./cli-chunk-LMLVZIIO.js";
import {
  LockBusyError,
  acquireRunLocks,
  currentHolder
} from "./cli-chunk-74NRXERS.js";
import "./cli-chunk-VWCPAHPU.js";
import "./cli-chunk-4JJEQPFB.js";
import {
  NOT_REPORTED,
  seconds
} from "./cli-chunk-AM42MMQN.js";
import {
  listRunIds,
  listing,
  outcomesFromTrace,
  readRun,
  runDir,
  runState
} from "./cli-chunk-3N45G7H4.js";
import {
  LocalStore,
  PACK_HEADER,
  checkStateDir,
  checkedStateDir,
  isHashedKey,
  listPacks,
  objectLine,
  packWriter,
  pairKey,
  readLockWithJournal,
  readPack,
  readPackObject,
  recordLine,
  requestLine
} from "./cli-chunk-TPNKQGFG.js";
import {
  lockPathFor
} from "./cli-chunk-LAOPAIVL.js";
import {
  count
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  ConfigError,
  Option,
  PATH_HELP,
  UsageError,
  alive,
  displayPath,
  escapeGlob,
  examples,
  findRepoRoot,
  grouped,
  positiveInt,
  require_out,
  resolveWorkflowPath,
  shortRef,
  stateDirOption,
  writeFileAtomic
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import {
  __toESM
} from "./cli-chunk-FRV2UMY2.js";

// src/app/history.ts
import path2 from "node:path";

// src/records/prune.ts
var import_fast_glob = __toESM(require_out(), 1);
import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readFileSync, readSync, rmSync } from "node:fs";
import path from "node:path";
var UNITS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5, w: 6048e5 };
function parseDuration(text) {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (!m) throw new UsageError(`--older-than ${text}: expected a number and a unit (s, m, h, d, w), e.g. 30d`);
  return Number(m[1]) * UNITS[m[2]];
}
function findLockFiles(root, stateDir) {
  const ignore = ["**/.git/**", "**/node_modules/**"];
  const state = path.relative(root, stateDir);
  if (state !== "" && !state.startsWith("..") && !path.isAbsolute(state)) ignore.push(`${escapeGlob(state.split(path.sep).join("/"))}/**`);
  const found = import_fast_glob.default.sync("**/*.lock.json", { cwd: root, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true, ignore });
  return found.map((rel) => path.resolve(root, rel)).sort();
}
function workflowsOfLockFile(lockFile) {
  const stem = lockFile.slice(0, -".lock.json".length);
  return [".yml", ".yaml", ".json"].map((ext) => stem + ext).filter((file) => existsSync(file));
}
function recordedWorkflows(stateDir) {
  const workflows = /* @__PURE__ */ new Set();
  for (const id of listRunIds(stateDir)) {
    const dir = runDir(stateDir, id);
    const workflow = firstTraceLine(path.join(dir, "trace.jsonl"))?.workflow ?? readJson(path.join(dir, "plan.json"))?.workflow?.path;
    if (typeof workflow === "string") workflows.add(workflow);
  }
  return [...workflows].sort();
}
function prune(stateDir, options = {}) {
  checkStateDir(stateDir);
  const startedAt = options.startedAt ?? Date.now();
  const warnings = [];
  const runs = [];
  for (const id of listRunIds(stateDir)) {
    try {
      runs.push(readRun(stateDir, id));
    } catch {
    }
  }
  const removedRuns = [];
  const keptRuns = [];
  runs.forEach((run, index) => {
    const started = Date.parse(run.events[0]?.t ?? run.plan?.createdAt ?? run.result?.startedAt ?? "") || startedAt;
    const tooMany = options.keep !== void 0 && index >= options.keep;
    const tooOld = options.olderThanMs !== void 0 && startedAt - started > options.olderThanMs;
    const workflow = workflowOf(run);
    const active = workflow !== void 0 && currentHolder(workflow)?.runId === run.runId;
    if ((tooMany || tooOld) && !active) removedRuns.push(run);
    else keptRuns.push(run);
  });
  const keepRecords = /* @__PURE__ */ new Set();
  const keepObjects = /* @__PURE__ */ new Set();
  const lockFiles = new Set(options.lockFiles ?? []);
  const ownLockFiles = /* @__PURE__ */ new Set();
  for (const run of runs) {
    const workflow = workflowOf(run);
    if (workflow !== void 0) ownLockFiles.add(lockPathFor(workflow));
  }
  for (const file of ownLockFiles) lockFiles.add(file);
  const honoured = [];
  let damaged = false;
  for (const file of [...lockFiles].sort()) {
    const read = readLockFile(file, ownLockFiles.has(file) || workflowsOfLockFile(file).length > 0);
    if (read.kind === "damaged") {
      damaged = true;
      warnings.push(`${file}: ${read.reason}; store entries are kept until it is fixed`);
    }
    if (read.kind !== "lock") continue;
    honoured.push(file);
    for (const [id, entry] of Object.entries(read.lock.pairs)) {
      if (!entry || typeof entry !== "object") continue;
      if (typeof entry.configRef === "string") keepRecords.add(`${pairKey(id)}/${entry.configRef}`);
      if (typeof entry.contentHash === "string") keepObjects.add(entry.contentHash);
    }
  }
  for (const run of keptRuns) {
    for (const p of run.plan?.pairs ?? []) if (p.configRef) keepRecords.add(`${pairKey(p.id)}/${p.configRef}`);
    for (const o of outcomesFromTrace(run.events).values()) {
      if (o.configRef) keepRecords.add(`${pairKey(o.id)}/${o.configRef}`);
      if (o.contentHash) keepObjects.add(o.contentHash);
    }
    for (const p of run.result?.pairs ?? []) if (p.contentHash) keepObjects.add(p.contentHash);
  }
  const storeDir = path.join(stateDir, "store");
  const store = new LocalStore(storeDir);
  const records = [];
  const looseRecords = /* @__PURE__ */ new Map();
  let keptRecords = 0;
  const pairsDir = path.join(storeDir, "pairs");
  for (const dir of directories(pairsDir)) {
    for (const name of entries(path.join(pairsDir, dir))) {
      if (name.startsWith(".") || !name.endsWith(".json")) continue;
      const configRef = name.slice(0, -".json".length);
      const file = path.join(pairsDir, dir, name);
      const stat = fileStat(file);
      if (!stat) continue;
      const pair = isHashedKey(dir) ? recordedPair(file, dir) ?? dir : pairOfKey(dir);
      if (keepRecords.has(`${dir}/${configRef}`) || stat.mtimeMs >= startedAt) {
        const rec = safeRecord(store, pair, configRef);
        if (rec?.contentHash) keepObjects.add(rec.contentHash);
        keptRecords++;
        continue;
      }
      records.push({ pair, configRef, bytes: stat.size, file });
      looseRecords.set(`${dir}/${configRef}`, records.at(-1));
    }
  }
  const packs = readPacks(path.join(storeDir, "packs"), startedAt);
  const packedRecords = /* @__PURE__ */ new Map();
  for (const pack of packs) {
    for (const e of pack.entries) {
      if (e.kind !== "record") continue;
      const key = `${pairKey(e.record.pair)}/${e.record.configRef}`;
      if (pack.live || keepRecords.has(key)) {
        if (e.record.contentHash) keepObjects.add(e.record.contentHash);
        keptRecords++;
        continue;
      }
      pack.removed = true;
      const listed2 = packedRecords.get(key) ?? looseRecords.get(key);
      if (listed2) listed2.bytes += e.bytes;
      else packedRecords.set(key, { pair: e.record.pair, configRef: e.record.configRef, bytes: e.bytes });
    }
  }
  const objects = [];
  const looseObjects = /* @__PURE__ */ new Map();
  let keptObjects = 0;
  const objectsDir = path.join(storeDir, "objects");
  for (const shard of directories(objectsDir)) {
    for (const hash of entries(path.join(objectsDir, shard))) {
      if (hash.startsWith(".")) continue;
      const file = path.join(objectsDir, shard, hash);
      const stat = fileStat(file);
      if (!stat) continue;
      if (keepObjects.has(hash) || stat.mtimeMs >= startedAt) {
        keptObjects++;
        continue;
      }
      objects.push({ hash, bytes: stat.size, file });
      looseObjects.set(hash, objects.at(-1));
    }
  }
  const packedObjects = /* @__PURE__ */ new Map();
  for (const pack of packs) {
    for (const e of pack.entries) {
      if (e.kind !== "object") continue;
      if (pack.live || keepObjects.has(e.hash)) {
        keptObjects++;
        continue;
      }
      pack.removed = true;
      const listed2 = packedObjects.get(e.hash) ?? looseObjects.get(e.hash);
      if (listed2) listed2.bytes += e.bytes;
      else packedObjects.set(e.hash, { hash: e.hash, bytes: e.bytes });
    }
  }
  if (damaged) {
    keptRecords += records.length + packedRecords.size;
    keptObjects += objects.length + packedObjects.size;
    records.length = 0;
    objects.length = 0;
    packedRecords.clear();
    packedObjects.clear();
    for (const pack of packs) pack.removed = false;
  }
  const prunedRecords = [...records.map(({ pair, configRef, bytes: bytes2 }) => ({ pair, configRef, bytes: bytes2 })), ...packedRecords.values()];
  const prunedObjects = [...objects.map(({ hash, bytes: bytes2 }) => ({ hash, bytes: bytes2 })), ...packedObjects.values()];
  const prunedRuns = removedRuns.map((run) => ({ runId: run.runId, bytes: treeSize(run.dir) }));
  if (!options.dryRun) {
    for (const run of removedRuns) if (lstatSync(run.dir, { throwIfNoEntry: false })?.isDirectory()) rmSync(run.dir, { recursive: true, force: true });
    for (const r of records) rmSync(r.file, { force: true });
    for (const o of objects) rmSync(o.file, { force: true });
    for (const pack of packs) if (pack.removed) rewritePack(pack, keepRecords, keepObjects);
  }
  const bytes = [...prunedRuns, ...prunedRecords, ...prunedObjects].reduce((sum, e) => sum + e.bytes, 0);
  return {
    dryRun: options.dryRun ?? false,
    runs: prunedRuns,
    records: prunedRecords,
    objects: prunedObjects,
    kept: { runs: keptRuns.length, records: keptRecords, objects: keptObjects },
    bytes,
    lockFiles: honoured,
    warnings
  };
}
function readPacks(dir, startedAt) {
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  const packs = [];
  for (const name of listPacks(dir)) {
    const file = path.join(dir, name);
    const stat = fileStat(file);
    if (!stat) continue;
    const writer = packWriter(name);
    const live = stat.mtimeMs >= startedAt || writer !== void 0 && writer !== process.pid && alive(writer);
    packs.push({ file, entries: readPack(file), live, removed: false });
  }
  return packs;
}
function rewritePack(pack, keepRecords, keepObjects) {
  const parts = [];
  for (const e of pack.entries) {
    if (e.kind === "record" && keepRecords.has(`${pairKey(e.record.pair)}/${e.record.configRef}`)) parts.push(Buffer.from(recordLine(e.record), "utf8"));
    else if (e.kind === "request") parts.push(Buffer.from(requestLine(e.key, e.entries), "utf8"));
    else if (e.kind === "object" && keepObjects.has(e.hash)) {
      const data = readPackObject(pack.file, e.offset, e.bytes);
      if (data !== void 0) parts.push(Buffer.from(objectLine(e.hash, e.bytes), "utf8"), data, Buffer.from("\n", "utf8"));
    }
  }
  if (parts.length === 0) rmSync(pack.file, { force: true });
  else writeFileAtomic(pack.file, Buffer.concat([Buffer.from(PACK_HEADER, "utf8"), ...parts]));
}
function workflowOf(run) {
  const fromTrace = run.events.find((e) => e.event === "run_start")?.workflow;
  return run.plan?.workflow.path ?? (typeof fromTrace === "string" ? fromTrace : void 0);
}
function readLockFile(file, ofWorkflow) {
  try {
    const lock = readLockWithJournal(file);
    return lock ? { kind: "lock", lock } : { kind: "other" };
  } catch (err) {
    if (!ofWorkflow) return { kind: "other" };
    const reason = err instanceof ConfigError ? "not a readable pairflow lock file" : `cannot be read (${err.message})`;
    return { kind: "damaged", reason };
  }
}
function recordedPair(file, key) {
  const pair = readJson(file)?.pair;
  return typeof pair === "string" && pairKey(pair) === key ? pair : void 0;
}
function pairOfKey(dir) {
  try {
    return decodeURIComponent(dir);
  } catch {
    return dir;
  }
}
function safeRecord(store, pair, configRef) {
  try {
    return store.record(pair, configRef);
  } catch {
    return void 0;
  }
}
function entries(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
function directories(dir) {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}
function fileStat(file) {
  try {
    const stat = lstatSync(file);
    return stat.isFile() ? stat : void 0;
  } catch {
    return void 0;
  }
}
function treeSize(dir) {
  let size2 = 0;
  for (const entry of entries(dir)) {
    const file = path.join(dir, entry);
    try {
      const stat = lstatSync(file);
      size2 += stat.isDirectory() ? treeSize(file) : stat.size;
    } catch {
    }
  }
  return size2;
}
function firstTraceLine(file) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, n).toString("utf8");
    const end = text.indexOf("\n");
    return end < 0 ? void 0 : JSON.parse(text.slice(0, end));
  } catch {
    return void 0;
  } finally {
    if (fd !== void 0) closeSync(fd);
  }
}
function readJson(file) {
  try {
    if (!lstatSync(file).isFile()) return void 0;
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return void 0;
  }
}

// src/app/history.ts
function historyRoot(request) {
  return request.target === void 0 ? findRepoRoot(request.cwd) : findRepoRoot(path2.dirname(resolveWorkflowPath(request.target, request.cwd)));
}
function historyDir(request) {
  return checkedStateDir(historyRoot(request), request);
}
function listRuns(request) {
  const dir = historyDir(request);
  const workflow = request.target === void 0 ? null : resolveWorkflowPath(request.target, request.cwd);
  const runs = listRunIds(dir).map((id) => readRun(dir, id)).filter((run) => workflow === null || recordedWorkflow(run) === workflow);
  return { dir, workflow, runs: runs.map(listed), problems: runs.flatMap((r) => r.problems) };
}
function listed(run) {
  const row = listing(run);
  const reported = run.events.some((e) => e.event === "attempt_end" && e.tokens !== null && e.tokens !== void 0);
  return { ...row, tokens: reported ? row.tokens : null };
}
function recordedWorkflow(run) {
  return run.plan?.workflow.path ?? run.events.find((e) => e.event === "run_start")?.workflow ?? null;
}
function showRun(request, runId) {
  let run;
  try {
    run = readRun(historyDir(request), runId);
  } catch (err) {
    throw new UsageError(`${err.message}; see pairflow runs`);
  }
  const outcomes = outcomesFromTrace(run.events);
  const ids = run.plan?.pairs.map((p) => p.id) ?? [...outcomes.keys()];
  const pairs = ids.map((id) => ({ id, planned: run.plan?.pairs.find((p) => p.id === id) ?? null, outcome: outcomes.get(id) ?? null }));
  return { run, summary: listing(run), pairs };
}
async function pruneRuns(request, options = {}) {
  const olderThanMs = options.olderThan ? parseDuration(options.olderThan) : void 0;
  const startedAt = Date.now();
  const root = historyRoot(request);
  const stateDir = checkedStateDir(root, request);
  const lockFiles = findLockFiles(root, stateDir);
  const pruneNow = () => prune(stateDir, { keep: options.keep, olderThanMs, startedAt, dryRun: options.dryRun, lockFiles });
  if (options.dryRun) return pruneNow();
  const workflows = [...lockFiles.flatMap(workflowsOfLockFile), ...recordedWorkflows(stateDir)];
  const ignored = [];
  const release = await acquireRunLocks(workflows, { runId: "prune", wait: options.wait ?? true, onWait: options.onWait, onWarn: (m) => ignored.push(m) });
  try {
    const result = pruneNow();
    return { ...result, warnings: [...ignored, ...result.warnings] };
  } finally {
    release();
  }
}

// src/cli/commands/history.ts
function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map(
    (r) => r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd()
  );
}
function registerHistory(program, { io, setStatus }) {
  program.command("runs").description("List recorded runs, newest first: every run in the state directory, or only the runs of the workflow named.").argument("[path]", `${PATH_HELP}; lists its runs, from the state directory pairflow run used for it`).option("--json", "write the list as JSON (version 1) to stdout").addOption(stateDirOption()).addHelpText("after", examples(["pairflow runs", "pairflow runs examples/tdd-stack", "pairflow runs --json | jq '.runs[0]'"])).action((target, opts) => {
    const { dir, workflow, runs: rows, problems } = listRuns({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target });
    for (const problem of problems) io.stderr.write(`warning ${problem}
`);
    if (opts.json) {
      io.stdout.write(JSON.stringify({ version: 1, runs: rows }, null, 2) + "\n");
      return;
    }
    if (rows.length === 0) {
      io.stdout.write(`no runs${workflow ? ` of ${displayPath(workflow, io.cwd)}` : ""} recorded in ${displayPath(dir, io.cwd)}
`);
      return;
    }
    const style = styleFor(io.stdout, io.env);
    const lines = table([
      ["run", "started", "status", "executed", "reused", "failed", "tokens", "duration", "workflow"],
      ...rows.map((r) => [
        r.runId,
        r.startedAt?.replace("T", " ").slice(0, 19) ?? "?",
        r.status,
        String(r.executed),
        String(r.reused),
        String(r.failed),
        r.tokens === null ? NOT_REPORTED : grouped(r.tokens.input + r.tokens.output),
        r.durationMs === null ? "-" : seconds(r.durationMs),
        r.workflow ? displayPath(r.workflow, io.cwd) : "?"
      ])
    ]);
    io.stdout.write([style.bold(lines[0]), ...lines.slice(1)].join("\n") + "\n");
  });
  program.command("show").description("Show one run: the plan as made against what happened, pair by pair, with every attempt and its feedback.").argument("<runId>", "the run (see pairflow runs)").argument("[path]", `${PATH_HELP}; the run is looked up in the state directory pairflow run used for it`).option("--json", "write it as JSON (version 1) to stdout").addOption(stateDirOption()).addHelpText(
    "after",
    examples([
      "pairflow show 20261122T003012345Z-1a2b",
      "pairflow show 20261122T003012345Z-1a2b examples/tdd-stack",
      "pairflow show 20261122T003012345Z-1a2b --json"
    ])
  ).action((runId, target, opts) => {
    const { run, summary, pairs } = showRun({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target }, runId);
    for (const problem of run.problems) io.stderr.write(`warning ${problem}
`);
    if (opts.json) {
      io.stdout.write(JSON.stringify({ version: 1, ...summary, problems: run.problems, pairs }, null, 2) + "\n");
      return;
    }
    const style = styleFor(io.stdout, io.env);
    const out = [
      style.bold(`Run ${run.runId}: ${runState(run)}`) + style.dim(`  ${summary.workflow ? nameFor(displayPath(summary.workflow, io.cwd), "terminal") : ""}, started ${summary.startedAt ?? "?"}`)
    ];
    for (const { id, planned, outcome } of pairs) {
      const plan = planned ? `planned ${planned.action}${planned.reasons.length ? ` (${nameFor(planned.reasons.map((r) => r.detail).join("; "), "terminal")})` : ""}` : "not in the plan";
      const happened = outcome ? `${outcome.status}${outcome.note ? `: ${visible(outcome.note)}` : ""}` : "never reached";
      out.push(
        "",
        `${style.bold(nameFor(id, "terminal"))}  ${style.dim(shortRef(outcome?.configRef ?? planned?.configRef ?? null))}`,
        `  ${plan}`,
        `  ${happened}`
      );
      for (const a of outcome?.attempts ?? []) {
        const tokens = a.tokens ? `, ${grouped(a.tokens.input + a.tokens.output)} tokens` : `, tokens ${NOT_REPORTED}`;
        out.push(`  attempt ${a.attempt}: ${a.accepted ? style.green("accepted") : style.red("rejected")} in ${seconds(a.durationMs)}${tokens}`);
        if (a.feedback.trim())
          out.push(
            ...a.feedback.trim().split("\n").map((l) => `    ${visible(l)}`)
          );
      }
    }
    io.stdout.write(out.join("\n") + "\n");
  });
  program.command("prune").description("Remove old run records, then store entries that no lock file in the repository and no kept run refers to.").argument("[path]", `${PATH_HELP}; prunes the state directory pairflow run used for it, in its repository`).addOption(new Option("--keep <n>", "keep the newest N runs").argParser(positiveInt)).option("--older-than <duration>", "remove runs that started longer ago than this: 90m, 12h, 30d, 2w").option("--dry-run", "list what would be removed (runs, store records, stored artifacts, with sizes) and remove nothing").option("--json", "write what was (or would be) removed as JSON (version 1) to stdout").option("--no-wait", `if a run of a workflow concerned is going, fail at once (exit ${EXIT_BUSY}) instead of waiting for it`).addOption(stateDirOption()).addHelpText(
    "after",
    examples([
      "pairflow prune --keep 20",
      "pairflow prune examples/tdd-stack --keep 5",
      "pairflow prune --older-than 30d --dry-run",
      "pairflow prune   # only store entries nothing refers to",
      "pairflow prune --dry-run --json | jq '.bytes'"
    ])
  ).action(
    async (target, opts) => {
      const style = styleFor(io.stdout, io.env);
      let result;
      try {
        result = await pruneRuns(
          { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, target },
          {
            keep: opts.keep,
            olderThan: opts.olderThan,
            dryRun: opts.dryRun,
            wait: opts.wait,
            onWait: (holder) => io.stderr.write(`waiting for run ${holder.runId} (pid ${holder.pid}) to finish; --no-wait fails instead
`)
          }
        );
      } catch (err) {
        if (!(err instanceof LockBusyError)) throw err;
        io.stderr.write(`${styleFor(io.stderr, io.env).red("error")} ${err.message}; nothing was removed (exit ${EXIT_BUSY}: try again later)
`);
        setStatus(EXIT_BUSY);
        return;
      }
      for (const warning of result.warnings) io.stderr.write(`warning ${warning}
`);
      if (opts.json) {
        io.stdout.write(JSON.stringify({ version: 1, ...result }, null, 2) + "\n");
        return;
      }
      const what = `${count(result.runs.length, "run")} (kept ${result.kept.runs}), ${count(result.records.length, "store record")} and ${count(result.objects.length, "stored artifact")}, ${size(result.bytes)}`;
      if (!result.dryRun) {
        io.stdout.write(`removed ${what}
`);
        return;
      }
      const lines = table([
        ["kind", "what", "size"],
        ...result.runs.map((r) => ["run", r.runId, size(r.bytes)]),
        ...result.records.map((r) => ["record", `${r.pair} ${shortRef(r.configRef)}`, size(r.bytes)]),
        ...result.objects.map((o) => ["artifact", shortRef(o.hash), size(o.bytes)])
      ]);
      io.stdout.write(`would remove ${what}; nothing was removed
`);
      if (lines.length > 1) io.stdout.write(["", style.bold(lines[0]), ...lines.slice(1)].join("\n") + "\n");
    }
  );
}
function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}
export {
  registerHistory
};
