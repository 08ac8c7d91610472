import { planTarget, type Planned } from "../../src/app/plan.js";
import { runTarget, type RunRequest } from "../../src/app/run.js";
import type { StateOptions } from "../../src/app/state.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { writeLock } from "../../src/lockfile/lockfile.js";
import type { LockFile } from "../../src/model/records.js";
import type { RunReport, Selection } from "../../src/model/run.js";

/** `pairflow plan` in-process: the one planner over the workspace at `target`. */
export function planOf(target: string | undefined, options: Partial<StateOptions> & { selection?: Selection } = {}): Promise<Planned> {
  return planTarget(target, { cwd: process.cwd(), env: {}, ...options });
}

/** `pairflow run` in-process, with the run mutex and run records, as the shells start it. */
export function runOf(target: string | undefined, options: Partial<RunRequest> = {}): Promise<RunReport> {
  return runTarget(target, { cwd: process.cwd(), env: process.env, ...options });
}

/**
 * Accepts every pair that would run, wave after wave, with the given content, the way a run does:
 * lock entry, store record and content, and the output file when the pair has one. Returns the
 * lock. The run engine's own tests cover running; plan tests only need its results.
 */
export async function acceptAll(
  target: string,
  content: (id: string) => string = (id) => `artifact of ${id}\n`,
  options: { stateDir?: string; only?: (id: string) => boolean } = {},
): Promise<LockFile> {
  for (;;) {
    const { plan, lock, lockPath, store, workflow, outputs } = await planOf(target, { stateDir: options.stateDir });
    const ready = plan.pairs.filter((p) => p.action === "run" && p.configRef !== null && (options.only?.(p.id) ?? true));
    const next: LockFile = lock ?? { version: 1, workflow: workflow.name, pairs: {} };
    if (ready.length === 0) return next;
    for (const p of ready) {
      const text = content(p.id);
      const contentHash = sha256Hex(text);
      store.putContent(text);
      store.putRecord({ pair: p.id, configRef: p.configRef!, status: "accepted", contentHash, components: p.components!, at: "2026-01-01T00:00:00.000Z" });
      next.pairs[p.id] = {
        configRef: p.configRef!,
        contentHash,
        source: "generated",
        model: workflow.pairs.get(p.id)!.model,
        components: p.components!,
        attempts: 1,
        tokens: { input: 0, output: 0 },
        durationMs: 1,
        acceptedAt: "2026-01-01T00:00:00.000Z",
      };
      outputs.write(workflow.pairs.get(p.id)!, Buffer.from(text));
    }
    writeLock(lockPath, next);
  }
}
