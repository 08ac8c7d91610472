/**
 * Seeds accepted state so that a plan finds every pair unchanged: a lock entry per pair and the
 * output file of pairs that have one. It is what test/helpers/state.ts acceptAll ends with, but in
 * one pass in topological order (acceptAll re-plans once per wave, far too slow at 10,000 pairs).
 * The local store is left empty: a lock entry with the same configRef is enough for `skip`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { planTarget } from "../src/app/plan.js";
import { openState } from "../src/app/state.js";
import { outputPath } from "../src/workspace/outputs.js";
import { totals } from "../src/plan/plan.js";
import { componentDigests, configRef, ownComponents } from "../src/refs/configRef.js";
import { type Upstream } from "../src/model/plan.js";
import { sha256Hex } from "../src/refs/hash.js";
import { lockPathFor, writeLock } from "../src/lockfile/lockfile.js";
import { type LockFile } from "../src/model/records.js";

export function seedAcceptedState(workflowPath: string): void {
  // Input and file hashes as the plan computes them (the state directory ignored the same way, the
  // files a command reads followed the same way): the application layer's own view of the state.
  const { workflow, graph, view } = openState(workflowPath, { cwd: process.cwd(), env: process.env, lock: null });

  const lock: LockFile = { version: 1, workflow: workflow.name, pairs: {} };
  for (const id of graph.order) {
    const pair = workflow.pairs.get(id)!;
    const own = ownComponents(workflow, pair, pair.inputs.length > 0 ? view.inputHashes(pair) : undefined, view.fileHashes(pair));
    // Dependencies come earlier in graph.order, so their entries exist already.
    const upstream: Upstream = { refs: {}, artifactHashes: {} };
    for (const dep of pair.requires) {
      upstream.refs[dep] = lock.pairs[dep]!.configRef;
      upstream.artifactHashes[dep] = lock.pairs[dep]!.contentHash;
    }
    const text = `artifact of ${id}\n`;
    lock.pairs[id] = {
      configRef: configRef(own, upstream),
      contentHash: sha256Hex(text),
      source: "generated",
      model: pair.model,
      components: componentDigests(own, upstream),
      attempts: 1,
      tokens: { input: 0, output: 0 },
      durationMs: 1,
      acceptedAt: "2026-01-01T00:00:00.000Z",
    };
    const file = outputPath(workflow, pair);
    if (file) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }
  writeLock(lockPathFor(workflow.path), lock);
}

/** Pairs that a plan of the seeded workflow would run; empty when seeding is right. */
export async function pairsThatRun(workflowPath: string): Promise<{ total: number; waves: number; run: string[] }> {
  const { plan, graph } = await planTarget(workflowPath, { cwd: process.cwd(), env: process.env });
  const run = plan.pairs.filter((p) => p.action === "run").map((p) => `${p.id} (${p.reasons.map((r) => `${r.kind}: ${r.detail}`).join("; ")})`);
  return { total: totals(plan).pairs, waves: graph.waves.length, run };
}
