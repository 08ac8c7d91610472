/**
 * `explain` against `plan`, in-process: for random single changes after every pair was accepted,
 * each pair's explanation gives the plan's decision and reasons, shows as changed every component
 * a reason names, and shows no change where the reference is the accepted one.
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { explainPair } from "../../src/app/explain.js";
import type { Explanation } from "../../src/model/explain.js";
import { acceptAll, planOf } from "../helpers/state.js";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";

const WORKFLOW = `name: four
model: m-1
generator: command
generator_config: {run: "node gen.mjs"}
action_pairs:
  a:
    output: out/a.txt
    guard: regex
    guard_config: {pattern: "a"}
    inputs: ["spec/*.md"]
  b:
    requires: [a]
    output: out/b.txt
    guard: contains
    guard_config: {text: "b"}
  c:
    requires: [a]
    generator_config: {run: "node other.mjs"}
  d:
    requires: [b, c]
    output: out/d.txt
`;

const FILES = {
  "workflow.yml": WORKFLOW,
  "prompts.yml": "a: {task: Write a.}\nb: {task: Write b.}\nc: {task: Write c.}\nd: {task: Write d.}\n",
  "gen.mjs": 'import { word } from "./lib/helper.mjs";\nconsole.log(word);\n',
  "lib/helper.mjs": 'export const word = "one";\n',
  "other.mjs": "console.log('other');\n",
  "spec/one.md": "One.\n",
};

const PAIRS = ["a", "b", "c", "d"];

type Change = { what: string; pair: string };

const change = fc.record({
  what: fc.constantFrom("prompt", "model", "guard_config", "helper", "other", "input edited", "input added", "output edited", "output deleted"),
  pair: fc.constantFrom(...PAIRS),
});

function apply(dir: string, { what, pair }: Change): void {
  const edit = (file: string, from: string, to: string) => {
    const f = path.join(dir, file);
    writeFileSync(f, readFileSync(f, "utf8").replace(from, to));
  };
  if (what === "prompt") edit("prompts.yml", `Write ${pair}.`, `Write ${pair} again.`);
  if (what === "model") edit("workflow.yml", `  ${pair}:\n`, `  ${pair}:\n    model: m-2\n`);
  if (what === "guard_config" && pair === "a") edit("workflow.yml", '{pattern: "a"}', '{pattern: "a+"}');
  if (what === "guard_config" && pair === "b") edit("workflow.yml", '{text: "b"}', '{text: "bb"}');
  if (what === "guard_config" && (pair === "c" || pair === "d"))
    edit("workflow.yml", `  ${pair}:\n`, `  ${pair}:\n    guard: contains\n    guard_config: {text: "${pair}"}\n`);
  if (what === "helper") appendFileSync(path.join(dir, "lib/helper.mjs"), "export const more = 1;\n");
  if (what === "other") appendFileSync(path.join(dir, "other.mjs"), "console.log('more');\n");
  if (what === "input edited") writeFileSync(path.join(dir, "spec/one.md"), "One, edited.\n");
  if (what === "input added") writeFileSync(path.join(dir, "spec/two.md"), "Two.\n");
  if (what === "output edited" && pair !== "c") writeFileSync(path.join(dir, `out/${pair}.txt`), "edited by hand\n");
  if (what === "output deleted" && pair !== "c") rmSync(path.join(dir, `out/${pair}.txt`));
}

/** The status a reason's words give its component: `... added`, `... removed from requires`, `... will run`. */
function statusIn(detail: string): string {
  if (/ (will run|is not known yet)$/.test(detail)) return "unknown";
  const word = /\b(added|removed)( (to|from) requires)?$/.exec(detail);
  return word ? word[1]! : "changed";
}

describe("explain gives the plan's decision", () => {
  it("for random single changes, for every pair, with the components its reasons name shown as changed", { timeout: scaled(240_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(change, async (c) => {
        const dir = tempRepo(FILES);
        await acceptAll(dir);
        apply(dir, c);
        const { plan } = await planOf(dir);
        for (const id of PAIRS) {
          const planned = plan.byId.get(id)!;
          const e: Explanation = await explainPair({ cwd: dir, env: {}, pair: id });
          expect({ action: e.decision.action, reasons: e.decision.reasons, configRef: e.configRef }).toEqual({
            action: planned.action,
            reasons: planned.reasons,
            configRef: planned.configRef,
          });
          const row = (kind: string, name: string) => e.components.find((r) => r.kind === kind && r.name === name);
          for (const r of e.decision.reasons) {
            if (r.component === undefined) continue;
            // A dependency that will run makes its part unknown; any other reason names a part that was added, removed or changed.
            expect(row(r.component.kind, r.component.name)?.status, `${id}: ${r.detail}`).toBe(statusIn(r.detail));
          }
          if (e.accepted !== null && e.accepted.configRef === e.configRef) expect(e.components.filter((r) => r.status !== "same")).toEqual([]);
          if (e.decision.action === "run" && e.configRef !== null && e.accepted !== null && e.configRef !== e.accepted.configRef)
            expect(e.components.some((r) => r.status !== "same")).toBe(true);
        }
        rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 20 },
    );
  });
});
