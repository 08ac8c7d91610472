import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkflow } from "../src/workspace/load.js";
import { configRef, ownComponents } from "../src/refs/configRef.js";
import { sha256Hex } from "../src/refs/hash.js";
import { FIXTURES, tempRepo } from "./helpers/fixtures.js";

interface VectorCase {
  name: string;
  workflow: unknown;
  prompts?: unknown;
  prompts_file?: string;
  artifacts: Record<string, string>;
  expected: Record<string, string>;
}

const vectors = JSON.parse(readFileSync(path.join(FIXTURES, "vectors/config_ref.json"), "utf8")) as { cases: VectorCase[] };

describe("configRef reproduces the reference vectors", () => {
  it.each(vectors.cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const prompts = c.prompts_file ? readFileSync(path.join(FIXTURES, c.prompts_file), "utf8") : JSON.stringify(c.prompts);
    const dir = tempRepo({ "workflow.json": JSON.stringify(c.workflow, null, 2), "prompts.json": prompts });
    const { workflow, graph } = loadWorkflow(dir);

    const refs: Record<string, string> = {};
    for (const id of graph.order) {
      const pair = workflow.pairs.get(id)!;
      // A pair's reference is known only once every dependency has an accepted artifact.
      if (!pair.requires.every((dep) => dep in refs && dep in c.artifacts)) continue;
      refs[id] = configRef(ownComponents(workflow, pair, undefined), {
        refs: Object.fromEntries(pair.requires.map((dep) => [dep, refs[dep]!])),
        artifactHashes: Object.fromEntries(pair.requires.map((dep) => [dep, sha256Hex(c.artifacts[dep]!)])),
      });
    }
    expect(refs).toEqual(c.expected);
  });
});
