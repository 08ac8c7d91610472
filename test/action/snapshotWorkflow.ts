/**
 * A workflow of many cheap pairs for the cache tests and the benchmark: chains of ten pairs, each
 * pair's generator a shell `printf` of its own id (deterministic, no model), every other pair with
 * an output file. Big enough to show that the cache's traffic does not grow with the pairs.
 */
import { stringify } from "yaml";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";

export function pairIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `p${String(i).padStart(4, "0")}`);
}

/** A repository holding workflow.yml and prompts.yml of `n` pairs; returns its directory. */
export function manyPairs(n: number, options: { dir?: string; edit?: string } = {}): string {
  const ids = pairIds(n);
  const pairs: Record<string, unknown> = {};
  const prompts: Record<string, unknown> = {};
  ids.forEach((id, i) => {
    pairs[id] = {
      ...(i % 10 === 0 ? {} : { requires: [ids[i - 1]] }),
      ...(i % 2 === 0 ? { output: `out/${id}.txt` } : {}),
      guard: "contains",
      guard_config: { text: "made" },
    };
    prompts[id] = { task: `Make ${id}.${options.edit === id ? " Edited." : ""}` };
  });
  const workflow = {
    name: `many-${n}`,
    model: "stand-in",
    generator: "command",
    // The prompt changes the artifact only through its task line, as a model's answer would.
    generator_config: { run: `printf 'made %s from %s\\n' "$PAIRFLOW_PAIR" "$(grep -m1 '^Make ' || true)"` },
    action_pairs: pairs,
  };
  const dir = options.dir ?? tempRepo();
  writeFiles(dir, { "workflow.yml": stringify(workflow), "prompts.yml": stringify(prompts) });
  return dir;
}
