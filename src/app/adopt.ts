/**
 * `pairflow adopt PAIR...`: an output that already exists (a translation people wrote before the
 * site used pairflow) recorded as accepted for the pair's current sources, as a person's, with no
 * model call. From then on it is a hand edit like any other (docs/foreach.md): kept while its
 * sources stand, named stale (or carried forward with carry_edits) once they change.
 *
 * A split file's output is adopted section by section: the file is split as its source is, each
 * section recorded as the person's text of the source's section at the same place, and the file
 * as what putting them together gives; so a later edit of one source section makes only that
 * section stale.
 */
import { assemble, splitText } from "../config/split.js";
import { writeLock } from "../lockfile/write.js";
import { UsageError } from "../model/errors.js";
import type { PlannedPair } from "../model/plan.js";
import { emptyLock, lockEntry, type LockEntry, type LockFile } from "../model/records.js";
import type { Pair } from "../model/workflow.js";
import { plannedComponents } from "../plan/plan.js";
import { onlyPairs } from "../plan/selection.js";
import { acquireRunLock } from "../records/mutex.js";
import { sha256Hex } from "../refs/hash.js";
import { resolveWorkflowPath } from "../workspace/load.js";
import { planOpened } from "./plan.js";
import { openState, type Opened, type StateOptions } from "./state.js";
import { newRunId } from "../engine/engine.js";

export interface AdoptRequest extends StateOptions {
  /** Pair ids, foreach pairs' own ids, or slices (`translate[fr]`), as --only takes them. */
  ids: readonly string[];
  now?: () => Date;
}

export interface Adopted {
  id: string;
  output: string;
  /** For a split file: how many sections were adopted with it. */
  sections?: number;
  /** Already recorded as the person's for these sources: nothing written. */
  already?: boolean;
}

/** Records the outputs of the pairs named as accepted, a person's, and returns what was adopted. */
export async function adoptPairs(target: string | undefined, request: AdoptRequest): Promise<Adopted[]> {
  const workflowPath = resolveWorkflowPath(target, request.cwd);
  const release = await acquireRunLock(workflowPath, { runId: newRunId(), wait: true });
  try {
    return await adoptLocked(target, request);
  } finally {
    release();
  }
}

async function adoptLocked(target: string | undefined, request: AdoptRequest): Promise<Adopted[]> {
  const now = (request.now ?? (() => new Date()))().toISOString();
  let opened = openState(target, request);
  const named = namedPairs(opened, request.ids);
  // A piece is adopted with its file: its file's instance stands for it.
  const wanted = new Set<string>();
  for (const id of named) {
    const pair = opened.workflow.pairs.get(id)!;
    if (pair.piece) wanted.add(`${pair.template}[${pair.piece.file}]`);
    else wanted.add(id);
  }
  for (const id of wanted) {
    const pair = opened.workflow.pairs.get(id)!;
    if (pair.output === undefined) throw new UsageError(`adopt ${id}: it writes no output file, so there is nothing to adopt`);
    if (opened.outputs.read(pair) === undefined)
      throw new UsageError(`adopt ${id}: its output ${pair.output} does not exist; write it, or let pairflow run make it`);
    const kind = pair.assembly?.split.kind;
    if (kind === "json" || kind === "yaml")
      throw new UsageError(
        `adopt ${id}: a ${kind} catalogue split by key cannot be adopted yet; adopt it as a whole by leaving split out, or let pairflow run translate it`,
      );
  }
  const done: Adopted[] = [];
  // Round by round: a pair is recorded once what it depends on is accepted (a split file once its sections are).
  for (;;) {
    const { plan } = await planOpened(opened, {});
    const lock: LockFile = opened.lock ?? emptyLock(opened.workflow.name);
    const byId = new Map(plan.pairs.map((p) => [p.id, p]));
    let wrote = false;
    for (const id of [...wanted]) {
      const pair = opened.workflow.pairs.get(id)!;
      const file = opened.outputs.read(pair)!;
      if (pair.assembly) {
        const pieces = pair.requires.map((r) => opened.workflow.pairs.get(r)!);
        const sections = sectionsOf(pair, pieces, file.toString("utf8"));
        // Each section as the person's text of the source's section at its place, unless recorded so already.
        const toRecord = pieces.filter((p, i) => {
          const entry = lockEntry(lock, p.id);
          return entry?.source !== "human" || entry.configRef !== byId.get(p.id)?.configRef || entry.contentHash !== sha256Hex(sections[i]!);
        });
        if (toRecord.length > 0) {
          pieces.forEach((piece, i) => {
            const planned = byId.get(piece.id)!;
            if (!toRecord.includes(piece) || planned.configRef === null) return;
            record(opened, lock, piece, planned, Buffer.from(sections[i]!), "human", now);
            wrote = true;
          });
          continue;
        }
        const planned = byId.get(id)!;
        if (planned.configRef === null) continue;
        const already = lockEntry(lock, id)?.configRef === planned.configRef && lockEntry(lock, id)?.contentHash === sha256Hex(file);
        if (!already) record(opened, lock, pair, planned, file, "generated", now);
        done.push({ id, output: pair.output!, sections: pieces.length, ...(already ? { already } : {}) });
      } else {
        const planned = byId.get(id)!;
        if (planned.configRef === null) continue;
        const entry = lockEntry(lock, id);
        const already = entry?.source === "human" && entry.configRef === planned.configRef && entry.contentHash === sha256Hex(file);
        if (!already) record(opened, lock, pair, planned, file, "human", now);
        done.push({ id, output: pair.output!, ...(already ? { already } : {}) });
      }
      wanted.delete(id);
      wrote = true;
    }
    if (wrote) {
      writeLock(opened.lockPath, lock);
      opened = openState(target, request);
    }
    if (wanted.size === 0) return done.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (!wrote) {
      const waiting = [...wanted].sort();
      throw new UsageError(
        `adopt: ${waiting.join(", ")} ${waiting.length === 1 ? "depends" : "depend"} on pairs that are not accepted yet; adopt those too, or run them first`,
      );
    }
  }
}

/** The pairs the ids name, as --only takes them; a UsageError naming the one that names none. */
function namedPairs(opened: Opened, ids: readonly string[]): Set<string> {
  try {
    return onlyPairs(opened.workflow, { only: [...ids] })!;
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(err.message.replace(/^--only /, "adopt "));
    throw err;
  }
}

/** The file split as its source is, section by section in order; a UsageError when they do not line up. */
function sectionsOf(assembly: Pair, pieces: readonly Pair[], text: string): string[] {
  const spec = assembly.assembly!.split;
  const sections = splitText(text, spec).map((p) => p.text);
  if (sections.length !== pieces.length)
    throw new UsageError(
      `adopt ${assembly.id}: ${assembly.output} has ${sections.length} ${sections.length === 1 ? "section" : "sections"} and its source ${pieces.length}; adopt it when they match section for section, or let pairflow run translate it`,
    );
  if (assemble(spec, "", sections) !== text)
    throw new UsageError(`adopt ${assembly.id}: ${assembly.output} does not end with a line break; add one and adopt it again`);
  return sections;
}

/** A lock entry and a store record of content as the pair's accepted artifact for its planned reference. */
function record(opened: Opened, lock: LockFile, pair: Pair, planned: PlannedPair, content: Buffer, source: LockEntry["source"], at: string): void {
  const contentHash = opened.store.putContent(content);
  const components = plannedComponents(planned) ?? {};
  opened.store.putRecord({
    pair: pair.id,
    configRef: planned.configRef!,
    status: "accepted",
    contentHash,
    components,
    at,
    source,
    model: pair.model,
    attempts: 0,
  });
  lock.pairs[pair.id] = {
    configRef: planned.configRef!,
    contentHash,
    source,
    model: pair.model,
    components,
    attempts: 0,
    tokens: { input: 0, output: 0 },
    durationMs: 0,
    acceptedAt: at,
  };
}
