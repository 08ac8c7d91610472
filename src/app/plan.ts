/**
 * Planning as every caller does it: open the workflow where it lives, make the one plan, and
 * estimate what the pairs that will execute cost.
 */
import type { PlanEstimate } from "../estimate/estimate.js";
import { callsModel, estimatePlan } from "../estimate/estimate.js";
import { pairHistory } from "../estimate/history.js";
import type { Plan, PlannedPair } from "../model/plan.js";
import { lockEntry } from "../model/records.js";
import type { Selection } from "../model/run.js";
import { planWorkflow } from "../plan/plan.js";
import { onlyPairs } from "../plan/selection.js";
import { readRunSamples, RUN_RECORDS_READ } from "../records/pastRuns.js";
import { readPackagedTokenTable } from "../workspace/tokenTable.js";
import { openState, type Opened, type StateOptions } from "./state.js";
import { acceptedBytes } from "../refs/accepted.js";

export interface PlanRequest extends StateOptions {
  selection?: Selection;
  /** Pairs an interrupted run already finished (resuming it). */
  finished?: ReadonlySet<string>;
  /** Every openai and anthropic pair goes through its provider's batch API (`--batch`): estimated at batch prices. */
  batch?: boolean;
}

export interface Planned extends Opened {
  plan: Plan;
  /** What the pairs that will execute cost (with --only: only the selected ones). */
  estimate: PlanEstimate;
}

export async function planTarget(target: string | undefined, request: PlanRequest): Promise<Planned> {
  const opened = openState(target, request);
  return planOpened(opened, request);
}

export async function planOpened(opened: Opened, request: Pick<PlanRequest, "selection" | "finished" | "batch">): Promise<Planned> {
  const plan = await planWorkflow(opened.workflow, opened.graph, opened.view, { selection: request.selection, finished: request.finished });
  return { ...opened, plan, estimate: await estimateOf(opened, plan, undefined, request.batch) };
}

/**
 * The estimate of the pairs that will execute, from past runs and the accepted contents here. The
 * run records are read only when something will execute.
 */
export function estimateOf(opened: Opened, plan: Plan, among?: (id: string) => boolean, batch?: boolean): Promise<PlanEstimate> {
  const only = onlyPairs(plan.workflow, plan.selection);
  // A pair that calls no model costs nothing to estimate: it is left out, so a workflow of such
  // pairs shows no estimate, asks nothing and passes any --max-cost. `among` narrows it further (a shard's pairs).
  const include = (id: string) => (only?.has(id) ?? true) && (among?.(id) ?? true) && callsModel(opened.workflow.pairs.get(id)!);
  const executing = new Set(plan.pairs.filter((p) => p.action === "run" && include(p.id)).map((p) => p.id));
  return estimatePlan(
    {
      workflow: opened.workflow,
      // Past runs matter only to pairs that execute: only their events are read, and with none,
      // neither records nor lock are.
      history: executing.size > 0 ? pairHistory(opened.lock, readRunSamples(opened.stateDir, RUN_RECORDS_READ, executing)) : new Map(),
      contentOf: (planned) => acceptedContent(opened, planned),
      tokenTable: readPackagedTokenTable,
    },
    plan,
    { include, batch },
  );
}

/** The content a pair's dependents would see: its output file, else the store's copy of its (last) accepted content. */
export function acceptedContent(opened: Opened, planned: PlannedPair): string | undefined {
  const pair = opened.workflow.pairs.get(planned.id)!;
  // The plan has looked at every output file already: one it found missing is not read again (a
  // missing file costs a thrown error each time it is read).
  const file = opened.outputs.hash(pair) === undefined ? undefined : opened.outputs.read(pair);
  const hash = planned.action === "skip" ? planned.artifact?.contentHash : lockEntry(opened.lock, planned.id)?.contentHash;
  // The file's CRLF line endings (a checkout on Windows) are not what was accepted: a run gives the accepted bytes.
  if (file !== undefined) return ((hash === undefined ? undefined : acceptedBytes(file, hash)) ?? file).toString("utf8");
  return hash === undefined ? undefined : opened.store.content(hash)?.toString("utf8");
}
