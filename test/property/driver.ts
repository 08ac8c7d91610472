/**
 * Every call the plan-equals-run property makes into pairflow, in one place: the application
 * layer both shells use (`planTarget` for `pairflow plan`, `runTarget` for `pairflow run`, with
 * the run mutex and run records), on real files.
 */
import { planTarget } from "../../src/app/plan.js";
import { runTarget } from "../../src/app/run.js";
import { UsageError } from "../../src/model/errors.js";
import type { Generator, RemoteArtifact } from "../../src/model/ports.js";
import type { RunEvent, RunReport, Selection } from "../../src/model/run.js";

export { UsageError };
export type { Generator, RemoteArtifact, RunReport, Selection };
export type { GenerateRequest } from "../../src/model/ports.js";
export type { PairOutcome } from "../../src/model/run.js";

export interface PlannedView {
  id: string;
  action: "run" | "skip";
  configRef: string | null;
  /** For failure messages only. */
  reasons?: { kind: string; detail: string }[];
}

export interface PlanView {
  pairs: PlannedView[];
}

/** The remote store as the property drives it. */
export interface Remote {
  readonly name: string;
  fetch(pair: string, configRef: string): Promise<RemoteArtifact | undefined>;
  save(artifact: RemoteArtifact): Promise<void>;
}

export interface PlanRequest {
  selection: Selection;
  remote: Remote;
}

export interface RunRequest extends PlanRequest {
  generators: Record<string, Generator>;
  /** Warnings the run reports (for failure messages). */
  onWarning?: (message: string) => void;
}

/** `pairflow plan` on the workflow in `dir`. Throws UsageError where the CLI would exit 2. */
export async function plan(dir: string, { selection, remote }: PlanRequest): Promise<PlanView> {
  const { plan } = await planTarget(dir, { cwd: dir, env: {}, selection, remote });
  return { pairs: plan.pairs.map((p) => ({ id: p.id, action: p.action, configRef: p.configRef, reasons: p.reasons })) };
}

/** `pairflow run` on the workflow in `dir`, in-process. Throws UsageError where the CLI would exit 2. */
export function run(dir: string, { selection, remote, generators, onWarning }: RunRequest): Promise<RunReport> {
  return runTarget(dir, {
    cwd: dir,
    env: {},
    selection,
    remote,
    generators,
    onEvent: (event: RunEvent) => {
      if (event.type === "warning") onWarning?.(event.message);
    },
  });
}
