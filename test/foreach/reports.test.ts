import { scaled } from "../helpers/time.js";
// What validate and plan --json say about a foreach pair: problems once, at the template's
// lines; each instance's template; the ids a run will remove.
import { describe, expect, it } from "vitest";
import { validateTarget } from "../../src/app/validate.js";
import { planJson } from "../../src/report/plan.js";
import { planOf } from "../helpers/state.js";
import { tempRepo } from "../helpers/fixtures.js";
import { deletePage, pageName, pagesRepo, step } from "./world.js";

describe("foreach in validate and plan --json", () => {
  it("reports a problem of a foreach pair once, at its template's line, however many instances it has", async () => {
    const dir = tempRepo({
      "workflow.yml": `name: t
generator: command
action_pairs:
  t:
    foreach:
      values: [a, b, c]
    output: out/{value}.txt
    generator_config:
      run: echo {value}
    guard: regex
    guard_config:
      pattern: "("
  u:
    foreach:
      values: [a, b, c]
    output: out/{value}.md
    generator_config:
      run: echo {value}
      timout: 3
`,
      "prompts.yml": "t:\n  feedback_wrapper: no feedback here\n",
    });
    const { problems } = await validateTarget(dir, { cwd: dir, env: {} });
    expect(problems.map((p) => `${p.file}:${p.line}:${p.severity ?? "error"}: ${p.message.slice(0, 40)}`)).toEqual([
      "prompts.yml:2:warning: has no {feedback}, so a retry never show",
      "workflow.yml:12:error: is not a valid regular expression: Inval",
      'workflow.yml:19:error: unknown key "timout" for the command gen',
    ]);
  });

  it("gives each instance's template in plan --json, and the ids a run will drop", { timeout: scaled(30_000) }, async () => {
    const dir = pagesRepo(3);
    await step(dir);
    deletePage(dir, pageName(0));
    const { plan } = await planOf(dir, { cwd: dir });
    const json = planJson(plan, dir);
    expect(json.pairs.map((p) => [p.id, p.template])).toEqual([
      [`translate[${pageName(1)}]`, "translate"],
      [`translate[${pageName(2)}]`, "translate"],
      [`check[${pageName(1)}]`, "check"],
      [`check[${pageName(2)}]`, "check"],
      ["index", undefined],
    ]);
    expect(json.removed).toEqual([`check[${pageName(0)}]`, `translate[${pageName(0)}]`]);
    expect(json.totals).toMatchObject({ pairs: 5, run: 1, skip: 4 });
  });
});
