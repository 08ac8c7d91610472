#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  acceptedContent,
  planOpened
} from "./cli-chunk-3N45G7H4.js";
import {
  openState
} from "./cli-chunk-TPNKQGFG.js";
import "./cli-chunk-LAOPAIVL.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  component,
  componentDigests,
  componentsOfLock,
  plannedComponents,
  renderPrompt,
  requestKey
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  componentsOf,
  lockEntry,
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  PATH_HELP,
  UsageError,
  commandNetwork,
  dict,
  didYouMean,
  displayPath,
  examples,
  shortRef,
  stateDirOption
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/model/explain.ts
var EXPLAIN_VERSION = 1;

// src/app/explain.ts
async function explainPair(request) {
  const opened = openState(request.target, request);
  const { workflow } = opened;
  const pair = workflow.pairs.get(request.pair);
  if (pair === void 0) {
    const ids = [...workflow.pairs.keys()];
    const guess = didYouMean(request.pair, ids);
    const shown = ids.length > 20 ? `${ids.slice(0, 20).join(", ")}, and ${ids.length - 20} more` : ids.join(", ");
    throw new UsageError(`no pair "${request.pair}" in ${workflow.name}${guess ? `; did you mean "${guess}"?` : ""} (pairs: ${shown})`);
  }
  const { plan } = await planOpened(opened, {});
  const planned = plan.byId.get(pair.id);
  const entry = lockEntry(opened.view.lock, pair.id);
  const explanation = {
    version: EXPLAIN_VERSION,
    pair: pair.id,
    ...pair.template !== void 0 ? { template: pair.template } : {},
    workflow: { name: workflow.name, path: displayPath(workflow.path, request.cwd) },
    decision: { action: planned.action, reasons: planned.reasons },
    configRef: planned.configRef,
    accepted: entry ? { configRef: entry.configRef, contentHash: entry.contentHash, source: entry.source, acceptedAt: entry.acceptedAt } : null,
    components: componentRows(currentComponents(planned, plan.byId), entry ? componentsOfLock(componentsOf(entry)) : []),
    artifact: artifactOf(planned),
    requestKey: firstRequestKey(opened, plan.byId, planned),
    prompt: promptCommand(pair.id, request.target),
    network: commandNetwork(pair)
  };
  return explanation;
}
function currentComponents(planned, byId) {
  const digests = plannedComponents(planned);
  if (digests !== null) return { known: componentsOfLock(digests), unknown: [] };
  const known = componentsOfLock(componentDigests(planned.own, { refs: dict(), artifactHashes: dict() }));
  const unknown = [];
  for (const id of planned.requires) {
    const dep = byId.get(id);
    if (dep.action === "skip" && dep.configRef !== null && dep.artifact !== null)
      known.push(component("upstream", id, dep.configRef.slice(0, 16)), component("artifact", id, dep.artifact.contentHash.slice(0, 16)));
    else unknown.push(component("upstream", id, ""), component("artifact", id, ""));
  }
  return { known, unknown };
}
function componentRows(now, accepted) {
  const rows = /* @__PURE__ */ new Map();
  const id = (c) => `${c.kind}\0${c.name}`;
  for (const c of now.known) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: c.digest, accepted: null, status: "added" });
  for (const c of now.unknown) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: null, accepted: null, status: "unknown" });
  for (const c of accepted) {
    const row = rows.get(id(c));
    if (row === void 0) rows.set(id(c), { kind: c.kind, name: c.name, label: c.label, now: null, accepted: c.digest, status: "removed" });
    else {
      row.accepted = c.digest;
      if (row.status !== "unknown") row.status = row.now === c.digest ? "same" : "changed";
    }
  }
  return [...rows.values()].sort((a, b) => compare(a.kind, b.kind) || compare(a.name, b.name));
}
function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
function artifactOf(planned) {
  const a = planned.artifact;
  if (planned.action === "skip" && a !== null) return { from: a.source, content: a.content, contentHash: a.contentHash };
  const reuse = planned.reuse;
  if (reuse?.kind === "request" || reuse?.kind === "rejudge")
    return { from: reuse.kind, content: null, contentHash: null, reused: { pair: reuse.from, at: reuse.at } };
  return { from: "generator", content: null, contentHash: null, ...reuse?.kind === "unless" ? { unless: reuse.deps } : {} };
}
function firstRequestKey(opened, byId, planned) {
  const { workflow, view } = opened;
  const pair = workflow.pairs.get(planned.id);
  const dependencies = [];
  for (const id of pair.requires) {
    const dep = byId.get(id);
    if (dep.action === "run" || dep.artifact === null) return null;
    const content = view.text ? view.text(workflow.pairs.get(id), dep.artifact.contentHash) : acceptedContent(opened, dep);
    if (content === void 0) return null;
    dependencies.push({ id, content });
  }
  const prompt = renderPrompt({
    prompt: pair.prompt,
    specification: workflow.specification,
    constraints: workflow.constraints,
    dependencies,
    history: [],
    ...planned.revision !== void 0 && planned.action === "run" ? { revision: planned.revision } : {}
  });
  return requestKey({ pair, own: planned.own, prompt, dependencies, attempt: 1 });
}
function promptCommand(id, target) {
  return ["pairflow", "prompt", id, ...target !== void 0 ? [target] : []].map(shellWord).join(" ");
}
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

// src/report/explain.ts
var DIGEST = 12;
function explainText(e, style) {
  const lines = [];
  const action = e.decision.action === "run" ? style.yellow("run") : style.green("skip");
  lines.push(
    `${style.bold(nameFor(e.pair, "terminal"))}  ${action}${e.template !== void 0 ? style.dim(`  (an instance of ${nameFor(e.template, "terminal")})`) : ""}`
  );
  for (const r of e.decision.reasons) lines.push(`  ${r.kind}: ${nameFor(r.detail, "terminal")}`);
  if (e.decision.action === "skip" && e.artifact.from === "workspace")
    lines.push(`  ${style.dim("its output is a person's edit, kept whatever changed (delete the file to regenerate it)")}`);
  else if (e.decision.action === "skip") lines.push(`  ${style.dim("its reference is the one accepted: nothing changed")}`);
  lines.push("");
  lines.push(`reference  ${shortRef(e.configRef)}${e.configRef === null ? style.dim(" (not known until its dependencies have run)") : ""}`);
  lines.push(
    `accepted   ${e.accepted ? `${shortRef(e.accepted.configRef)} ${style.dim(`at ${e.accepted.acceptedAt}${e.accepted.source === "human" ? ", a person's edit" : ""}`)}` : style.dim("never (no lock entry)")}`
  );
  lines.push("");
  lines.push(...componentLines(e.components, style));
  lines.push("");
  lines.push(`artifact   ${artifactText(e)}`);
  lines.push(`request    ${e.requestKey ?? style.dim("not known until its dependencies have run")}`);
  lines.push(`prompt     ${nameFor(e.prompt, "terminal")}`);
  if (e.network.length > 0) {
    const says = e.network.map((c) => `${c.command} ${c.network ? "has the network" : style.dim("has no network")}`);
    lines.push(`network    ${says.join(", ")} ${style.dim("(in the sandbox; network: in its config)")}`);
  }
  return lines.join("\n") + "\n";
}
function componentLines(rows, style) {
  if (rows.length === 0) return ["components  none"];
  const changed = rows.filter((r) => r.status !== "same" && r.status !== "unknown").length;
  const unknown = rows.length - changed - rows.filter((r) => r.status === "same").length;
  const kinds = Math.max(4, ...rows.map((r) => r.kind.length));
  const names = Math.min(48, Math.max(4, ...rows.map((r) => nameFor(r.name, "terminal").length)));
  const head = `  ${"kind".padEnd(kinds)}  ${"name".padEnd(names)}  ${"now".padEnd(DIGEST)}  accepted`;
  const counts = [changed === 0 ? "none changed" : `${changed} changed`, ...unknown > 0 ? [`${unknown} not known yet`] : []];
  const out = [`components (${rows.length}: ${counts.join(", ")})`, style.dim(head)];
  const digest = (d) => (d === null ? "-" : d === "" ? "?" : d.slice(0, DIGEST)).padEnd(DIGEST);
  for (const r of rows) {
    const status = r.status === "same" ? "" : `  ${r.status === "unknown" ? style.dim(r.status) : style.yellow(r.status)}`;
    out.push(`  ${r.kind.padEnd(kinds)}  ${nameFor(r.name, "terminal").padEnd(names)}  ${digest(r.now)}  ${digest(r.accepted)}${status}`);
  }
  return out;
}
function artifactText(e) {
  const a = e.artifact;
  const content = a.content === "output" ? "its output file" : a.content === "store" ? "the local store" : a.content === "remote" ? "the remote store" : "nowhere here";
  switch (a.from) {
    case "workspace":
      return "its output file, a person's edit, kept as it is";
    case "lock":
      return `the lock file's accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "store":
      return `the local store's accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "remote":
      return `the remote store's (the cache's) accepted artifact ${shortRef(a.contentHash)}, read from ${content}`;
    case "request":
      return `request reuse: the artifact generated for ${nameFor(a.reused.pair, "terminal")} at ${a.reused.at} answers its request, accepted by its guard: no model call`;
    case "rejudge":
      return `request reuse: the artifact generated for ${nameFor(a.reused.pair, "terminal")} at ${a.reused.at} answers its request if its guard accepts it: no model call then`;
    case "generator":
      return a.unless ? `a call of its generator, unless ${a.unless.map((id) => nameFor(id, "terminal")).join(", ")} ${a.unless.length === 1 ? "reproduces its" : "reproduce their"} content (its earlier request is then answered)` : "a call of its generator";
  }
}

// src/cli/commands/explain.ts
function registerExplain(program, { io }) {
  program.command("explain").description(
    "Say why a pair runs or is skipped: every component of its reference now and as the lock file accepted it, which changed, the plan's reasons, where its artifact would come from, its request key, and the command that prints its prompt. Executes nothing."
  ).argument("<pair>", "the pair's id (an instance of a foreach pair by its own id)").argument("[path]", PATH_HELP).option("--json", "write the explanation as JSON (version 1, schemas/explain.schema.json) to stdout, and nothing else").addOption(stateDirOption()).addHelpText(
    "after",
    examples(["pairflow explain g_impl examples/tdd-stack", `pairflow explain g_impl --json | jq '.components[] | select(.status != "same")'`])
  ).action(async (pair, target, opts) => {
    const warn = (message) => io.stderr.write(`${styleFor(io.stderr, io.env).yellow("warning")} ${visible(message)}
`);
    const explained = await explainPair({ cwd: io.cwd, env: io.env, stateDir: opts.stateDir, pair, target, warn });
    if (opts.json) io.stdout.write(JSON.stringify(explained, null, 2) + "\n");
    else io.stdout.write(explainText(explained, styleFor(io.stdout, io.env)));
  });
}
export {
  registerExplain
};
