/**
 * Run records edited into another shape (well-formed JSON that pairflow did not write): listing,
 * showing and pruning skip or report the record by its path, and never crash.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../pr/repo.js";
import { makeWorld, SCALE, SEED, type World } from "./harness.js";
import { mutateJson, recordOps } from "./mutations.js";
import { scaled } from "../helpers/time.js";

let world: World;
beforeAll(async () => void (world = await makeWorld()), scaled(60_000));
afterAll(() => world.done());

const COMMANDS = (runId: string) => [
  ["runs"],
  ["runs", "--json"],
  ["show", runId],
  ["show", runId, "--json"],
  ["prune", "--dry-run"],
  ["prune", "--keep", "1"],
];

describe("mutated run records", () => {
  it(`runs, show and prune end with 0 or 2 and name a bad record by its path (seed ${SEED})`, { timeout: scaled(300_000) }, async () => {
    const runId = readdirSync(path.join(world.state, "runs"))[0]!;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("plan.json", "result.json", "trace.jsonl"), fc.nat(), recordOps, async (name, line, mutations) => {
        const state = path.join(world.root, `records-${n++}`);
        cpSync(world.state, state, { recursive: true });
        const file = path.join(state, "runs", runId, name);
        const text = readFileSync(file, "utf8");
        if (name === "trace.jsonl") {
          const lines = text.trimEnd().split("\n");
          const i = line % lines.length;
          lines[i] = mutateJson(lines[i]!, mutations);
          writeFileSync(file, lines.join("\n") + "\n");
        } else writeFileSync(file, mutateJson(text, mutations));
        for (const args of COMMANDS(runId)) {
          const result = await cli([...args, "--state-dir", state], world.example);
          const what = `${args.join(" ")} (${name} mutated)`;
          expect([0, 2], `${what}: ${result.stderr}`).toContain(result.status);
          expect(result.stdout + result.stderr, what).not.toMatch(/^\s+at |TypeError|RangeError/m);
          for (const warning of result.stderr.split("\n").filter((l) => l.startsWith("warning runs/")))
            expect(warning, what).toContain(`runs/${runId}/${name}`);
        }
        rmSync(state, { recursive: true, force: true });
      }),
      { seed: SEED, numRuns: Math.round(40 * SCALE), endOnFailure: true },
    );
  });

  it.each([
    ["plan.json", "[]"],
    ["plan.json", '{"workflow": null, "pairs": 5}'],
    ["result.json", '{"status": "success", "totals": null}'],
    ["trace.jsonl", "5\nnull\n[]\n{}\n"],
  ])("a %s holding %s is reported by its path and read around", async (name, text) => {
    const runId = readdirSync(path.join(world.state, "runs"))[0]!;
    const state = path.join(world.root, `records-${name}-${text.length}`);
    cpSync(world.state, state, { recursive: true });
    writeFileSync(path.join(state, "runs", runId, name), text);
    for (const args of COMMANDS(runId)) {
      const result = await cli([...args, "--state-dir", state], world.example);
      expect(result.status, result.stderr).toBe(0);
      if (args[0] !== "prune") expect(result.stderr).toMatch(new RegExp(`^warning runs/${runId}/${name.replace(".", "\\.")}.* (is not|line \\d+ is not)`, "m"));
    }
    // What the rest of the record says is still shown.
    const shown = await cli(["show", runId, "--state-dir", state], world.example);
    expect(shown.stdout).toMatch(/g_test/);
  });
});
