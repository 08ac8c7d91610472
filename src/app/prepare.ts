/**
 * Gathers what a plan is made against — the workflow, the lock file, the local store, the
 * workspace's output files and the input files — and makes the plan. The one entry point the CLI
 * and the action share, so both report the same plan.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { displayPath, loadWorkflow, type Loaded } from "../config/load.js";
import type { Pair, Workflow } from "../model/workflow.js";
import { InputHasher } from "../workspace/inputs.js";
import { sha256Hex } from "../refs/hash.js";
import { lockPathFor, readLock } from "../lockfile/lockfile.js";
import { type LockFile } from "../model/records.js";
import { LocalStore } from "../store/local.js";
import { makePlan, type PlanOptions, type PlanState } from "../plan/plan.js";
import { type Plan } from "../model/plan.js";

export interface PrepareOptions {
  cwd?: string;
  /** State directory; default PAIRFLOW_STATE_DIR, else .pairflow/ at the repository root. */
  stateDir?: string;
  force?: PlanOptions["force"];
  /** The accepted state to plan against, instead of the lock file beside the workflow (e.g. a base commit's). */
  lock?: LockFile | null;
}

export interface Prepared extends Loaded {
  plan: Plan;
  /** What the plan was made against, for deciding pairs again as a run goes. */
  state: PlanState;
  planOptions: PlanOptions;
  lock: LockFile | null;
  lockPath: string;
  store: LocalStore;
  stateDir: string;
}

export function stateDirFor(workflow: Pick<Workflow, "root">, override?: string, cwd = process.cwd()): string {
  const dir = override ?? process.env.PAIRFLOW_STATE_DIR;
  return dir ? path.resolve(cwd, dir) : path.join(workflow.root, ".pairflow");
}

export function outputPath(workflow: Workflow, pair: Pair): string | undefined {
  return pair.output === undefined ? undefined : path.resolve(workflow.dir, pair.output);
}

export function preparePlan(target: string | undefined, options: PrepareOptions = {}): Prepared {
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadWorkflow(target, cwd);
  const { workflow, graph } = loaded;
  const stateDir = stateDirFor(workflow, options.stateDir, cwd);
  const lockPath = lockPathFor(workflow.path);
  const lock = options.lock !== undefined ? options.lock : readLock(lockPath, displayPath(lockPath, cwd));
  const store = new LocalStore(path.join(stateDir, "store"));

  const hasher = new InputHasher(workflow, [path.relative(workflow.dir, stateDir).split(path.sep).join("/") + "/**"]);
  const inputs = new Map<string, Record<string, string>>();
  for (const pair of workflow.pairs.values()) if (pair.inputs.length > 0) inputs.set(pair.id, hasher.hash(pair.inputs));

  const state: PlanState = {
    lock,
    record: (pair, ref) => store.record(pair, ref),
    workspaceHash: (pair) => {
      const file = outputPath(workflow, pair);
      return file && existsSync(file) ? sha256Hex(readFileSync(file)) : undefined;
    },
  };
  const planOptions: PlanOptions = { force: options.force, inputs };
  const plan = makePlan(workflow, graph, state, planOptions);
  return { ...loaded, plan, state, planOptions, lock, lockPath, store, stateDir };
}
