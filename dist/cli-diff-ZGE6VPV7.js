#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import "./cli-chunk-AM42MMQN.js";
import {
  planTarget
} from "./cli-chunk-3N45G7H4.js";
import "./cli-chunk-TPNKQGFG.js";
import {
  lockPathFor,
  readLock
} from "./cli-chunk-LAOPAIVL.js";
import {
  GRAPH_NODE_LIMIT,
  SCREEN_LINES,
  affectedSubgraph,
  append,
  blockedBy,
  bytes,
  causeExtent,
  causeLines,
  causesOf,
  changesFor,
  code,
  columns,
  fitLines,
  isAffected,
  longestRun,
  md,
  nameIn,
  number,
  padColumns,
  planJson,
  planNodes,
  plural2 as plural,
  reach,
  reasonsText,
  rootsDiffer,
  totalCostText,
  waveRange,
  wavesText,
  withoutCallsText
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import {
  FILE_HEADERS_ONLY,
  createTwoFilesPatch,
  decidePair
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  lockEntry,
  visible
} from "./cli-chunk-7NHSQKXA.js";
import {
  Option,
  PATH_HELP,
  PROMPTS_NAMES,
  UsageError,
  displayPath,
  examples,
  fastYamlValue,
  grouped,
  require_dist,
  resolveWorkflowPath,
  splitText,
  stateDirOption,
  terminalColumns
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import {
  __toESM
} from "./cli-chunk-FRV2UMY2.js";

// src/diff/diff.ts
var import_yaml = __toESM(require_dist(), 1);
function willRun(diff) {
  return diff.plan.pairs.filter((p) => p.action === "run");
}
function alreadyAccepted(diff) {
  return diff.plan.pairs.filter((p) => p.action === "skip" && diff.sinceBase.get(p.id)?.changed);
}
function baseName(base, quote = (s) => s) {
  const short2 = quote(base.commit.slice(0, 12));
  return base.commit.startsWith(base.ref) ? short2 : `${quote(base.ref)} (${short2})`;
}
var CONTEXT = 3;
function computeDiff(plan, sinceBase, head, base, info) {
  const basePairs = base?.pairs ?? {};
  const added = Object.keys(head.pairs).filter((id) => !Object.hasOwn(basePairs, id));
  const removed = Object.keys(basePairs).filter((id) => !Object.hasOwn(head.pairs, id));
  const changes = [];
  const add = (kind, id, before, after, files) => {
    const change = entryChange(kind, id, before, after, files);
    if (change) changes.push(change);
  };
  add("workflow", null, base?.settings, head.settings, [base?.workflowFile ?? null, head.workflowFile]);
  for (const id of [...Object.keys(head.pairs), ...removed]) {
    add("pair", id, own(basePairs, id), own(head.pairs, id), [base?.workflowFile ?? null, head.workflowFile]);
    add("prompt", id, own(base?.prompts, id), own(head.prompts, id), [base?.promptsFile ?? null, head.promptsFile]);
  }
  return {
    plan,
    sinceBase,
    workflowFile: head.workflowFile,
    base: { ...info, workflowFound: base !== null },
    added,
    removed,
    changes
  };
}
async function compareWithBase(plan, baseView, headLock) {
  const ctx = { workflow: plan.workflow, graph: plan.graph, view: baseView, force: () => void 0, lost: /* @__PURE__ */ new Set() };
  const out = /* @__PURE__ */ new Map();
  for (const pair of plan.pairs) {
    const entry = lockEntry(baseView.lock, pair.id);
    const sameRef = entry !== void 0 && pair.configRef === entry.configRef;
    const sameContent = pair.artifact === null || pair.artifact.contentHash === entry?.contentHash;
    const changed = !(sameRef && sameContent);
    const changes = sameRef ? [] : (await decidePair(ctx, pair.id, plan.byId)).reasons;
    out.set(pair.id, { changed, changes, accepted: changed && pair.action === "skip" ? acceptedOn(pair, headLock) : null });
  }
  return out;
}
function acceptedOn(pair, headLock) {
  const artifact = pair.artifact;
  if (artifact.edited || artifact.source === "workspace") return "edited";
  if (artifact.source === "lock") {
    const entry = lockEntry(headLock, pair.id);
    return entry === void 0 ? "remote" : entry.source === "human" ? "edited" : "committed";
  }
  return artifact.source;
}
function fileChanges(plan, texts) {
  const files = /* @__PURE__ */ new Set();
  const sections = [];
  for (const p of plan.pairs) {
    if (p.action !== "run") continue;
    const piece = plan.workflow.pairs?.get(p.id)?.piece;
    if (piece && p.reasons.some((r) => r.component?.kind === "piece" || r.kind === "new")) sections.push(p);
    for (const r of p.reasons) {
      const kind = r.component?.kind;
      if (kind === "input" || kind === "generator_file" || kind === "guard_file" || kind === "observed") files.add(r.component.name);
    }
  }
  const changes = [];
  for (const file of files) {
    const change = textChange("file", file, texts.base(file), texts.head(file), [file, file]);
    if (change) changes.push(change);
  }
  const splits = /* @__PURE__ */ new Map();
  for (const pair of plan.workflow.pairs?.values() ?? []) if (pair.assembly) splits.set(`${pair.template}\0${pair.assembly.file}`, pair.assembly.split);
  const baseSections = /* @__PURE__ */ new Map();
  for (const p of sections) {
    const pair = plan.workflow.pairs.get(p.id);
    const piece = pair.piece;
    const key = `${pair.template}\0${piece.file}`;
    if (!baseSections.has(key)) {
      const text = texts.base(piece.file);
      const spec = splits.get(key);
      let pieces = /* @__PURE__ */ new Map();
      try {
        if (text !== null && spec) pieces = new Map(splitText(text, spec).map((x) => [x.id, x.text]));
      } catch {
      }
      baseSections.set(key, pieces);
    }
    const label2 = `${piece.file}#${piece.id}`;
    const change = textChange("section", p.id, baseSections.get(key).get(piece.id) ?? null, piece.text, [label2, label2]);
    if (change) changes.push(change);
  }
  return changes;
}
function textChange(kind, id, before, after, [baseFile, headFile]) {
  if (before === after) return null;
  const patch = createTwoFilesPatch(`a/${baseFile}`, `b/${headFile}`, before ?? "", after ?? "", void 0, void 0, {
    context: CONTEXT,
    headerOptions: FILE_HEADERS_ONLY
  });
  return { kind, id, change: before === null ? "added" : after === null ? "removed" : "changed", patch };
}
function snapshotOf(files) {
  const workflow = asObject(parseYaml(files.workflowText));
  const { action_pairs: pairs, ...settings } = workflow;
  return {
    workflowFile: files.workflowFile,
    promptsFile: files.promptsFile,
    settings,
    pairs: asObject(pairs),
    prompts: files.promptsText === null ? {} : asObject(parseYaml(files.promptsText))
  };
}
var YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false };
function parseYaml(text) {
  const fast = fastYamlValue(text, YAML_OPTIONS);
  if (fast) return fast.value;
  const doc = (0, import_yaml.parseDocument)(text, YAML_OPTIONS);
  if (doc.errors.length > 0) throw new Error(doc.errors[0].message);
  return doc.toJS({ maxAliasCount: 1e4 });
}
function entryChange(kind, id, before, after, [baseFile, headFile]) {
  const absent = (v) => v === void 0 || kind === "workflow" && isObject(v) && Object.keys(v).length === 0;
  if (absent(before) && absent(after)) return null;
  const oldText = absent(before) ? "" : entryText(id, alignTo(before, after));
  const newText = absent(after) ? "" : entryText(id, after);
  if (oldText === newText) return null;
  const patch = createTwoFilesPatch(`a/${baseFile ?? headFile}`, `b/${headFile ?? baseFile}`, oldText, newText, void 0, void 0, {
    context: CONTEXT,
    headerOptions: FILE_HEADERS_ONLY
  });
  return { kind, id, change: absent(before) ? "added" : absent(after) ? "removed" : "changed", patch };
}
function entryText(id, value) {
  return (0, import_yaml.stringify)(id === null ? value : { [id]: value }, { lineWidth: 0, aliasDuplicateObjects: false });
}
function alignTo(base, head) {
  if (Array.isArray(base)) return base.map((item, i) => alignTo(item, Array.isArray(head) ? head[i] : void 0));
  if (!isObject(base)) return base;
  const order = isObject(head) ? Object.keys(head).filter((k) => Object.hasOwn(base, k)) : [];
  const ordered = new Set(order);
  const keys = [...order, ...Object.keys(base).filter((k) => !ordered.has(k))];
  return Object.fromEntries(keys.map((k) => [k, alignTo(base[k], own(head, k))]));
}
function own(obj, key) {
  return isObject(obj) && Object.hasOwn(obj, key) ? obj[key] : void 0;
}
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
function asObject(v) {
  return isObject(v) ? v : {};
}

// src/report/diff.ts
function diffJson(diff, cwd = process.cwd()) {
  const plan = planJson(diff.plan, cwd);
  return {
    version: 1,
    workflow: plan.workflow,
    base: { ...diff.base },
    waves: plan.waves,
    pairs: plan.pairs.map((p) => {
      const since = diff.sinceBase.get(p.id);
      return { ...p, sinceBase: { ...since, changes: since.changes.map((r) => ({ ...r })) } };
    }),
    added: [...diff.added],
    removed: [...diff.removed],
    changes: diff.changes.map((c) => ({ ...c })),
    totals: { ...plan.totals, accepted: alreadyAccepted(diff).length, added: diff.added.length, removed: diff.removed.length }
  };
}
function acceptedText(on) {
  switch (on) {
    case "committed":
      return "regenerated and committed on the branch";
    case "edited":
      return "output edited by hand on the branch; kept as accepted";
    case "store":
      return "accepted in the local store, not in the committed lock file";
    case "remote":
      return "accepted in the remote store";
  }
}
function sinceBaseText(since) {
  if (since.changes.length === 0) return "only its content";
  return since.changes.map((r) => r.kind === r.detail ? r.kind : `${r.kind}: ${r.detail}`).join("; ");
}
function countsOf(diff) {
  const run = willRun(diff).length;
  const accepted = alreadyAccepted(diff).length;
  return { run, accepted, unchanged: diff.plan.pairs.length - run - accepted };
}
var PATCH_LINES = 200;
function diffText(diff, style, options = {}) {
  const { plan, base } = diff;
  const cwd = options.cwd ?? process.cwd();
  const lines = [];
  lines.push(
    style.bold(`Diff of "${nameFor(plan.workflow.name, "terminal")}"`) + style.dim(` (${nameFor(displayPath(plan.workflow.path, cwd), "terminal")}) against ${baseName(base, (s) => nameFor(s, "terminal"))}`)
  );
  if (!base.workflowFound)
    lines.push(style.yellow(`${nameFor(diff.workflowFile, "terminal")} does not exist at ${nameFor(base.ref, "terminal")}: every pair is added`));
  const run = willRun(diff);
  const accepted = alreadyAccepted(diff);
  const counts = countsOf(diff);
  lines.push(
    style.bold(
      `${number(counts.run)} to re-run after merging, ${counts.accepted > 0 ? `${number(counts.accepted)} already accepted, ` : ""}${number(counts.unchanged)} unchanged`
    ) + `; ${number(diff.added.length)} added, ${number(diff.removed.length)} removed`
  );
  if (options.cost) lines.push(options.cost);
  const byPair = options.all || run.length + accepted.length + 12 <= SCREEN_LINES;
  const causes = byPair ? [] : causesOf(planNodes(plan));
  if (run.length > 0 && byPair) {
    const width = Math.min(40, Math.max(...run.map((p) => columns(nameFor(p.id, "terminal")))));
    lines.push("", style.bold("Will re-run"));
    for (const p of run) {
      lines.push(`  ${style.yellow(padColumns(nameFor(p.id, "terminal"), width))}  ${style.dim(`wave ${p.wave}`)}  ${nameFor(reasonsText(p), "terminal")}`);
    }
  } else if (run.length > 0) {
    lines.push("", style.bold("Will re-run, by cause"), ...causeLines(causes, style, SCREEN_LINES - lines.length - 12));
  }
  if (accepted.length > 0) {
    const shown2 = byPair ? accepted : accepted.slice(0, MAX_LISTED);
    const width = Math.min(40, Math.max(...shown2.map((p) => columns(nameFor(p.id, "terminal")))));
    lines.push("", style.bold("Changed, already accepted") + style.dim(" (merging re-runs nothing for these)"));
    for (const p of shown2) {
      const since = diff.sinceBase.get(p.id);
      lines.push(
        `  ${style.green(padColumns(nameFor(p.id, "terminal"), width))}  ${style.dim(`wave ${p.wave}`)}  ${nameFor(`${sinceBaseText(since)} (${acceptedText(since.accepted)})`, "terminal")}`
      );
    }
    if (shown2.length < accepted.length) lines.push(style.dim(`  \u2026 and ${accepted.length - shown2.length} more`));
  }
  if (diff.added.length > 0) lines.push("", `${style.bold("Added:")} ${idsText(diff.added, byPair)}`);
  if (diff.removed.length > 0) lines.push("", `${style.bold("Removed:")} ${idsText(diff.removed, byPair)}`);
  if (options.columns !== void 0) lines.splice(0, lines.length, ...fitLines(lines.join("\n"), options.columns).split("\n"));
  const templateOf = (id) => plan.workflow.pairs?.get(id)?.template;
  const first = new Set(causes.flatMap((c) => changesFor(c, diff.changes, templateOf)));
  const changes = [...first, ...diff.changes.filter((c) => !first.has(c))];
  let budget = options.all ? Infinity : PATCH_LINES;
  let shown = 0;
  for (const change of changes) {
    const patch = change.patch.trimEnd().split("\n");
    if (shown > 0 && patch.length + 2 > budget) break;
    lines.push("", style.bold(`${nameFor(changeTitle(change), "terminal")} (${change.change})`));
    for (const line of patch) lines.push(colorLine(visible(line), style));
    budget -= patch.length + 2;
    shown++;
  }
  if (shown < changes.length) {
    const left = changes.slice(shown).reduce((n, c) => n + c.patch.trimEnd().split("\n").length, 0);
    lines.push("", style.dim(`\u2026 and ${changes.length - shown} more changed entries (${left} lines): pairflow diff --all shows every one.`));
  }
  if (diff.changes.length === 0) lines.push("", style.dim(`No workflow or prompts entry differs from ${nameFor(base.ref, "terminal")}.`));
  return lines.join("\n") + "\n";
}
var MAX_LISTED = 10;
function idsText(ids, all) {
  const shown = all ? ids : ids.slice(0, MAX_LISTED);
  return shown.map((id) => nameFor(id, "terminal")).join(", ") + (shown.length < ids.length ? ` and ${ids.length - shown.length} more` : "");
}
var ENTRY_WORDS = {
  pair: "configuration of",
  prompt: "prompt of",
  file: "file",
  section: "section"
};
function changeTitle(change) {
  if (change.kind === "workflow") return "workflow settings";
  return `${ENTRY_WORDS[change.kind]} ${change.id}`;
}
function colorLine(line, style) {
  if (line.startsWith("---") || line.startsWith("+++")) return style.bold(line);
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  return line;
}

// src/report/summary.ts
var STEP_SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024;
var MERMAID_MAX_CHARS = 5e4;
var MERMAID_MAX_EDGES = 500;
var STATUS_STYLE = {
  failed: { fill: "#ff8182", stroke: "#a40e26", colour: "red", marker: "\u2716 FAILED", shape: "hexagon", width: 4 },
  blocked: { fill: "#ffd8b5", stroke: "#bc4c00", colour: "orange", marker: "\u2298 blocked", shape: "stadium", width: 2 },
  interrupted: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow", marker: "\u23F8 interrupted", shape: "stadium", width: 2 },
  executed: { fill: "#dafbe1", stroke: "#1a7f37", colour: "green", marker: "\u2714", shape: "box", width: 1 },
  run: { fill: "#fff8c5", stroke: "#9a6700", colour: "yellow", marker: "\u25B6", shape: "box", width: 1 },
  reused: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey", marker: "", shape: "box", width: 1 },
  skip: { fill: "#f6f8fa", stroke: "#8c959f", colour: "grey", marker: "", shape: "box", width: 1 }
};
var MAX_NAMED = 5;
function causeParagraph(cause) {
  const differ = rootsDiffer(cause);
  const detail = (r) => {
    const parts = [r.status === "run" ? "" : statusText(r.status), r.downstream > 0 ? `+ ${number2(r.downstream)} downstream` : ""].filter(Boolean);
    return differ && parts.length > 0 ? ` (${parts.join(", ")})` : "";
  };
  const named = cause.roots.length > 1 ? cause.roots.slice(0, MAX_NAMED).map((r) => `${code(r.id)}${detail(r)}`) : [];
  const more = cause.roots.length - named.length;
  const list = named.length > 0 ? `: ${named.join(", ")}${more > 0 ? ` and ${number2(more)} more` : ""}` : "";
  return `${cause.failed > 0 ? "\u2716 " : ""}**${nameIn(cause.name, md, code)}** \u2014 ${causeExtent(cause, code)}${list}`;
}
function statusText(status) {
  const symbol = symbolOf(statusClass(status));
  return symbol ? `${symbol} ${status}` : status;
}
function symbolOf(status) {
  return STATUS_STYLE[status].marker.split(" ")[0];
}
function mermaidGraph(nodes, limits = {}) {
  const maxChars = limits.maxChars ?? MERMAID_MAX_CHARS;
  const maxEdges = limits.maxEdges ?? MERMAID_MAX_EDGES;
  if (nodes.length === 0) return { text: null, drawn: [], note: "No pairs to draw." };
  const affected = nodes.filter(isAffected).length;
  if (nodes.length > (limits.maxNodes ?? GRAPH_NODE_LIMIT) && affected === 0) {
    return { text: null, drawn: [], note: `Nothing is affected: the ${number2(nodes.length)} pairs are not drawn.` };
  }
  if (nodes.length > (limits.maxNodes ?? GRAPH_NODE_LIMIT) && !holdsTogether(nodes, limits.maxNodes ?? GRAPH_NODE_LIMIT)) {
    const condensed = condensedGraph(nodes);
    if (condensed.text !== null && condensed.text.length <= maxChars) return condensed;
  }
  for (let limit = limits.maxNodes ?? GRAPH_NODE_LIMIT; limit >= 1; limit = Math.floor(limit / 2)) {
    const sub = affectedSubgraph(
      nodes.map((n) => ({ ...n, reasons: n.reasons ?? [] })),
      limit
    );
    const chart = flowchart(sub.nodes);
    if (chart.text === null || chart.text.length > maxChars || chart.edges > maxEdges) continue;
    const drawn = sub.nodes.map((n) => nodes.find((m) => m.id === n.id));
    const left = [];
    if (sub.omittedAffected > 0) left.push(`${number2(sub.omittedAffected)} more affected`);
    if (sub.unchanged > 0) left.push(`${number2(sub.unchanged)} unchanged`);
    const note = left.length === 0 ? null : `Drawn: ${number2(drawn.length)} of the ${number2(affected)} affected pairs` + (sub.omittedAffected > 0 ? " (failed pairs and root causes first)" : "") + `; not drawn: ${left.join(" and ")} ${sub.omittedAffected + sub.unchanged === 1 ? "pair" : "pairs"}.`;
    return { text: chart.text, drawn, note };
  }
  return { text: null, drawn: [], note: `No graph: even one pair's label is more than GitHub draws (${number2(maxChars)} characters).` };
}
function flowchart(nodes) {
  if (nodes.length === 0) return { text: null, edges: 0 };
  const index = new Map(nodes.map((n, i) => [n.id, `p${i}`]));
  const lines = ["flowchart TD"];
  for (const n of nodes) lines.push(`  ${index.get(n.id)}${shape(n)}`);
  let edges = 0;
  for (const n of nodes) {
    for (const dep of n.requires) {
      const from = index.get(dep);
      if (from === void 0) continue;
      lines.push(`  ${from} --> ${index.get(n.id)}`);
      edges++;
    }
  }
  const byStatus = /* @__PURE__ */ new Map();
  for (const n of nodes) {
    const status = statusClass(n.status);
    append(byStatus, status, index.get(n.id));
  }
  for (const [status, ids] of byStatus) {
    const style = STATUS_STYLE[status];
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},stroke-width:${style.width}px,color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  return { text: lines.join("\n") + "\n", edges };
}
var MIN_EDGES_PER_NODE = 0.5;
var FEW_NODES = 10;
function holdsTogether(nodes, limit) {
  const affected = nodes.filter(isAffected);
  if (affected.length > limit) return false;
  if (affected.length <= FEW_NODES) return true;
  return flowchart(affected).edges >= affected.length * MIN_EDGES_PER_NODE;
}
var MAX_CAUSE_NODES = 8;
var MAX_FAILED_NODES = 8;
var MAX_GROUP_NODES = 8;
var MAX_LABEL = 32;
var MAX_ID_LABEL = 28;
var CONDENSED_CONFIG = "---\nconfig:\n  flowchart:\n    nodeSpacing: 14\n    rankSpacing: 70\n---\n";
function condensedGraph(input) {
  const nodes = withWaves(input);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const affected = nodes.filter(isAffected);
  const causes = causesOf(nodes);
  const templates = [...new Set(affected.filter((n) => n.template !== void 0).map((n) => n.template))];
  const keptTemplates = templates.slice(0, MAX_GROUP_NODES / 2);
  const inTemplate = (n) => n.template !== void 0 && keptTemplates.includes(n.template);
  const waves = [...new Set(affected.filter((n) => !inTemplate(n)).map((n) => n.wave))].sort((a, b) => a - b);
  const span = Math.max(1, Math.ceil(waves.length / (MAX_GROUP_NODES - keptTemplates.length)));
  const bucketOf = (wave) => Math.floor(waves.indexOf(wave) / span);
  const keys = [...keptTemplates.map((t) => `t ${t}`), ...[...new Set(waves.map(bucketOf))].map((b) => `w ${b}`)];
  const gid = new Map(keys.map((key, i) => [key, `g${i}`]));
  const groupOf = (n) => gid.get(inTemplate(n) ? `t ${n.template}` : `w ${bucketOf(n.wave)}`);
  const members = /* @__PURE__ */ new Map();
  for (const n of affected) append(members, groupOf(n), n);
  const lines = ["flowchart TD"];
  const classes = /* @__PURE__ */ new Map();
  const klass = (status, id) => append(classes, status, id);
  const drawn = [];
  const edges = [];
  const perGroup = (ids) => {
    const per = /* @__PURE__ */ new Map();
    for (const id of ids) per.set(groupOf(byId.get(id)), (per.get(groupOf(byId.get(id))) ?? 0) + 1);
    return [...gid.values()].filter((g) => per.has(g)).map((g) => [g, per.get(g)]);
  };
  const bigFirst = [...causes].sort((a, b) => reach(b) - reach(a));
  const shownCauses = causes.length > MAX_CAUSE_NODES ? bigFirst.slice(0, MAX_CAUSE_NODES - 1) : bigFirst;
  const folded = new Set(bigFirst.slice(shownCauses.length));
  for (const [i, c] of shownCauses.entries()) {
    lines.push(`  c${i}["${label(`${nameFor(short(c.why, MAX_LABEL), "mermaid")}<br/>${plural(reach(c), "pair")}`)}"]`);
    klass(c.failed > 0 ? "failed" : statusClass(c.rootStatuses[0]?.status ?? "run"), `c${i}`);
    for (const [g, n] of perGroup([...c.roots.map((r) => r.id), ...c.downstream])) edges.push(`  c${i} -->|${number2(n)}| ${g}`);
  }
  if (shownCauses.length < causes.length) {
    const rest = causes.filter((c) => folded.has(c));
    lines.push(`  cx["${label(plural(rest.length, "more cause"))}"]`);
    klass("run", "cx");
    for (const [g, n] of perGroup([...new Set(rest.flatMap((c) => [...c.roots.map((r) => r.id), ...c.downstream]))])) edges.push(`  cx -->|${number2(n)}| ${g}`);
  }
  for (const [key, g] of gid) {
    const group = members.get(g);
    const statuses = /* @__PURE__ */ new Map();
    for (const n of group) statuses.set(n.status, (statuses.get(n.status) ?? 0) + 1);
    const worst = GROUP_ORDER.find((s) => statuses.has(s)) ?? "run";
    const counts = [...statuses].sort(([a], [b]) => GROUP_ORDER.indexOf(a) - GROUP_ORDER.indexOf(b)).map(([s, n]) => `${number2(n)} ${s}`);
    const name = key.startsWith("t ") ? `${nameFor(key.slice(2), "mermaid")}[*]` : wavesText(waveRange(group));
    lines.push(`  ${g}["${label(`${name}<br/>${counts.join(", ")}`)}"]`);
    klass(statusClass(worst), g);
    drawn.push({ id: g, requires: [], status: worst });
  }
  const blocked = blockedBy(nodes);
  const dependents = /* @__PURE__ */ new Map();
  for (const n of nodes) for (const d of n.requires) append(dependents, d, n.id);
  const blockedBehind = (ids) => {
    const seen = /* @__PURE__ */ new Set();
    const queue = ids.flatMap((id) => dependents.get(id) ?? []);
    while (queue.length > 0) {
      const next = queue.pop();
      if (seen.has(next) || byId.get(next)?.status !== "blocked") continue;
      seen.add(next);
      queue.push(...dependents.get(next) ?? []);
    }
    return [...seen].map((b) => byId.get(b));
  };
  const failed = nodes.filter((n) => n.status === "failed").sort((a, b) => (blocked.get(b.id) ?? 0) - (blocked.get(a.id) ?? 0));
  const shownFailed = failed.length > MAX_FAILED_NODES ? failed.slice(0, MAX_FAILED_NODES - 1) : failed;
  const failedNode = (id, text, stopped, waves2) => {
    lines.push(`  ${id}{{"${label(text)}"}}`);
    klass("failed", id);
    if (stopped === 0) return;
    lines.push(`  ${id}b(["${label(`\u2298 ${number2(stopped)} blocked<br/>${waves2}`)}"])`);
    klass("blocked", `${id}b`);
    edges.push(`  ${id} --> ${id}b`);
  };
  for (const [i, f] of shownFailed.entries()) {
    const n = blocked.get(f.id) ?? 0;
    failedNode(`f${i}`, `\u2716 FAILED ${nameFor(short(f.id, MAX_ID_LABEL), "mermaid")}`, n, n > 0 ? wavesText(waveRange(blockedBehind([f.id]))) : "");
    drawn.push(f);
  }
  if (shownFailed.length < failed.length) {
    const rest = failed.slice(shownFailed.length);
    const behind = blockedBehind(rest.map((f) => f.id));
    failedNode("fx", `\u2716 ${number2(rest.length)} more failed`, behind.length, behind.length > 0 ? `by them, ${wavesText(waveRange(behind))}` : "");
  }
  if (failed.some((f) => (blocked.get(f.id) ?? 0) > 0)) drawn.push({ id: "blocked", requires: [], status: "blocked" });
  lines.push(...edges);
  for (const [status, ids] of classes) {
    const style = STATUS_STYLE[status];
    lines.push(`  classDef ${status} fill:${style.fill},stroke:${style.stroke},stroke-width:${style.width}px,color:#1f2328`);
    lines.push(`  class ${ids.join(",")} ${status}`);
  }
  const unchanged = nodes.length - affected.length;
  const note = `Condensed: the ${plural(affected.length, "affected pair")} as ${plural(causes.length, "cause")} and the groups of pairs they reach, each edge counting pairs` + (failed.length > 0 ? `; each failed pair with the pairs it blocked` : "") + (unchanged > 0 ? `; ${plural(unchanged, "unchanged pair")} not drawn` : "") + ".";
  return { text: CONDENSED_CONFIG + lines.join("\n") + "\n", drawn, note, condensed: true };
}
var GROUP_ORDER = ["failed", "blocked", "interrupted", "run", "executed"];
function withWaves(nodes) {
  const waves = /* @__PURE__ */ new Map();
  return nodes.map((n) => {
    const wave = n.wave ?? 1 + Math.max(0, ...n.requires.map((d) => waves.get(d) ?? 0));
    waves.set(n.id, wave);
    return { ...n, reasons: n.reasons ?? [], wave };
  });
}
function shape(n) {
  const style = STATUS_STYLE[statusClass(n.status)];
  const text = `"${style.marker ? `${style.marker} ` : ""}${nameFor(short(n.id, MAX_ID_LABEL), "mermaid")}"`;
  return style.shape === "hexagon" ? `{{${text}}}` : style.shape === "stadium" ? `([${text}])` : `[${text}]`;
}
function short(text, max) {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}\u2026${text.slice(text.length - (max - 1 - head))}`;
}
function statusClass(status) {
  return Object.hasOwn(STATUS_STYLE, status) ? status : "run";
}
function label(text) {
  return text.replace(/"/g, "#quot;");
}
function graphMarkdown(nodes, limits = {}) {
  const graph = mermaidGraph(nodes, limits);
  return [
    ...graph.text !== null ? ["```mermaid\n" + graph.text + "```", graph.condensed ? condensedLegend(graph.drawn) : graphLegend(graph.drawn)] : [],
    ...graph.note !== null ? [`_${graph.note}_`] : []
  ].join("\n\n");
}
function condensedLegend(drawn) {
  const present = Object.keys(STATUS_STYLE).filter((s) => drawn.some((n) => statusClass(n.status) === s));
  return present.map(
    (s) => s === "failed" ? "\u2716 red hexagon: a failed pair; red: a cause or group with one" : s === "blocked" ? "\u2298 orange rounded: blocked" : `${STATUS_STYLE[s].colour}: ${s}`
  ).join(" \xB7 ");
}
function graphLegend(nodes) {
  const present = Object.keys(STATUS_STYLE).filter((s) => nodes.some((n) => statusClass(n.status) === s));
  return present.map((s) => {
    const style = STATUS_STYLE[s];
    const form = style.shape === "hexagon" ? " hexagon" : style.shape === "stadium" ? " rounded" : "";
    const symbol = symbolOf(s);
    return `${symbol ? `${symbol} ` : ""}${style.colour}${form}: ${s}`;
  }).join(" \xB7 ");
}
function collapsed(title, body) {
  return `<details><summary>${escapeHtml(title)}</summary>

${body.trim()}

</details>`;
}
function number2(n) {
  return grouped(n);
}
function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// src/report/diffMarkdown.ts
var COMMENT_LIMIT = 65536;
var MAX_CAUSES = 50;
var MAX_ROWS = 100;
var MAX_IDS = 100;
var MAX_CELL = 300;
var MAX_OPEN_ROWS = 10;
var MAX_OPEN_DIFFS = 3;
var MAX_GRAPH_CHARS = 15e3;
var MAX_LINE = 1e3;
var MIN_SHARE = 1500;
function commentMarker(workflowFile) {
  return `<!-- pairflow:plan ${encodeURI(workflowFile)} -->`;
}
function diffMarkdown(diff, options = {}) {
  const limit = options.limit ?? COMMENT_LIMIT;
  const bounded = Number.isFinite(limit);
  const pointer = options.pointer ?? (options.summaryUrl ? `the whole diff is in the [job summary](${options.summaryUrl})` : "the whole diff is in the job summary of this check");
  const { plan, base } = diff;
  const accepted = alreadyAccepted(diff);
  const top = [];
  if (options.marker) top.push(options.marker);
  top.push(...options.hidden ?? []);
  top.push(headline(diff, options), "");
  top.push(`${code(diff.workflowFile)} compared with ${baseName(base, code)}`, "");
  if (!base.workflowFound) top.push(`${code(diff.workflowFile)} does not exist at ${code(base.ref)}: every pair is added.`, "");
  top.push(totalsLine(diff));
  const causes = causesOf(planNodes(plan));
  const shown = bounded ? causes.slice(0, MAX_CAUSES) : causes;
  const templateOf = (id) => plan.workflow.pairs?.get(id)?.template;
  const placed = /* @__PURE__ */ new Set();
  const slots = shown.map((cause) => changesFor(cause, diff.changes, templateOf).filter((c) => !placed.has(c) && placed.add(c)));
  slots.push(diff.changes.filter((c) => !placed.has(c)));
  const others = slots[slots.length - 1];
  const after = [];
  if (accepted.length > 0) {
    const rows = bounded ? accepted.slice(0, MAX_ROWS) : accepted;
    const table = ["Merging re-runs nothing for these.", "", "| Pair | Wave | What changed | Accepted |", "| --- | ---: | --- | --- |"];
    for (const p of rows) {
      const since = diff.sinceBase.get(p.id);
      table.push(`| ${nameFor(p.id, "cell")} | ${p.wave} | ${cell(sinceBaseText(since), bounded)} | ${md(acceptedText(since.accepted))} |`);
    }
    if (rows.length < accepted.length) table.push("", `\u2026and ${accepted.length - rows.length} more; ${pointer}.`);
    after.push("", "#### Changed in this pull request, already accepted", "");
    if (accepted.length > MAX_OPEN_ROWS) after.push(collapsed(`${count(accepted.length, "pair")} changed and already accepted`, table.join("\n")));
    else after.push(...table);
  }
  if (diff.added.length > 0) after.push("", "#### Added pairs", "", idList(diff.added, bounded, pointer));
  if (diff.removed.length > 0) after.push("", "#### Removed pairs", "", idList(diff.removed, bounded, pointer));
  const running = willRun(diff);
  let list = "";
  const assemble = (blocks, note) => {
    const firstCut = blocks.findIndex((slot) => slot.some((b) => b === null));
    const slotText = (i) => {
      const kept = blocks[i].filter((b) => b !== null);
      const left = i === firstCut ? note : "";
      if (kept.length === 0 && !left) return "";
      if (slots[i].length <= MAX_OPEN_DIFFS) return `
${kept.join("\n")}${left}`;
      return `
${collapsed(manyTitle(slots[i], kept.length), kept.join("\n") + left)}
`;
    };
    let text2 = top.join("\n") + "\n";
    if (shown.length > 0) {
      text2 += "\n#### Will re-run, by cause\n\n";
      text2 += shown.map((c, i) => `${causeParagraph(c)}
${slotText(i)}`).join("\n");
      if (shown.length < causes.length) text2 += `
\u2026and ${count(causes.length - shown.length, "more cause")}; ${pointer}.
`;
    }
    if (list) text2 += `
${list}
`;
    if (after.length > 0) text2 += after.join("\n") + "\n";
    const other = slotText(slots.length - 1);
    if (other) text2 += section(shown.some((_, i) => slots[i].length > 0) ? "Other changes" : "Changes", "") + other.slice(1);
    return text2;
  };
  let graph = section("Graph", diffGraph(diff, bounded));
  const diffsSize = diff.changes.reduce((n, c) => n + bytes(c.patch), 0);
  const fullList = runList(running, Infinity, pointer);
  if (running.length > 0 && bounded) {
    const without = assemble(
      slots.map((slot) => slot.map(() => "")),
      ""
    );
    const left = limit - bytes(without) - bytes(graph) - 2 * slots.length;
    list = bytes(fullList) + 2 <= left - diffsSize ? fullList : runList(running, Math.max(left - diffsSize, Math.min(bytes(fullList), Math.floor(left / 2))) - 2, pointer);
  } else list = fullList;
  const skeleton = assemble(
    slots.map((slot) => slot.map(() => "")),
    ""
  );
  const overhead = slots.filter((slot) => slot.length > 0).length + (others.length > 0 ? bytes(section("Other changes", "")) : 0) + slots.reduce((n, slot) => n + (slot.length > MAX_OPEN_DIFFS ? bytes(collapsed(manyTitle(slot, slot.length), "")) + 2 : 0), 0);
  let room = limit - bytes(skeleton) - overhead - bytes(graph);
  if (bounded && diffsSize > room && room < bytes(graph)) {
    graph = section("Graph", `Not drawn here, to leave room for the diffs; ${pointer}.`);
    room = limit - bytes(skeleton) - overhead - bytes(graph);
  }
  if (room < 0) return cut(skeleton + graph, limit, pointer);
  const ordered = slots.flat();
  const fitted = fitBlocks(ordered, room, pointer);
  let at = 0;
  const text = assemble(
    slots.map((slot) => slot.map(() => fitted.blocks[at++])),
    fitted.rest
  );
  const whole = text + graph;
  return bytes(whole) <= limit ? whole : cut(whole, limit, pointer);
}
function runList(running, room, pointer) {
  if (running.length === 0) return "";
  const open = `<details><summary>All ${count(running.length, "pair")} that will re-run, by wave</summary>

`;
  const close = "\n\n</details>";
  const note = (n) => `

\u2026and ${count(n, "more pair")}; ${pointer}.`;
  const waves = /* @__PURE__ */ new Map();
  for (const p of running) {
    const wave = waves.get(p.wave);
    if (wave) wave.push(p);
    else waves.set(p.wave, [p]);
  }
  let body = "";
  let used = bytes(open) + bytes(close) + bytes(note(running.length));
  if (used > room) return "";
  let listed = 0;
  outer: for (const [wave, pairs] of [...waves].sort(([a], [b]) => a - b)) {
    const head = `${body ? "\n" : ""}- wave ${wave} (${number(pairs.length)}): `;
    if (used + bytes(head) > room) break;
    let line = head;
    for (const [i, p] of pairs.entries()) {
      const item = `${i > 0 ? ", " : ""}${code(p.id)}`;
      if (used + bytes(line) + bytes(item) > room) {
        if (i > 0) body += line;
        break outer;
      }
      line += item;
      listed++;
    }
    body += line;
    used += bytes(line);
  }
  return open + body + (listed < running.length ? note(running.length - listed) : "") + close;
}
function diffGraph(diff, bounded) {
  return graphMarkdown(planNodes(diff.plan), bounded ? { maxChars: MAX_GRAPH_CHARS } : {});
}
function headline(diff, options) {
  const at = options.commit ? ` at ${options.commit.url ? `[\`${options.commit.sha.slice(0, 7)}\`](${options.commit.url})` : code(options.commit.sha.slice(0, 7))}` : "";
  const { run } = countsOf(diff);
  const what = run === 0 ? "nothing will re-run after merging" : `${count(run, "pair")} will re-run after merging${withoutCallsText(diff.plan)}`;
  const cost = options.cost === void 0 ? "" : run === 0 ? ", no cost" : `, ${costPhrase(options.cost)}`;
  return `### pairflow plan of ${code(diff.plan.workflow.name)}${at}: ${what}${cost}`;
}
function costPhrase(cost) {
  return cost.startsWith("$") ? `estimated cost ${cost}` : cost;
}
function manyTitle(changes, shown) {
  const kinds = /* @__PURE__ */ new Map();
  for (const c of changes) {
    const what = c.kind === "workflow" ? "workflow settings" : { pair: "configurations", prompt: "prompts", file: "files", section: "sections" }[c.kind];
    kinds.set(what, (kinds.get(what) ?? 0) + 1);
  }
  const parts = [...kinds].map(([what, n]) => what === "workflow settings" ? what : `${n} ${what}`);
  return `The diffs of ${parts.join(", ")}${shown < changes.length ? ` (${shown} shown here)` : ""}`;
}
function section(title, body) {
  return `
#### ${title}

${body}${body ? "\n" : ""}`;
}
function totalsLine(diff) {
  const { run, accepted, unchanged } = countsOf(diff);
  const rest = accepted > 0 ? `${accepted} changed and already accepted, ${unchanged} unchanged` : `${unchanged} unchanged`;
  const head = run === 0 ? `**Nothing will re-run after merging**: ${accepted > 0 ? rest : `all ${count(unchanged, "pair")} unchanged`}.` : `**${count(run, "pair")} will re-run after merging**, ${rest}.`;
  return `${head} ${count(diff.added.length, "pair")} added, ${diff.removed.length} removed.`;
}
function fitBlocks(changes, room, pointer) {
  const lines = changes.map((c) => c.patch.trimEnd().split("\n"));
  const whole = changes.map((c, i) => block(c, lines[i], ""));
  const sizes = whole.map((b) => bytes(b) + 1);
  if (sizes.reduce((a, b) => a + b, 0) <= room) return { blocks: whole, rest: "" };
  const rest = (n) => n > 0 ? `
\u2026and ${count(n, "more changed entry", "more changed entries")} not shown here; ${pointer}.
` : "";
  let left = room - bytes(rest(changes.length));
  const share = Math.max(fairShare(sizes, left), MIN_SHARE);
  const out = [];
  for (const [i, c] of changes.entries()) {
    const budget = Math.min(share, left);
    if (sizes[i] <= budget) {
      out.push(whole[i]);
    } else {
      const all = lines[i].map(shortLine);
      const fits = (n2) => bytes(block(c, all.slice(0, n2), truncationNote(all.length - n2, pointer))) + 1 <= budget;
      let n = 0;
      for (let hi = all.length - 1; n < hi; ) {
        const mid = Math.ceil((n + hi) / 2);
        if (fits(mid)) n = mid;
        else hi = mid - 1;
      }
      if (!all.slice(2, n).some((l) => l.startsWith("+") || l.startsWith("-"))) break;
      out.push(block(c, all.slice(0, n), truncationNote(all.length - n, pointer)));
    }
    left -= bytes(out[out.length - 1]) + 1;
  }
  const dropped = changes.length - out.length;
  return { blocks: [...out, ...Array(dropped).fill(null)], rest: rest(dropped) };
}
function fairShare(sizes, room) {
  const sorted = [...sizes].sort((a, b) => a - b);
  let left = room;
  for (const [k, s] of sorted.entries()) {
    const level = left / (sorted.length - k);
    if (s > level) return Math.floor(level);
    left -= s;
  }
  return Infinity;
}
function shortLine(line) {
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE)} \u2026(${line.length - MAX_LINE} more characters)`;
}
function truncationNote(hidden, pointer) {
  return `Cut short: ${count(hidden, "more line")} not shown, to keep the comment under GitHub's limit of 65,536 characters; ${pointer}.`;
}
function block(change, lines, note) {
  const what = change.kind === "workflow" ? "workflow settings" : `${ENTRY_WORDS[change.kind]} <code>${nameFor(change.id ?? "", "html")}</code>`;
  const out = [`<details><summary>${what} (${change.change})</summary>`, ""];
  const fence = "`".repeat(Math.max(3, longestRun(lines, "`") + 1));
  out.push(fence + "diff", ...lines, fence, "");
  if (note) out.push(note, "");
  out.push("</details>", "");
  return out.join("\n");
}
function cut(text, limit, pointer) {
  const note = `
\u2026cut short to keep the comment under GitHub's limit; ${pointer}.
`;
  let out = "";
  let used = bytes(note);
  for (const line of text.split("\n")) {
    used += bytes(line) + 1;
    if (used > limit) break;
    out += line + "\n";
  }
  return out + note;
}
function count(n, one, many = `${one}s`) {
  return `${number(n)} ${n === 1 ? one : many}`;
}
function idList(ids, bounded, pointer) {
  const shown = bounded ? ids.slice(0, MAX_IDS) : ids;
  const more = ids.length - shown.length;
  return shown.map(code).join(", ") + (more > 0 ? `, and ${more} more; ${pointer}.` : "");
}
function cell(text, bounded) {
  const short2 = bounded && text.length > MAX_CELL ? text.slice(0, MAX_CELL - 1) + "\u2026" : text;
  return md(short2.replace(/\s*\n\s*/g, " "));
}

// src/app/diff.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path2 from "node:path";

// src/github/git.ts
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
var UnknownRefError = class extends UsageError {
  constructor(message, ref, fetchError) {
    super(message);
    this.ref = ref;
    this.fetchError = fetchError;
  }
  ref;
  fetchError;
};
function openRepo(dir, display = dir) {
  const top = git(dir, ["rev-parse", "--show-toplevel"]);
  if (top.error)
    throw new UsageError(`git could not be started (${top.error.message}); pairflow diff reads the base revision with git, so install it or put it on PATH`);
  if (top.status !== 0) throw new UsageError(`${display} is not inside a git repository; pairflow diff reads the base revision with git`);
  const root = realpathSync.native(top.stdout.trim());
  return {
    root,
    resolve(ref, options = {}) {
      if (ref === "" || ref.startsWith("-")) throw new UsageError(`--base "${ref}" is not a git ref; give a branch, tag or commit`);
      let found = revParse(root, ref);
      let fetchError = null;
      if (found === null && options.fetch) {
        const auth = typeof options.fetch === "object" ? options.fetch.auth : void 0;
        const fetched = git(root, ["fetch", "--no-tags", "--depth=1", "origin", ref], auth && authEnv(auth.server, auth.token));
        if (fetched.status !== 0) fetchError = fetched.error?.message ?? (fetched.stderr.trim() || `git fetch exited with ${fetched.status}`);
        found = revParse(root, ref);
      }
      if (found === null) {
        throw new UnknownRefError(
          `unknown git ref "${ref}" in ${root}; give a branch, tag or commit that exists here (fetch it first, e.g. git fetch origin ${ref})`,
          ref,
          fetchError
        );
      }
      return found;
    },
    relative(file) {
      return path.relative(root, realpathSync.native(file)).split(path.sep).join("/");
    },
    read(commit, relPath) {
      const spec = `${commit}:${relPath}`;
      if (git(root, ["cat-file", "-t", spec]).stdout.trim() !== "blob") return null;
      const shown = git(root, ["cat-file", "blob", spec]);
      if (shown.status !== 0) throw new UsageError(`cannot read ${spec} with git: ${firstLine(shown.stderr)}`);
      return shown.stdout;
    }
  };
}
function revParse(root, ref) {
  const r = git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  return r.status === 0 ? r.stdout.trim() : null;
}
function authEnv(server, token) {
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  const count2 = Number(process.env.GIT_CONFIG_COUNT ?? 0) || 0;
  return {
    GIT_CONFIG_COUNT: String(count2 + 1),
    [`GIT_CONFIG_KEY_${count2}`]: `http.${server.replace(/\/+$/, "")}/.extraheader`,
    [`GIT_CONFIG_VALUE_${count2}`]: `AUTHORIZATION: basic ${basic}`
  };
}
function git(cwd, args, extraEnv = {}) {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 512 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...extraEnv } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}
function firstLine(text) {
  return text.trim().split("\n")[0] ?? "";
}

// src/app/diff.ts
async function planDiff(target, options) {
  const { cwd } = options;
  const workflowPath = resolveWorkflowPath(target, cwd);
  const repo = openRepo(path2.dirname(workflowPath), displayPath(path2.dirname(workflowPath), cwd));
  const commit = repo.resolve(options.base, { fetch: options.fetch });
  const workflowFile = repo.relative(workflowPath);
  const baseLock = readLockAt(repo, commit, options.base, posixLockPath(workflowFile)) ?? await options.baseState?.() ?? null;
  const planned = await planTarget(workflowPath, { cwd, env: options.env, stateDir: options.stateDir, remote: options.remote });
  const { plan, workflow } = planned;
  const baseView = {
    ...planned.view,
    lock: baseLock,
    record: () => void 0,
    hasContent: () => false,
    outputHash: () => void 0,
    remote: void 0
  };
  const sinceBase = await compareWithBase(plan, baseView, planned.lock);
  const head = snapshotOf({
    workflowFile,
    workflowText: readFileSync(workflow.path, "utf8"),
    promptsFile: workflow.promptsPath && repo.relative(workflow.promptsPath),
    promptsText: workflow.promptsPath && readFileSync(workflow.promptsPath, "utf8")
  });
  const base = snapshotAt(repo, commit, options.base, workflowFile);
  const computed = computeDiff(plan, sinceBase, head, base, { ref: options.base, commit });
  const dir = path2.dirname(workflow.path);
  const inRepo = (file) => path2.posix.join(path2.posix.dirname(workflowFile), file);
  const files = fileChanges(plan, {
    base: (file) => tryRead(() => repo.read(commit, inRepo(file))),
    head: (file) => tryRead(() => readFileSync(path2.join(dir, file), "utf8"))
  });
  return { ...computed, changes: [...computed.changes, ...files], planned, head: headCommit(repo) };
}
function tryRead(read) {
  try {
    return read();
  } catch {
    return null;
  }
}
function headCommit(repo) {
  try {
    return repo.resolve("HEAD");
  } catch {
    return null;
  }
}
function snapshotAt(repo, commit, ref, workflowFile) {
  const workflowText = repo.read(commit, workflowFile);
  if (workflowText === null) return null;
  const where = (file) => `${ref}:${file}`;
  let settings;
  try {
    settings = parseYaml(workflowText);
  } catch (err) {
    throw new UsageError(`${where(workflowFile)} does not parse (${err.message}); compare against a base whose workflow is valid`);
  }
  const promptsFile = basePromptsFile(repo, commit, workflowFile, settings);
  const promptsText = promptsFile === null ? null : repo.read(commit, promptsFile);
  try {
    return snapshotOf({ workflowFile, workflowText, promptsFile, promptsText });
  } catch (err) {
    throw new UsageError(
      `${where(promptsFile ?? workflowFile)} does not parse (${err.message}); compare against a base whose prompts file is valid`
    );
  }
}
function basePromptsFile(repo, commit, workflowFile, workflow) {
  const dir = path2.posix.dirname(workflowFile);
  const named = workflow?.prompts;
  if (typeof named === "string") {
    const file = path2.posix.normalize(path2.posix.join(dir, named));
    return file.startsWith("../") ? null : file;
  }
  return PROMPTS_NAMES.map((name) => path2.posix.join(dir, name)).find((file) => repo.read(commit, file) !== null) ?? null;
}
function posixLockPath(workflowFile) {
  return lockPathFor(workflowFile).split(path2.sep).join("/");
}
function readLockAt(repo, commit, ref, lockFile) {
  const text = repo.read(commit, lockFile);
  if (text === null) return null;
  const dir = mkdtempSync(path2.join(tmpdir(), "pairflow-base-"));
  try {
    const file = path2.join(dir, "base.lock.json");
    writeFileSync(file, text);
    return readLock(file, `${ref}:${lockFile}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// src/github/event.ts
import { readFileSync as readFileSync2 } from "node:fs";
function pullRequestOf(env) {
  if (env.GITHUB_EVENT_NAME !== "pull_request" || !env.GITHUB_EVENT_PATH || !env.GITHUB_REPOSITORY) return void 0;
  const event = JSON.parse(readFileSync2(env.GITHUB_EVENT_PATH, "utf8"));
  if (!event.pull_request) return void 0;
  const [owner, repo] = env.GITHUB_REPOSITORY.split("/");
  const headSha = event.pull_request.head?.sha ?? env.GITHUB_SHA ?? "";
  return { number: event.pull_request.number, baseSha: event.pull_request.base.sha, headSha, repo: { owner, repo } };
}
function commentLinks(env, sha) {
  const server = env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}` : void 0;
  return {
    commit: { sha, ...server ? { url: `${server}/commit/${sha}` } : {} },
    ...server && env.GITHUB_RUN_ID ? { summaryUrl: `${server}/actions/runs/${env.GITHUB_RUN_ID}` } : {}
  };
}

// src/cli/commands/diff.ts
function commentOptions(diff, env) {
  const sha = pullRequestOf(env)?.headSha ?? diff.head;
  const links = sha ? commentLinks(env, sha) : {};
  return { marker: commentMarker(diff.workflowFile), ...links, cost: totalCostText(diff.planned.estimate) };
}
function costLine(diff) {
  return diff.planned.plan.pairs.some((p) => p.action === "run") ? capitalize(costPhrase(totalCostText(diff.planned.estimate))) : void 0;
}
function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
function registerDiff(program, { io }) {
  program.command("diff").description(
    "Show what the working tree changes against a git ref: the pairs that will re-run after merging and why (the plan `pairflow plan` makes here), the changed pairs already accepted, added and removed pairs, and a diff of each changed workflow and prompts entry. Executes nothing."
  ).argument("[path]", PATH_HELP).requiredOption("--base <ref>", "the branch, tag or commit to compare with (its workflow, prompts and lock file are read with git, to say what changed)").addOption(new Option("--format <format>", "text for people, markdown for the pull request comment's text").choices(["text", "markdown"]).default("text")).option("--json", "write the diff as JSON (version 1) to stdout, and nothing else").option("--all", "list every pair that re-runs and every entry's diff, however many (a diff longer than a screen is otherwise put by cause)").addOption(stateDirOption()).addHelpText(
    "after",
    examples([
      "pairflow diff --base main",
      "pairflow diff examples/tdd-stack --base origin/main --format markdown > comment.md",
      "pairflow diff --base HEAD~1 --json | jq '.totals'"
    ])
  ).action(async (target, opts) => {
    if (opts.json && opts.format !== "text") throw new UsageError("--json and --format cannot be combined; choose one");
    const diff = await planDiff(target, { base: opts.base, cwd: io.cwd, env: io.env, stateDir: opts.stateDir });
    if (opts.json) io.stdout.write(JSON.stringify(diffJson(diff, io.cwd), null, 2) + "\n");
    else if (opts.format === "markdown") io.stdout.write(diffMarkdown(diff, commentOptions(diff, io.env)));
    else
      io.stdout.write(
        diffText(diff, styleFor(io.stdout, io.env), {
          cwd: io.cwd,
          all: opts.all,
          cost: costLine(diff),
          columns: terminalColumns(io.stdout)
        })
      );
  });
}
export {
  registerDiff
};
