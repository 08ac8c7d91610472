/**
 * The one planner. For every pair it decides `skip` (an accepted artifact with the same configRef
 * exists and its content can be had where it is needed) or `run`, with every reason, and where a
 * skipped pair's content comes from. `plan`, `plan --json`, `diff`, the pull request comment, the
 * estimate, the action and `run` all use it. It reads the world only through a StateView.
 */
import { UsageError } from "../model/errors.js";
import type { Graph } from "../model/graph.js";
import {
  REASON_KINDS,
  type AcceptedArtifact,
  type ContentSource,
  type Plan,
  type OwnComponents,
  type PlannedPair,
  type Reason,
  type ReasonKind,
  type ReuseForecast,
  type StateView,
  type Upstream,
} from "../model/plan.js";
import { componentsOf, lockEntry, type LockEntry, type LockFile } from "../model/records.js";
import { componentIdOfKey, componentKey, componentLabel, isUpstream, type ComponentId, type ComponentKind } from "../model/component.js";
import { dict, own as ownEntry } from "../model/dict.js";
import type { Selection } from "../model/run.js";
import type { Pair, Workflow } from "../model/workflow.js";
import { componentDigests, configRef, ownComponents, workflowRef } from "../refs/configRef.js";
import { guardKey, requestKey } from "../refs/request.js";
import { sha256Hex } from "../refs/hash.js";
import { editedPieces } from "./edits.js";
import { renderPrompt } from "../prompt/render.js";
import { forceRule, onlyPairs, scopeOf, type ForceRule } from "./selection.js";

export interface PlanOptions {
  selection?: Selection;
  /** Pairs an interrupted run already finished: resuming it forces none of them again. */
  finished?: ReadonlySet<string>;
}

/** Everything a decision reads: the workflow, its graph, the state view, and who is forced. */
export interface PlanContext {
  workflow: Workflow;
  graph: Graph;
  view: StateView;
  force: ForceRule;
  /** Pairs whose accepted content is needed but is nowhere to be had: they run again to restore it. */
  lost: ReadonlySet<string>;
  /** --force: every call is made anew, none answered from the request index. */
  fresh?: boolean;
  /** A split file's pieces as a person edited them, by piece id, found once per file (see pieceEdits). */
  edits?: Map<string, ReadonlyMap<string, PieceEdit>>;
}

/** A person's text of a piece's region of its file's output, and the lock entry that region was put together from. */
interface PieceEdit {
  text: string;
  /** The content the person edited was accepted under this entry's reference: the edit stands for that reference only. */
  from: LockEntry;
}

const LOST: Reason = { kind: "new", detail: "accepted content is not available here; running again to restore it" };

export async function planWorkflow(workflow: Workflow, graph: Graph, view: StateView, options: PlanOptions = {}): Promise<Plan> {
  const selection = options.selection ?? {};
  const selected = forceRule(workflow, graph, selection);
  const force: ForceRule = (id) => (options.finished?.has(id) ? undefined : selected(id));
  const scope = scopeOf(workflow, graph, selection);
  const only = onlyPairs(workflow, selection);
  const lost = new Set<string>();
  // A pair whose content is needed (by a dependent that runs, or to write its missing output
  // file) and exists nowhere must run again, which makes its dependents' references unknown:
  // decide again until no more such pairs appear. Each round only turns skips into runs.
  for (;;) {
    const byId = await decideAll({ workflow, graph, view, force, lost, fresh: selection.force, edits: new Map() }, scope);
    const more = [...byId.values()].filter(
      (p) => !lost.has(p.id) && p.action === "skip" && p.artifact!.content === null && contentNeeded(workflow, graph, byId, p.id),
    );
    if (more.length === 0) {
      if (only !== undefined) checkOnly(selection.only!, only, byId);
      const pairs = graph.waves
        .flat()
        .filter((id) => scope.has(id))
        .map((id) => byId.get(id)!);
      const removed = Object.keys(view.lock?.pairs ?? {})
        .filter((id) => !workflow.pairs.has(id))
        .sort();
      return { workflow, graph, workflowRef: workflowRef(workflow), selection, pairs, byId, removed };
    }
    for (const p of more) lost.add(p.id);
  }
}

/** Decides every pair in scope, wave by wave; the pairs of a wave are decided at once (remote lookups overlap). */
async function decideAll(ctx: PlanContext, scope: ReadonlySet<string>): Promise<Map<string, PlannedPair>> {
  const byId = new Map<string, PlannedPair>();
  for (const wave of ctx.graph.waves) {
    const ids = wave.filter((id) => scope.has(id));
    const decided = await Promise.all(ids.map((id) => decidePair(ctx, id, byId)));
    for (const d of decided) byId.set(d.id, d);
  }
  return byId;
}

/** A skipped pair's content is needed to write its missing output file, or by a dependent that runs. */
export function contentNeeded(workflow: Workflow, graph: Graph, byId: ReadonlyMap<string, PlannedPair>, id: string): boolean {
  if (workflow.pairs.get(id)!.output !== undefined) return true;
  return graph.dependents.get(id)!.some((d) => byId.get(d)?.action === "run");
}

/** With --only, every dependency outside the selection must be reusable as it is. */
function checkOnly(only: readonly string[], selected: ReadonlySet<string>, byId: ReadonlyMap<string, PlannedPair>): void {
  const missing = [...byId.values()].filter((p) => !selected.has(p.id) && p.action === "run");
  if (missing.length === 0) return;
  const needs = missing.map((p) => `${p.id} (${p.reasons.map((r) => r.detail).join("; ")})`).join(", ");
  throw new UsageError(
    `--only ${only.join(" ")}: these dependencies cannot be reused as they are and would have to run first: ${needs}; add them to --only, or run without it`,
  );
}

/**
 * Decides one pair, given the decisions of its dependencies. The run engine calls this again for a
 * pair whose reference the plan could not know, once its dependencies have their actual outcomes,
 * so plan and run follow one rule.
 */
export async function decidePair(ctx: PlanContext, id: string, decided: ReadonlyMap<string, PlannedPair>): Promise<PlannedPair> {
  const { workflow, graph, view } = ctx;
  const pair = workflow.pairs.get(id)!;
  const own = ownComponents(workflow, pair, pair.inputs.length > 0 ? view.inputHashes(pair) : undefined, view.fileHashes(pair));
  const previous = lockEntry(view.lock, id);
  const deps = pair.requires.map((d) => decided.get(d)!);
  const base: DecisionBase = { id, wave: graph.waveOf.get(id)! + 1, requires: pair.requires, own };
  const forced = ctx.force(id) ?? (ctx.lost.has(id) ? LOST : undefined);

  // What the output file is: pairflow's own (generated), a person's (human: kept, never
  // overwritten, whatever else changed), or a file pairflow has no record of at all (unknown).
  const output = judgeOutput(view, pair, previous);
  // A dependency that will run has no accepted content yet, so this pair's reference is unknown.
  const unknown = deps.filter((d) => d.configRef === null || d.action === "run");
  if (pair.piece || output.kind === "human" || output.kind === "unknown") return decideKept(ctx, base, pair, previous, forced, deps, unknown, output);

  // No person's edit to keep, and no file of unknown origin: nearly every pair. The same rule as
  // decideKept's, which the rest would only pass through; kept apart so that this part, run for
  // every pair, stays small enough to be compiled early.
  if (unknown.length > 0) return waiting(ctx, base, pair, previous, forced, deps, unknown, NO_REASONS);
  const ref = configRef(own, upstreamOf(deps));
  if (!forced) {
    const found = acceptedArtifact(view, id, ref, previous, output);
    const artifact = found instanceof Promise ? await found : found;
    if (artifact) return decision(base, ref, "skip", [], artifact, undefined, deps);
  }
  return toRun(ctx, base, pair, previous, forced, deps, ref, output, NO_REASONS);
}

const NO_REASONS: readonly Reason[] = Object.freeze([]);

/** decidePair for a piece of a split file, or a pair whose output is a person's or of unknown origin. */
async function decideKept(
  ctx: PlanContext,
  base: DecisionBase,
  pair: Pair,
  previous: LockEntry | undefined,
  forced: Reason | undefined,
  deps: PlannedPair[],
  unknown: readonly PlannedPair[],
  output: JudgedOutput,
): Promise<PlannedPair> {
  const { view } = ctx;
  const { id, own } = base;
  const unknownOutput: readonly Reason[] =
    output.kind === "unknown"
      ? [
          newReason(
            `${pair.output} exists but pairflow has no record of producing it; running replaces it (to keep it instead, commit the lock file that records it)`,
          ),
        ]
      : NO_REASONS;

  // A person's edit: of the output (kept; carried forward or named stale once its sources change),
  // or of this piece's region of a split file's output (kept as this piece's text likewise).
  const pieceEdit = pair.piece ? pieceEdits(ctx, `${pair.template}[${pair.piece.file}]`).get(pair.piece.id) : undefined;
  const edit = pair.piece ? pieceEdit?.text : output.kind === "human" && !pair.assembly ? view.outputText?.(pair) : undefined;
  // A person's edit of a split file's output that cannot be told apart by piece is kept whole, as
  // a plain pair's is: the file is never put together again over it.
  const keptWhole = output.kind === "human" && (pair.assembly === undefined || pieceEdits(ctx, id).size === 0);
  const carry = (ref: string | null, reasons: Reason[]) => {
    const carried: Reason = { kind: "carried", detail: "a person's edit of its output is carried forward: its sources changed since" };
    return {
      ...decision(base, ref, "run", sortReasons([...reasons, carried]), null, ref === null ? null : componentDigests(own, upstreamOf(deps))),
      revision: edit,
    };
  };
  const stale = (kept: PlannedPair): PlannedPair => ({ ...kept, revision: edit, stale: true });

  // An output that exists with no record, in a pair that adopts what exists (`adopt_existing`): a
  // person's, kept and recorded as such, as `pairflow adopt` records it.
  if (output.kind === "unknown" && pair.adoptExisting && pair.assembly === undefined)
    return keptOutput(base, unknown.length > 0 ? null : configRef(own, upstreamOf(deps)), output.hash!, deps);
  if (unknown.length > 0) {
    // Its sources change: a person's edit goes forward with carry_edits, else stays, named stale.
    if (edit !== undefined && pair.carryEdits)
      return carry(
        null,
        unknown.map((d): Reason => ({ kind: "upstream", detail: `${d.id} will run`, component: { kind: "upstream", name: d.id } })),
      );
    if (keptWhole) return stale(keptOutput(base, null, output.hash!, deps));
    if (pieceEdit !== undefined) return stale(keptPiece(base, null, pieceEdit.from, deps));
    return waiting(ctx, base, pair, previous, forced, deps, unknown, unknownOutput);
  }

  const ref = configRef(own, upstreamOf(deps));
  const changedSince = previous !== undefined && previous.configRef !== ref;
  if (output.kind === "human") {
    // A split file's output is put together again when a piece changed, keeping the edited regions.
    if (!changedSince) return keptOutput(base, ref, output.hash!, deps);
    if (pair.assembly === undefined && pair.carryEdits)
      return carry(ref, ownChanges(previous!, componentsOf(previous!), componentDigests(own, upstreamOf(deps))));
    if (keptWhole) return stale(keptOutput(base, ref, output.hash!, deps));
  }
  // A section a person wrote (`pairflow adopt`): kept while its reference stands; once that
  // changes, named stale, or carried forward with carry_edits, its text as the person's revision.
  if (pair.piece && previous?.source === "human" && edit === undefined) {
    if (!changedSince) return keptPiece(base, ref, previous, deps);
    const written = view.storedText?.(previous.contentHash);
    if (pair.carryEdits && written !== undefined)
      return { ...carry(ref, ownChanges(previous, componentsOf(previous), componentDigests(own, upstreamOf(deps)))), revision: written };
    return { ...keptPiece(base, ref, previous, deps), revision: written, stale: true };
  }
  // A piece's region edited by a person from content accepted under another reference (its
  // section's text changed since, or is now another section's): never answered over the edit,
  // whatever was accepted for its text of today (a twin section's, say): named stale, or carried.
  const keptEdit = (e: PieceEdit) =>
    pair.carryEdits ? carry(ref, ownChanges(e.from, componentsOf(e.from), componentDigests(own, upstreamOf(deps)))) : stale(keptPiece(base, ref, e.from, deps));
  if (pieceEdit !== undefined && (forced || pieceEdit.from.configRef !== ref)) return keptEdit(pieceEdit);
  if (!forced) {
    const found = pair.assembly !== undefined && output.kind === "human" ? undefined : acceptedArtifact(view, id, ref, previous, output);
    const artifact = (found instanceof Promise ? await found : found) ?? (pair.piece ? await siblingArtifact(view, pair, ref, output) : undefined);
    if (artifact)
      return edit !== undefined
        ? { ...decision(base, ref, "skip", [], artifact, undefined, deps), revision: edit }
        : decision(base, ref, "skip", [], artifact, undefined, deps);
  }
  // Its edit stands for this reference, but what was accepted under it is nowhere to be had.
  if (pieceEdit !== undefined) return keptEdit(pieceEdit);
  return toRun(ctx, base, pair, previous, forced, deps, ref, output, unknownOutput);
}

/** A pair that runs because dependencies of it will run (or have no reference yet): its reference is not known. */
function waiting(
  ctx: PlanContext,
  base: DecisionBase,
  pair: Pair,
  previous: LockEntry | undefined,
  forced: Reason | undefined,
  deps: readonly PlannedPair[],
  unknown: readonly PlannedPair[],
  unknownOutput: readonly Reason[],
): PlannedPair {
  // Pushed one by one rather than spread from lists: the same reasons in the same order.
  const reasons: Reason[] = [];
  if (forced) reasons.push(forced);
  if (previous) reasons.push(...ownChanges(previous, componentsOf(previous), componentDigests(base.own, { refs: dict(), artifactHashes: dict() })));
  else reasons.push(newReason());
  for (const r of unknownOutput) reasons.push(r);
  for (const d of unknown) {
    reasons.push({
      kind: "upstream",
      // A dependency new to requires is an edit of this pair's own, as the run will find it.
      detail:
        previous && !Object.hasOwn(componentsOf(previous), componentKey({ kind: "upstream", name: d.id }))
          ? `${d.id} added to requires`
          : d.action === "run"
            ? `${d.id} will run`
            : `${d.id}'s reference is not known yet`,
      component: { kind: "upstream", name: d.id },
    });
  }
  if (previous) reasons.push(...requiresChanges(componentsOf(previous), deps, new Set(unknown.map((d) => d.id))));
  // Accepted before at its first attempt: that request is answered again if what runs first
  // reproduces its content. One accepted at a retry asks its first attempt anew (a rejected
  // answer is never judged again), so a call is made whatever its dependencies give.
  const reuse: ReuseForecast | undefined =
    previous && previous.source === "generated" && previous.attempts <= 1 && !ctx.fresh && pair.fresh !== true
      ? { kind: "unless", deps: unknown.map((d) => d.id) }
      : undefined;
  return decision(base, null, "run", sortReasons(reasons), null, null, undefined, reuse);
}

/** A pair whose reference is known and has no accepted artifact to reuse (or is forced): it runs, with what changed. */
function toRun(
  ctx: PlanContext,
  base: DecisionBase,
  pair: Pair,
  previous: LockEntry | undefined,
  forced: Reason | undefined,
  deps: PlannedPair[],
  ref: string,
  output: JudgedOutput,
  unknownOutput: readonly Reason[],
): PlannedPair {
  const { own } = base;
  const components = componentDigests(own, upstreamOf(deps));
  const reasons: Reason[] = [];
  if (forced) reasons.push(forced);
  if (previous) {
    const before = componentsOf(previous);
    reasons.push(...ownChanges(previous, before, components));
    reasons.push(...upstreamChanges(before, components, deps));
    if (reasons.length === 0) reasons.push(newReason("no accepted artifact for this reference"));
  } else if (!forced && output.kind !== "unknown") {
    reasons.push(newReason());
  }
  reasons.push(...unknownOutput);
  const last = ctx.view.record(base.id, ref);
  if (last?.status === "rejected") {
    reasons.push({ kind: "rejected", detail: `last attempt rejected${last.feedback ? `: ${firstLine(last.feedback)}` : ""}` });
  }
  return decision(base, ref, "run", sortReasons(reasons), null, components, undefined, ctx.fresh ? undefined : forecast(ctx, pair, own, deps));
}

/**
 * Whether the request of the pair's first attempt was answered before by an artifact its guard has
 * not rejected: the run then makes no model call for it (see the engine's answerFromIndex).
 */
function forecast(ctx: PlanContext, pair: Pair, own: OwnComponents, deps: readonly PlannedPair[]): ReuseForecast | undefined {
  const { view, workflow } = ctx;
  if (pair.fresh === true || view.requests === undefined || view.text === undefined) return undefined;
  const dependencies: { id: string; content: string }[] = [];
  for (const d of deps) {
    const text = view.text(workflow.pairs.get(d.id)!, d.artifact!.contentHash);
    if (text === undefined) return undefined;
    dependencies.push({ id: d.id, content: text });
  }
  const prompt = renderPrompt({ prompt: pair.prompt, specification: workflow.specification, constraints: workflow.constraints, dependencies, history: [] });
  const entries = view.requests(requestKey({ pair, own, prompt, dependencies, attempt: 1 }));
  const judge = guardKey(pair.id, own);
  for (const entry of entries) {
    const verdict = Object.hasOwn(entry.verdicts, judge) ? entry.verdicts[judge] : undefined;
    if (verdict === "rejected") continue;
    return { kind: verdict === "accepted" ? "request" : "rejudge", from: entry.pair, at: entry.at };
  }
  return undefined;
}

/** A person's output file, kept whatever else changed. */
function keptOutput(base: DecisionBase, ref: string | null, contentHash: string, deps: readonly PlannedPair[]): PlannedPair {
  const artifact: AcceptedArtifact = { source: "workspace", contentHash, edited: true, content: "output" };
  return decision(base, ref, "skip", [], artifact, ref === null ? null : undefined, deps);
}

/**
 * A piece whose region of its file's output a person edited, kept although its section changed:
 * it stands in the graph as its last generated content (its lock entry is left as it is, so the
 * next plan names it stale again), and the person's text stands for it where the file is put together.
 */
function keptPiece(base: DecisionBase, ref: string | null, previous: LockEntry, deps: readonly PlannedPair[]): PlannedPair {
  const artifact: AcceptedArtifact = { source: "lock", contentHash: previous.contentHash, edited: false, content: "store" };
  return decision(base, ref, "skip", [], artifact, ref === null ? null : undefined, deps);
}

/**
 * The pieces of a split file as a person edited them in the file's output, by piece id: its
 * output file against what pairflow last put together there (the lock entry's content when the
 * file is recorded as generated, else, a person's edit recorded as such, the content pairflow
 * generated under the reference the entry names), mapped to the pieces (./edits.ts). Each piece's
 * region there is where its last accepted content is; so sections moved, added or removed since
 * change nothing. An edit the pieces of today cannot hold (in the region of a section removed
 * since), or a file that cannot be compared (what pairflow put together is not in the store, a
 * catalogue), gives none: the file's instance then keeps the whole file (see decidePair).
 */
function pieceEdits(ctx: PlanContext, assemblyId: string): ReadonlyMap<string, PieceEdit> {
  const known = ctx.edits?.get(assemblyId);
  if (known) return known;
  const found = new Map<string, PieceEdit>();
  ctx.edits?.set(assemblyId, found);
  const { view, workflow } = ctx;
  const assembly = workflow.pairs.get(assemblyId);
  const made = lockEntry(view.lock, assemblyId);
  const kind = assembly?.assembly?.split.kind;
  const text = assembly && made && (kind === "markdown" || kind === "regex") ? view.outputText?.(assembly) : undefined;
  if (!assembly || !made || text === undefined || view.text === undefined) return found;
  const generated = made.source === "generated" ? made.contentHash : generatedUnder(view, assemblyId, made.configRef);
  if (generated === undefined || sha256Hex(text) === generated) return found;
  const base = view.storedText?.(generated);
  if (base === undefined) return found;
  // Lines that start a piece in what was put together, by their text, to find each content at once.
  const starts = new Map<string, number[]>();
  for (let at = 0; at < base.length;) {
    const eol = base.indexOf("\n", at);
    const end = eol === -1 ? base.length : eol + 1;
    const line = base.slice(at, end);
    const known = starts.get(line);
    if (known) known.push(at);
    else starts.set(line, [at]);
    at = end;
  }
  // Where each piece's last accepted content is in what was put together: its region.
  const prefix = `${assembly.template}[${assembly.assembly!.file}#`;
  const located: { at: number; end: number; id: string; entry: LockEntry }[] = [];
  const taken = new Set<number>();
  for (const [id, entry] of Object.entries(view.lock!.pairs)) {
    if (!id.startsWith(prefix) || entry.source !== "generated") continue;
    const content = view.storedText?.(entry.contentHash);
    if (content === undefined || content === "") continue;
    const part = content.endsWith("\n") ? content : `${content}\n`;
    const first = part.slice(0, part.indexOf("\n") + 1);
    const at = starts.get(first)?.find((a) => !taken.has(a) && base.startsWith(part, a));
    if (at === undefined) continue;
    taken.add(at);
    located.push({ at, end: at + part.length, id, entry });
  }
  located.sort((a, b) => a.at - b.at);
  const regions: { text: string; made?: { id: string; entry: LockEntry } }[] = [];
  let cursor = 0;
  for (const l of located) {
    if (l.at < cursor) continue;
    if (l.at > cursor) regions.push({ text: base.slice(cursor, l.at) });
    regions.push({ text: base.slice(l.at, l.end), made: l });
    cursor = l.end;
  }
  if (cursor < base.length) regions.push({ text: base.slice(cursor) });
  const edited = editedPieces(
    regions.map((r) => r.text),
    text,
  );
  // Each edited region belongs to a piece of today whose text its content was made from (the lock
  // entry's piece digest), of the same id first: so sections of one name swapped or renumbered
  // keep their edits, current. Regions the person edited choose first: where two regions were
  // made from one text and one section of today has it, the edit is of that text's translation
  // and stays with it. Else its section's text changed: it goes to the piece of its own id, whose
  // entry is the region's (the edit then stands for the text it was made from: stale). A region
  // no piece of today stands for is a removed section's.
  const pieceKey = componentKey({ kind: "piece", name: "" });
  const byText = new Map<string, string[]>();
  for (const id of assembly.requires) {
    const digest = sha256Hex(workflow.pairs.get(id)!.piece!.text).slice(0, 16);
    const ids = byText.get(digest);
    if (ids) ids.push(id);
    else byText.set(digest, [id]);
  }
  const today = new Set(assembly.requires);
  const claimed = new Set<string>();
  const owners = new Map<number, string>();
  const order = [...regions.keys()].sort((a, b) => Number(edited[b] !== undefined) - Number(edited[a] !== undefined));
  for (const i of order) {
    const made = regions[i]!.made;
    if (made === undefined) continue;
    const digest = ownEntry(componentsOf(made.entry), pieceKey);
    const same = (digest !== undefined ? byText.get(digest) : undefined)?.filter((p) => !claimed.has(p)) ?? [];
    const owner = same.includes(made.id) ? made.id : same[0];
    if (owner === undefined) continue;
    claimed.add(owner);
    owners.set(i, owner);
  }
  for (const i of order) {
    const made = regions[i]!.made;
    if (made === undefined || owners.has(i) || !today.has(made.id) || claimed.has(made.id)) continue;
    claimed.add(made.id);
    owners.set(i, made.id);
  }
  // An edit of a section no piece stands for now: nothing could keep it but the whole file.
  if (edited.some((e, i) => e !== undefined && !owners.has(i))) return found;
  edited.forEach((e, i) => {
    if (e !== undefined) found.set(workflow.pairs.get(owners.get(i)!)!.piece!.id, { text: e, from: regions[i]!.made!.entry });
  });
  return found;
}

/** The content pairflow generated for a pair under a reference, as the local store records it. */
function generatedUnder(view: StateView, id: string, ref: string): string | undefined {
  const record = view.record(id, ref);
  return record?.status === "accepted" && record.source !== "human" ? (record.contentHash ?? undefined) : undefined;
}

/**
 * A piece's text accepted before under another id of the same file (a section renumbered because
 * a heading before it was renamed, two sections of one name swapped): the piece's id is not in its
 * reference, so the same reference is the same text asked the same way, and its accepted content
 * answers it.
 */
function siblingArtifact(view: StateView, piece: Pair, ref: string, output: JudgedOutput): AcceptedArtifact | undefined | Promise<AcceptedArtifact> {
  if (!view.lock) return undefined;
  const prefix = `${piece.template}[${piece.piece!.file}#`;
  for (const id of lockIdsByRef(view.lock).get(ref) ?? []) {
    const entry = lockEntry(view.lock, id)!;
    if (id !== piece.id && id.startsWith(prefix) && entry.source === "generated") return withContent(view, id, ref, "lock", entry.contentHash, output);
  }
  return undefined;
}

/** The lock file's pair ids by configRef, made once per lock file. */
function lockIdsByRef(lock: LockFile): ReadonlyMap<string, readonly string[]> {
  const known = idsByRef.get(lock);
  if (known) return known;
  const made = new Map<string, string[]>();
  for (const [id, entry] of Object.entries(lock.pairs)) {
    const ids = made.get(entry.configRef);
    if (ids) ids.push(id);
    else made.set(entry.configRef, [id]);
  }
  idsByRef.set(lock, made);
  return made;
}

const idsByRef = new WeakMap<object, Map<string, string[]>>();

type DecisionBase = Pick<PlannedPair, "id" | "wave" | "requires" | "own">;

/**
 * A decision with every field, in one order: all decisions share one hidden class and hold their
 * fields in the object (spreading a base and adding to it gave several, with the fields beyond
 * the base in a second allocation each). A skipped pair keeps its dependencies for its digests.
 */
function decision(
  base: DecisionBase,
  configRef: string | null,
  action: PlannedPair["action"],
  reasons: Reason[],
  artifact: AcceptedArtifact | null,
  components: Record<string, string> | null | undefined,
  dependencies?: readonly PlannedPair[],
  reuse?: ReuseForecast,
): PlannedPair {
  return {
    id: base.id,
    wave: base.wave,
    requires: base.requires,
    own: base.own,
    configRef,
    action,
    reasons,
    artifact,
    components,
    dependencies: action === "skip" && components === undefined ? dependencies : undefined,
    reuse,
  };
}

/** What a pair's reference takes from its dependencies' decisions (each has a reference and an artifact). */
function upstreamOf(deps: readonly PlannedPair[]): Upstream {
  // Keyed by this pair's own dependencies: made without a prototype, so they start as dictionaries
  // rather than building a chain of hidden classes no other mapping shares.
  const upstream: Upstream = { refs: dict(), artifactHashes: dict() };
  for (const d of deps) {
    upstream.refs[d.id] = d.configRef!;
    upstream.artifactHashes[d.id] = d.artifact!.contentHash;
  }
  return upstream;
}

/**
 * A pair's component digests. A skipped pair's are needed only if a run writes its lock entry
 * again, so they are made here, from the dependencies it was decided with (a getter made per
 * pair to make them on first read cost each pair two functions, a context and a hidden class).
 */
export function plannedComponents(p: PlannedPair): Record<string, string> | null {
  if (p.components !== undefined) return p.components;
  return p.dependencies === undefined || p.configRef === null ? null : componentDigests(p.own, upstreamOf(p.dependencies));
}

/** The output file as pairflow judges it, against the records it holds; `hash` is the content it stands for. */
interface JudgedOutput {
  kind: "absent" | "generated" | "human" | "unknown";
  hash?: string;
}

/**
 * Provenance, never guessed: an output that matches an accepted artifact pairflow generated for
 * this pair (the lock file's, or any in the store) is generated; one that differs from every
 * record pairflow holds for the pair is a person's; one with no record at all is unknown. Text
 * compares with normalised line endings.
 */
function judgeOutput(view: StateView, pair: Pair, previous: LockEntry | undefined): JudgedOutput {
  const file = view.outputHash(pair);
  if (file === undefined) return { kind: "absent" };
  const same = (hash: string | undefined) => hash !== undefined && (hash === file.raw || hash === file.text);
  if (previous?.source !== "human" && same(previous?.contentHash)) return { kind: "generated", hash: previous!.contentHash };
  const generated = view.generatedHashes(pair.id);
  const match = [file.raw, file.text].find((h) => generated.has(h));
  if (match !== undefined) return { kind: "generated", hash: match };
  if (previous?.source === "human" && same(previous.contentHash)) return { kind: "human", hash: previous.contentHash };
  return { kind: previous !== undefined || generated.size > 0 ? "human" : "unknown", hash: file.raw };
}

/**
 * The accepted artifact pairflow generated for this reference (lock file, local store, then remote
 * store), and where its content can be read: the output file when it holds exactly that content,
 * else the stores (the output file, missing or stale, is then written from there).
 */
function acceptedArtifact(
  view: StateView,
  id: string,
  ref: string,
  previous: LockEntry | undefined,
  output: JudgedOutput,
): AcceptedArtifact | undefined | Promise<AcceptedArtifact | undefined> {
  // The store's record is looked up only when the lock file has no answer: a file system lookup per pair.
  const local = previous?.configRef === ref && previous.source !== "human" ? undefined : view.record(id, ref);
  if (local === undefined && previous?.configRef === ref && previous.source !== "human")
    return withContent(view, id, ref, "lock", previous.contentHash, output);
  if (local?.status === "accepted" && local.source !== "human" && local.contentHash) return withContent(view, id, ref, "store", local.contentHash, output);
  if (view.remote === undefined) return undefined;
  return (async () => {
    const record = await view.remote!(id, ref);
    return !record?.contentHash || record.source === "human" ? undefined : withContent(view, id, ref, "remote", record.contentHash, output);
  })();
}

/**
 * The artifact with where its content can be read. Answered at once unless only the remote store
 * can say: a plan with nothing to ask elsewhere decides each pair without suspending it, so a wave
 * of pairs does not keep its thousands of half-made decisions alive at once.
 */
function withContent(
  view: StateView,
  id: string,
  ref: string,
  source: AcceptedArtifact["source"],
  contentHash: string,
  output: JudgedOutput,
): AcceptedArtifact | Promise<AcceptedArtifact> {
  const artifact = (content: ContentSource | null): AcceptedArtifact => ({ source, contentHash, edited: false, content });
  if (output.kind === "generated" && output.hash === contentHash) return artifact("output");
  if (view.hasContent(contentHash)) return artifact("store");
  if (view.remote === undefined) return artifact(null);
  return (async () => artifact((await view.remote!(id, ref))?.contentHash === contentHash ? "remote" : null))();
}

function newReason(detail = "never accepted"): Reason {
  return { kind: "new", detail };
}

/** Changes in the pair's own components (everything but its dependencies), named by part. */
function ownChanges(previous: LockEntry, components: Record<string, string>, current: Record<string, string>): Reason[] {
  const reasons: Reason[] = [];
  const keys = new Set([...Object.keys(components), ...Object.keys(current)]);
  for (const key of [...keys].sort()) {
    const before = ownEntry(components, key);
    const after = ownEntry(current, key);
    if (before === after) continue;
    const changed = componentIdOfKey(key);
    if (isUpstream(changed)) continue;
    reasons.push(describeChange(changed, before === undefined ? "added" : after === undefined ? "removed" : "changed", previous));
  }
  return reasons;
}

/** The reason kind each kind of component changes a pair for. */
const REASON_OF: Record<Exclude<ComponentKind, "upstream" | "artifact">, ReasonKind> = {
  prompt: "prompt",
  context: "prompt",
  layout: "prompt",
  model: "model",
  guard: "guard",
  guards: "guard",
  guard_file: "guard",
  guard_config: "guard_config",
  generator: "generator",
  generator_config: "generator",
  generator_file: "generator",
  input: "inputs",
  observed: "inputs",
  piece: "inputs",
  // Only a lock file written by hand or by another version has other keys.
  other: "new",
};

function describeChange(changed: ComponentId, change: string, previous: LockEntry): Reason {
  const kind = REASON_OF[changed.kind as keyof typeof REASON_OF];
  const component = { kind: changed.kind, name: changed.name };
  if (changed.kind === "model") return { kind, detail: `model changed${previous.model !== null ? ` (was ${previous.model})` : ""}`, component };
  return { kind, detail: `${componentLabel(changed)} ${change}`, component };
}

function upstreamChanges(previous: Record<string, string>, current: Record<string, string>, deps: PlannedPair[]): Reason[] {
  const reasons: Reason[] = [];
  for (const d of deps) {
    const upstream: ComponentId = { kind: "upstream", name: d.id };
    const artifact: ComponentId = { kind: "artifact", name: d.id };
    const refBefore = ownEntry(previous, componentKey(upstream));
    if (refBefore === undefined) {
      reasons.push({ kind: "upstream", detail: `${d.id} added to requires`, component: upstream });
      continue;
    }
    if (refBefore !== ownEntry(current, componentKey(upstream))) reasons.push({ kind: "upstream", detail: `${d.id}'s reference changed`, component: upstream });
    if (ownEntry(previous, componentKey(artifact)) !== ownEntry(current, componentKey(artifact))) {
      reasons.push({
        kind: "upstream_artifact",
        detail: d.artifact?.edited ? `${d.id}'s output was edited by hand` : `${d.id}'s accepted content changed`,
        component: artifact,
      });
    }
  }
  const requires = new Set(deps.map((d) => d.id));
  for (const key of Object.keys(previous)) {
    const was = componentIdOfKey(key);
    if (was.kind === "upstream" && !requires.has(was.name)) reasons.push({ kind: "upstream", detail: `${was.name} removed from requires`, component: was });
  }
  return reasons;
}

/** Dependencies added to requires since the lock entry (but those named already), and those removed from it. */
function requiresChanges(previous: Record<string, string>, deps: readonly PlannedPair[], named: ReadonlySet<string>): Reason[] {
  return upstreamChanges(previous, previous, [...deps]).filter((r) => / (added to|removed from) requires$/.test(r.detail) && !named.has(r.component!.name));
}

/** Reasons by kind, in REASON_KINDS' order; those of one kind keep theirs (the sort is stable). */
function sortReasons(reasons: Reason[]): Reason[] {
  // Most lists are in order already (a new pair's reasons, its dependencies that run): the same list then.
  for (let i = 1; i < reasons.length; i++) {
    if (rankOf(reasons[i - 1]!.kind) > rankOf(reasons[i]!.kind)) return [...reasons].sort((a, b) => rankOf(a.kind) - rankOf(b.kind));
  }
  return reasons;
}

/** Each reason kind's place in REASON_KINDS: the order reasons are listed in (-1: a kind it does not list). */
const REASON_RANK = new Map<string, number>(REASON_KINDS.map((kind, i) => [kind, i]));
const rankOf = (kind: string): number => REASON_RANK.get(kind) ?? -1;

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 120 ? line.slice(0, 117) + "..." : line;
}

export function totals(plan: Plan): { pairs: number; run: number; skip: number } {
  const run = plan.pairs.filter((p) => p.action === "run").length;
  return { pairs: plan.pairs.length, run, skip: plan.pairs.length - run };
}

/** Decides pairs of a plan again as a run goes (see decidePair), under the plan's own selection. */
export type Decider = (id: string, decided: ReadonlyMap<string, PlannedPair>, options?: { lost?: boolean }) => Promise<PlannedPair>;

export function decider(plan: Plan, view: StateView, finished?: ReadonlySet<string>): Decider {
  const { workflow, graph } = plan;
  const edits = new Map<string, ReadonlyMap<string, PieceEdit>>();
  const selected = forceRule(workflow, graph, plan.selection);
  const force: ForceRule = (id) => (finished?.has(id) ? undefined : selected(id));
  return (id, decided, options) =>
    decidePair({ workflow, graph, view, force, lost: new Set(options?.lost ? [id] : []), fresh: plan.selection.force, edits }, id, decided);
}
