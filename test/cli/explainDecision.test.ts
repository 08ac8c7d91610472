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

const KINDS = `name: kinds
model: m-1
generator: command
generator_config: {run: "node gen.mjs", env: {MODE: fast}}
action_pairs:
  a:
    inputs: ["spec/*.md"]
    guard: command
    guard_config: {run: "sh check.sh", timeout: 30}
  b:
    requires: [a]
    guard: composite
    guards: [{guard: contains, guard_config: {text: b}}]
`;

describe("explain names the component that changed, of every kind a workflow edit reaches", () => {
  it.each<[string, (dir: string) => void, string, [string, string]]>([
    ["a prompt field", (d) => edit(d, "prompts.yml", "Write a.", "Write a again."), "a", ["prompt", "task"]],
    [
      "the workflow's specification",
      (d) => edit(d, "workflow.yml", "model: m-1\n", "model: m-1\nspecification: Now a spec.\n"),
      "a",
      ["context", "specification"],
    ],
    ["the model", (d) => edit(d, "workflow.yml", "model: m-1", "model: m-2"), "a", ["model", ""]],
    ["the guard", (d) => edit(d, "workflow.yml", "guard: command", "guard: regex"), "a", ["guard", ""]],
    ["a guard_config key", (d) => edit(d, "workflow.yml", "timeout: 30", "timeout: 60"), "a", ["guard_config", "timeout"]],
    ["a composite's guards", (d) => edit(d, "workflow.yml", "{text: b}", "{text: bb}"), "b", ["guards", ""]],
    ["the generator", (d) => edit(d, "workflow.yml", "generator: command", "generator: openai"), "a", ["generator", ""]],
    ["a generator_config env variable", (d) => edit(d, "workflow.yml", "MODE: fast", "MODE: slow"), "a", ["generator_config", "env.MODE"]],
    ["an input file", (d) => writeFileSync(path.join(d, "spec/one.md"), "Edited.\n"), "a", ["input", "spec/one.md"]],
    [
      "a helper the generator imports",
      (d) => appendFileSync(path.join(d, "lib/helper.mjs"), "export const x = 1;\n"),
      "a",
      ["generator_file", "lib/helper.mjs"],
    ],
    ["a file the guard's script sources", (d) => writeFileSync(path.join(d, "lib.sh"), "OK=no\n"), "a", ["guard_file", "lib.sh"]],
    ["a dependency's accepted content", (d) => writeFileSync(path.join(d, "out/a.txt"), "edited by hand\n"), "b", ["artifact", "a"]],
  ])("%s", { timeout: scaled(60_000) }, async (_what, change, pair, [kind, name]) => {
    const dir = tempRepo({
      "workflow.yml": KINDS.replace("  a:\n", "  a:\n    output: out/a.txt\n"),
      "prompts.yml": "a: {task: Write a.}\nb: {task: Write b.}\n",
      "gen.mjs": 'import { word } from "./lib/helper.mjs";\nconsole.log(word);\n',
      "lib/helper.mjs": 'export const word = "one";\n',
      "check.sh": '. ./lib.sh\ntest "$OK" = yes\n',
      "lib.sh": "OK=yes\n",
      "spec/one.md": "One.\n",
    });
    await acceptAll(dir);
    change(dir);
    const e = await explainPair({ cwd: dir, env: {}, pair });
    const { plan } = await planOf(dir);
    expect(e.decision).toEqual({ action: "run", reasons: plan.byId.get(pair)!.reasons });
    // The parts shown as differing from the lock entry are exactly the parts the reasons name.
    const differing = e.components.filter((r) => r.status !== "same").map((r) => ({ kind: r.kind, name: r.name }));
    expect(differing).toContainEqual({ kind, name });
    expect(new Set(differing.map((c) => JSON.stringify(c)))).toEqual(new Set(e.decision.reasons.map((r) => JSON.stringify(r.component))));
    rmSync(dir, { recursive: true, force: true });
  });
});

function edit(dir: string, file: string, from: string, to: string): void {
  const f = path.join(dir, file);
  const text = readFileSync(f, "utf8");
  if (!text.includes(from)) throw new Error(`${file} lacks ${from}`);
  writeFileSync(f, text.replace(from, to));
}
