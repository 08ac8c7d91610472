/**
 * What a change does to a workflow, base against head: the plan of the head made against the
 * base's accepted state (which pairs re-run and why, which are unchanged), the pairs added and
 * removed, and a unified diff of every workflow, pair and prompts entry that changed. Pure: the
 * files' texts come in, the diff goes out.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { parseDocument, stringify } from "yaml";
import type { Plan, PlannedPair } from "../model/plan.js";

/** One side's configuration, as written: entries keep the file's key order. */
export interface ConfigSnapshot {
  /** Repository-relative paths, used as labels. */
  workflowFile: string;
  promptsFile: string | null;
  /** Top-level workflow settings: everything but `action_pairs`. */
  settings: Record<string, unknown>;
  /** `action_pairs` entries by id, in file order. */
  pairs: Record<string, unknown>;
  /** Prompts-file entries by pair id. */
  prompts: Record<string, unknown>;
}

export type EntryKind = "workflow" | "pair" | "prompt";

export interface EntryChange {
  /** workflow: the top-level settings; pair: an `action_pairs` entry; prompt: a prompts-file entry. */
  kind: EntryKind;
  /** The pair's id; null for the workflow settings. */
  id: string | null;
  change: "added" | "removed" | "changed";
  /** A unified diff of the entry, base (a/) to head (b/). */
  patch: string;
}

export interface BaseInfo {
  /** The ref as given (`main`, `origin/main`, a SHA). */
  ref: string;
  commit: string;
}

export interface PlanDiff {
  /**
   * The head's plan, made against the base's accepted state. A caller that knows more of that state
   * (the action, with the Actions cache) may replace it with an updated plan before rendering.
   */
  plan: Plan;
  /** Repository-relative path of the head's workflow file (names the pull request comment). */
  workflowFile: string;
  base: BaseInfo & { workflowFound: boolean };
  /** Pair ids in the head and not the base (head order), and the reverse (base order). */
  added: string[];
  removed: string[];
  changes: EntryChange[];
}

/** The pairs that will run, in plan order. */
export function willRun(diff: PlanDiff): PlannedPair[] {
  return diff.plan.pairs.filter((p) => p.action === "run");
}

/** The base as people name it: `main (1a2b3c4d5e6f)`, or only the short commit when the ref is one. */
export function baseName(base: BaseInfo, quote: (s: string) => string = (s) => s): string {
  const short = quote(base.commit.slice(0, 12));
  return base.commit.startsWith(base.ref) ? short : `${quote(base.ref)} (${short})`;
}

/** Lines of context around each change in a unified diff. */
const CONTEXT = 3;

export function computeDiff(plan: Plan, head: ConfigSnapshot, base: ConfigSnapshot | null, info: BaseInfo): PlanDiff {
  const basePairs = base?.pairs ?? {};
  const added = Object.keys(head.pairs).filter((id) => !Object.hasOwn(basePairs, id));
  const removed = Object.keys(basePairs).filter((id) => !Object.hasOwn(head.pairs, id));

  const changes: EntryChange[] = [];
  const add = (kind: EntryKind, id: string | null, before: unknown, after: unknown, files: [string | null, string | null]) => {
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
    workflowFile: head.workflowFile,
    base: { ...info, workflowFound: base !== null },
    added,
    removed,
    changes,
  };
}

/**
 * The workflow and prompts files' entries. Both texts are expected to parse (the head's have been
 * validated; a base that does not parse is reported by the caller).
 */
export function snapshotOf(files: { workflowFile: string; workflowText: string; promptsFile: string | null; promptsText: string | null }): ConfigSnapshot {
  const workflow = asObject(parseYaml(files.workflowText));
  const { action_pairs: pairs, ...settings } = workflow;
  return {
    workflowFile: files.workflowFile,
    promptsFile: files.promptsFile,
    settings,
    pairs: asObject(pairs),
    prompts: files.promptsText === null ? {} : asObject(parseYaml(files.promptsText)),
  };
}

/** A YAML (or JSON) text as plain data; throws with the parser's first message when it does not parse. */
export function parseYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message);
  return doc.toJS({ maxAliasCount: 10_000 });
}

function entryChange(
  kind: EntryKind,
  id: string | null,
  before: unknown,
  after: unknown,
  [baseFile, headFile]: [string | null, string | null],
): EntryChange | null {
  // An empty mapping of settings is no settings at all.
  const absent = (v: unknown) => v === undefined || (kind === "workflow" && isObject(v) && Object.keys(v).length === 0);
  if (absent(before) && absent(after)) return null;
  const oldText = absent(before) ? "" : entryText(id, alignTo(before, after));
  const newText = absent(after) ? "" : entryText(id, after);
  if (oldText === newText) return null;
  const patch = createTwoFilesPatch(`a/${baseFile ?? headFile}`, `b/${headFile ?? baseFile}`, oldText, newText, undefined, undefined, {
    context: CONTEXT,
    headerOptions: FILE_HEADERS_ONLY,
  });
  return { kind, id, change: absent(before) ? "added" : absent(after) ? "removed" : "changed", patch };
}

/**
 * An entry as people read it: YAML under its id (`g_test:` then its keys), lines never folded, so
 * that a diff shows what changed and nothing else. Formatting, comments and quoting of the source
 * do not show, just as they do not change a reference.
 */
function entryText(id: string | null, value: unknown): string {
  return stringify(id === null ? value : { [id]: value }, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * `base` with its mappings' keys in `head`'s order wherever both have them, so that moving keys
 * around (which changes no reference) shows no difference.
 */
export function alignTo(base: unknown, head: unknown): unknown {
  if (Array.isArray(base)) return base.map((item, i) => alignTo(item, Array.isArray(head) ? head[i] : undefined));
  if (!isObject(base)) return base;
  const order = isObject(head) ? Object.keys(head).filter((k) => Object.hasOwn(base, k)) : [];
  const ordered = new Set(order);
  const keys = [...order, ...Object.keys(base).filter((k) => !ordered.has(k))];
  return Object.fromEntries(keys.map((k) => [k, alignTo(base[k], own(head, k))]));
}

/** A mapping's own entry: a pair may be called `constructor`. */
function own(obj: unknown, key: string): unknown {
  return isObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function asObject(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}
