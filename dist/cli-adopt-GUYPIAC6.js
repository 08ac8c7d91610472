#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  acquireRunLock,
  newRunId
} from "./cli-chunk-74NRXERS.js";
import {
  planOpened
} from "./cli-chunk-3N45G7H4.js";
import {
  openState
} from "./cli-chunk-TPNKQGFG.js";
import {
  writeLock
} from "./cli-chunk-LAOPAIVL.js";
import {
  onlyPairs,
  plannedComponents
} from "./cli-chunk-YKULHKX5.js";
import {
  nameFor
} from "./cli-chunk-FEFDJVE6.js";
import {
  emptyLock,
  lockEntry
} from "./cli-chunk-7NHSQKXA.js";
import {
  PATH_HELP,
  UsageError,
  assemble,
  examples,
  resolveWorkflowPath,
  sha256Hex,
  splitText,
  stateDirOption
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/app/adopt.ts
async function adoptPairs(target, request) {
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const release = await acquireRunLock(workflowPath, { runId: newRunId(), wait: true });
  try {
    return await adoptLocked(target, request);
  } finally {
    release();
  }
}
async function adoptLocked(target, request) {
  const now = (request.now ?? (() => /* @__PURE__ */ new Date()))().toISOString();
  let opened = openState(target, request);
  const named = namedPairs(opened, request.ids);
  const wanted = /* @__PURE__ */ new Set();
  for (const id of named) {
    const pair = opened.workflow.pairs.get(id);
    if (pair.piece) wanted.add(`${pair.template}[${pair.piece.file}]`);
    else wanted.add(id);
  }
  for (const id of wanted) {
    const pair = opened.workflow.pairs.get(id);
    if (pair.output === void 0) throw new UsageError(`adopt ${id}: it writes no output file, so there is nothing to adopt`);
    if (opened.outputs.read(pair) === void 0)
      throw new UsageError(`adopt ${id}: its output ${pair.output} does not exist; write it, or let pairflow run make it`);
    const kind = pair.assembly?.split.kind;
    if (kind === "json" || kind === "yaml")
      throw new UsageError(
        `adopt ${id}: a ${kind} catalogue split by key cannot be adopted yet; adopt it as a whole by leaving split out, or let pairflow run translate it`
      );
  }
  const done = [];
  for (; ; ) {
    const { plan } = await planOpened(opened, {});
    const lock = opened.lock ?? emptyLock(opened.workflow.name);
    const byId = new Map(plan.pairs.map((p) => [p.id, p]));
    let wrote = false;
    for (const id of [...wanted]) {
      const pair = opened.workflow.pairs.get(id);
      const file = opened.outputs.read(pair);
      if (pair.assembly) {
        const pieces = pair.requires.map((r) => opened.workflow.pairs.get(r));
        const sections = sectionsOf(pair, pieces, file.toString("utf8"));
        const toRecord = pieces.filter((p, i) => {
          const entry = lockEntry(lock, p.id);
          return entry?.source !== "human" || entry.configRef !== byId.get(p.id)?.configRef || entry.contentHash !== sha256Hex(sections[i]);
        });
        if (toRecord.length > 0) {
          pieces.forEach((piece, i) => {
            const planned2 = byId.get(piece.id);
            if (!toRecord.includes(piece) || planned2.configRef === null) return;
            record(opened, lock, piece, planned2, Buffer.from(sections[i]), "human", now);
            wrote = true;
          });
          continue;
        }
        const planned = byId.get(id);
        if (planned.configRef === null) continue;
        const already = lockEntry(lock, id)?.configRef === planned.configRef && lockEntry(lock, id)?.contentHash === sha256Hex(file);
        if (!already) record(opened, lock, pair, planned, file, "generated", now);
        done.push({ id, output: pair.output, sections: pieces.length, ...already ? { already } : {} });
      } else {
        const planned = byId.get(id);
        if (planned.configRef === null) continue;
        const entry = lockEntry(lock, id);
        const already = entry?.source === "human" && entry.configRef === planned.configRef && entry.contentHash === sha256Hex(file);
        if (!already) record(opened, lock, pair, planned, file, "human", now);
        done.push({ id, output: pair.output, ...already ? { already } : {} });
      }
      wanted.delete(id);
      wrote = true;
    }
    if (wrote) {
      writeLock(opened.lockPath, lock);
      opened = openState(target, request);
    }
    if (wanted.size === 0) return done.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    if (!wrote) {
      const waiting = [...wanted].sort();
      throw new UsageError(
        `adopt: ${waiting.join(", ")} ${waiting.length === 1 ? "depends" : "depend"} on pairs that are not accepted yet; adopt those too, or run them first`
      );
    }
  }
}
function namedPairs(opened, ids) {
  try {
    return onlyPairs(opened.workflow, { only: [...ids] });
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replace(/^--only /, "adopt "));
    throw err;
  }
}
function sectionsOf(assembly, pieces, text) {
  const spec = assembly.assembly.split;
  const sections = splitText(text, spec).map((p) => p.text);
  if (sections.length !== pieces.length)
    throw new UsageError(
      `adopt ${assembly.id}: ${assembly.output} has ${sections.length} ${sections.length === 1 ? "section" : "sections"} and its source ${pieces.length}; adopt it when they match section for section, or let pairflow run translate it`
    );
  if (assemble(spec, "", sections) !== text)
    throw new UsageError(`adopt ${assembly.id}: ${assembly.output} does not end with a line break; add one and adopt it again`);
  return sections;
}
function record(opened, lock, pair, planned, content, source, at) {
  const contentHash = opened.store.putContent(content);
  const components = plannedComponents(planned) ?? {};
  opened.store.putRecord({
    pair: pair.id,
    configRef: planned.configRef,
    status: "accepted",
    contentHash,
    components,
    at,
    source,
    model: pair.model,
    attempts: 0
  });
  lock.pairs[pair.id] = {
    configRef: planned.configRef,
    contentHash,
    source,
    model: pair.model,
    components,
    attempts: 0,
    tokens: { input: 0, output: 0 },
    durationMs: 0,
    acceptedAt: at
  };
}

// src/cli/commands/adopt.ts
function registerAdopt(program, { io }) {
  program.command("adopt").description(
    "Record outputs that already exist (translations people wrote) as accepted for their pairs' current sources, as a person's, with no model call. From then on each is a hand edit like any other: kept while its sources stand, stale (or carried forward with carry_edits) once they change. A split file is adopted section by section. See docs/foreach.md."
  ).argument("<pairs...>", "pair ids, a foreach pair's own id (all its instances), or a slice of one: translate[fr], translate[docs/a.md]").option("--workflow <path>", PATH_HELP).addOption(stateDirOption()).addHelpText(
    "after",
    examples(["pairflow adopt 'translate[fr]'   # every French page already translated", "pairflow adopt 'translate[de:docs/intro.md]' --workflow docs/"])
  ).action(async (pairs, opts) => {
    const adopted = await adoptPairs(opts.workflow, { cwd: io.cwd, env: io.env, stateDir: opts.stateDir, ids: pairs });
    for (const a of adopted) {
      const what = a.sections === void 0 ? "" : ` (${a.sections} ${a.sections === 1 ? "section" : "sections"})`;
      io.stdout.write(`${a.already ? "already adopted" : "adopted"}  ${nameFor(a.id, "terminal")}  ${nameFor(a.output, "terminal")}${what}
`);
    }
  });
}
export {
  registerAdopt
};
