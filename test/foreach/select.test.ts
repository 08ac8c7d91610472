// --only and --from take a foreach pair's own id, as requires: does: it names every instance.
import { describe, expect, it } from "vitest";
import { generators, pageName, pagesRepo, step } from "./world.js";
import { planOf, runOf } from "../helpers/state.js";
import type { Selection } from "../../src/model/run.js";

const PAGES = 4;
const instances = (template: string) => Array.from({ length: PAGES }, (_, i) => `${template}[${pageName(i)}]`);

/** What the plan with this selection runs, and what the run with it executes, sorted. */
async function both(dir: string, selection: Selection): Promise<{ planned: string[]; executed: string[] }> {
  const { plan } = await planOf(dir, { cwd: dir, selection });
  const planned = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  const report = await runOf(dir, { cwd: dir, env: {}, generators, selection });
  const executed = report.pairs.filter((p) => p.status === "executed").map((p) => p.id);
  return { planned: planned.sort(), executed: executed.sort() };
}

describe("a foreach pair's id in --only and --from", () => {
  it("--only translate runs every instance of translate and nothing else", async () => {
    const dir = pagesRepo(PAGES);
    await step(dir);
    const { planned, executed } = await both(dir, { only: ["translate"] });
    expect(planned).toEqual(instances("translate").sort());
    expect(executed).toEqual(planned);
  });

  it("--only mixes template ids and instance ids", async () => {
    const dir = pagesRepo(PAGES);
    await step(dir);
    const { planned } = await both(dir, { only: ["translate", `check[${pageName(1)}]`] });
    expect(planned).toEqual([...instances("translate"), `check[${pageName(1)}]`].sort());
  });

  it("--from translate runs every instance and everything downstream of them", async () => {
    const dir = pagesRepo(PAGES);
    await step(dir);
    const { planned, executed } = await both(dir, { from: "translate" });
    expect(planned).toEqual([...instances("translate"), ...instances("check"), "index"].sort());
    expect(executed).toEqual(planned);
  });

  it("names the nearest pair or foreach pair for an id that is neither", async () => {
    const dir = pagesRepo(PAGES);
    await expect(planOf(dir, { cwd: dir, selection: { only: ["translat"] } })).rejects.toThrow(
      /--only translat: no such pair in pages; did you mean "translate"\?/,
    );
    await expect(planOf(dir, { cwd: dir, selection: { from: "chek" } })).rejects.toThrow(/--from chek: no such pair in pages; did you mean "check"\?/);
  });
});
