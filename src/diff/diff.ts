/**
 * What a change does to a workflow, base against head. The plan is the head's own: its files with
 * its lock file, which is what main plans after merging (which pairs re-run and why). The base only
 * explains: each pair against the base's lock entry (what changed since, and for a changed pair that
 * will not re-run, how the branch accepted it), the pairs added and removed, and a unified diff of
 * every workflow, pair and prompts entry that changed. Pure: the plan, the lock files and the files'
 * texts come in, the diff goes out.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { parseDocument, stringify } from "yaml";
import type { Plan, PlannedPair, Reason, StateView } from "../model/plan.js";
import { lockEntry, type LockFile } from "../model/records.js";
import { decidePair } from "../plan/plan.js";
import { fastYamlValue } from "../config/yamlFast.js";
import { splitText } from "../config/split.js";
import type { SplitSpec } from "../model/workflow.js";

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

export type EntryKind = "workflow" | "pair" | "prompt" | "file" | "section";

export interface EntryChange {
  /**
   * workflow: the top-level settings; pair: an `action_pairs` entry; prompt: a prompts-file entry;
   * file: a file pairs read (an input, a script); section: a section of a split file.
   */
  kind: EntryKind;
  /** The pair's id (for a section, its instance's); the file's path, relative to the workflow's directory; null for the workflow settings. */
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

/**
 * How a changed pair that the plan skips got its accepted artifact on the branch:
 * - committed: generated there, and recorded in the lock file committed with it;
 * - edited: its output file edited by hand there, kept as the accepted content;
 * - store, remote: generated, and found in the local store or the remote store, not the lock file.
 */
export type AcceptedOn = "committed" | "edited" | "store" | "remote";

/** A pair of the head's plan against the base's lock entry. */
export interface SinceBase {
  /** Its reference or its accepted content is not the base's (or the base's lock file has no entry for it). */
  changed: boolean;
  /**
   * What changed, part by part, in the plan's words (`prompt.task changed`, `g_test's reference
   * changed`); empty when nothing did, or only the accepted content.
   */
  changes: Reason[];
  /** For a changed pair the plan skips: how the branch accepted it; null otherwise. */
  accepted: AcceptedOn | null;
}

export interface PlanDiff {
  /** The head's plan, made with the head's lock file: the plan main makes after merging. */
  plan: Plan;
  /** Every pair of the plan against the base's lock entry, by id. */
  sinceBase: ReadonlyMap<string, SinceBase>;
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

/** The pairs that changed since the base and will not re-run, already accepted on the branch, in plan order. */
export function alreadyAccepted(diff: PlanDiff): PlannedPair[] {
  return diff.plan.pairs.filter((p) => p.action === "skip" && diff.sinceBase.get(p.id)?.changed);
}

/** The base as people name it: `main (1a2b3c4d5e6f)`, or only the short commit when the ref is one. */
export function baseName(base: BaseInfo, quote: (s: string) => string = (s) => s): string {
  const short = quote(base.commit.slice(0, 12));
  return base.commit.startsWith(base.ref) ? short : `${quote(base.ref)} (${short})`;
}

/** Lines of context around each change in a unified diff. */
const CONTEXT = 3;

export function computeDiff(
  plan: Plan,
  sinceBase: ReadonlyMap<string, SinceBase>,
  head: ConfigSnapshot,
  base: ConfigSnapshot | null,
  info: BaseInfo,
): PlanDiff {
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
    sinceBase,
    workflowFile: head.workflowFile,
    base: { ...info, workflowFound: base !== null },
    added,
    removed,
    changes,
  };
}

/**
 * Each pair of a plan of every pair against the base's lock entry. What changed is named by the
 * planner's own rule: the pair is decided again through `baseView` (the base's lock file alone: no
 * store, no output file), with its dependencies as the plan decided them, so a dependency the
 * branch regenerated shows as `g_test's reference changed` and one edited by hand as such.
 */
export async function compareWithBase(plan: Plan, baseView: StateView, headLock: LockFile | null): Promise<Map<string, SinceBase>> {
  const ctx = { workflow: plan.workflow, graph: plan.graph, view: baseView, force: () => undefined, lost: new Set<string>() };
  const out = new Map<string, SinceBase>();
  for (const pair of plan.pairs) {
    const entry = lockEntry(baseView.lock, pair.id);
    const sameRef = entry !== undefined && pair.configRef === entry.configRef;
    // A pair that runs has no accepted content yet: only its reference is compared.
    const sameContent = pair.artifact === null || pair.artifact.contentHash === entry?.contentHash;
    const changed = !(sameRef && sameContent);
    const changes = sameRef ? [] : (await decidePair(ctx, pair.id, plan.byId)).reasons;
    out.set(pair.id, { changed, changes, accepted: changed && pair.action === "skip" ? acceptedOn(pair, headLock) : null });
  }
  return out;
}

function acceptedOn(pair: PlannedPair, headLock: LockFile | null): AcceptedOn {
  const artifact = pair.artifact!;
  if (artifact.edited || artifact.source === "workspace") return "edited";
  // A lock entry the head's lock file lacks is the remote store's state, serving where no lock file is committed.
  if (artifact.source === "lock") {
    const entry = lockEntry(headLock, pair.id);
    return entry === undefined ? "remote" : entry.source === "human" ? "edited" : "committed";
  }
  return artifact.source;
}

/** A file's text at the base and now, by its path relative to the workflow's directory; null where it does not exist. */
export interface FileTexts {
  base(file: string): string | null;
  head(file: string): string | null;
}

/**
 * What the files a plan's pairs re-run for changed: each file they read that changed (an input, a
 * script, a file a traced run saw read), and each section of a split file that changed or was
 * added, as a unified diff of its text at the base against now. These explain the causes named by
 * a file or a section, as the entries' diffs explain the others.
 */
export function fileChanges(plan: Plan, texts: FileTexts): EntryChange[] {
  const files = new Set<string>();
  const sections: PlannedPair[] = [];
  for (const p of plan.pairs) {
    if (p.action !== "run") continue;
    const piece = plan.workflow.pairs?.get(p.id)?.piece;
    if (piece && p.reasons.some((r) => r.component?.kind === "piece" || r.kind === "new")) sections.push(p);
    for (const r of p.reasons) {
      const kind = r.component?.kind;
      if (kind === "input" || kind === "generator_file" || kind === "guard_file" || kind === "observed") files.add(r.component!.name);
    }
  }
  const changes: EntryChange[] = [];
  for (const file of files) {
    const change = textChange("file", file, texts.base(file), texts.head(file), [file, file]);
    if (change) changes.push(change);
  }
  const splits = new Map<string, SplitSpec>();
  for (const pair of plan.workflow.pairs?.values() ?? []) if (pair.assembly) splits.set(`${pair.template}\u0000${pair.assembly.file}`, pair.assembly.split);
  const baseSections = new Map<string, Map<string, string>>();
  for (const p of sections) {
    const pair = plan.workflow.pairs.get(p.id)!;
    const piece = pair.piece!;
    const key = `${pair.template}\u0000${piece.file}`;
    if (!baseSections.has(key)) {
      const text = texts.base(piece.file);
      const spec = splits.get(key);
      let pieces: Map<string, string> = new Map();
      try {
        if (text !== null && spec) pieces = new Map(splitText(text, spec).map((x) => [x.id, x.text]));
      } catch {
        // A base that does not split shows every section as added.
      }
      baseSections.set(key, pieces);
    }
    const label = `${piece.file}#${piece.id}`;
    const change = textChange("section", p.id, baseSections.get(key)!.get(piece.id) ?? null, piece.text, [label, label]);
    if (change) changes.push(change);
  }
  return changes;
}

function textChange(kind: EntryKind, id: string, before: string | null, after: string | null, [baseFile, headFile]: [string, string]): EntryChange | null {
  if (before === after) return null;
  const patch = createTwoFilesPatch(`a/${baseFile}`, `b/${headFile}`, before ?? "", after ?? "", undefined, undefined, {
    context: CONTEXT,
    headerOptions: FILE_HEADERS_ONLY,
  });
  return { kind, id, change: before === null ? "added" : after === null ? "removed" : "changed", patch };
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

const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false } as const;

/**
 * A YAML (or JSON) text as plain data; throws with the parser's first message when it does not parse.
 * The fast path gives the same value where it does not decline: two thirds of the time of a diff
 * of a workflow of 1,000 pairs went to the positioned parse.
 */
export function parseYaml(text: string): unknown {
  const fast = fastYamlValue(text, YAML_OPTIONS);
  if (fast) return fast.value;
  const doc = parseDocument(text, YAML_OPTIONS);
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
