/**
 * Long requires lists load in time linear in their length: checking that entries are unique, that
 * each names a pair, and placing pairs in waves. No timing is asserted: a quadratic check of
 * 200,000 entries would not finish within the test's time limit.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, formatIssue, type ConfigIssue } from "../../src/model/errors.js";
import { loadWorkflow } from "../../src/workspace/load.js";
import { REPO, tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";

const ENTRIES = 200_000;

function issuesOf(text: string): ConfigIssue[] {
  const dir = tempRepo({ "workflow.yml": text });
  try {
    loadWorkflow(dir, dir);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues;
  }
}

describe("long requires lists", () => {
  it("naming no pair: each entry is reported at its place", { timeout: scaled(120_000) }, () => {
    const requires = Array.from({ length: ENTRIES }, (_, i) => `x${i}`).join(", ");
    const issues = issuesOf(`name: n\naction_pairs:\n  a: {}\n  b:\n    requires: [${requires}]\n`);
    expect(issues).toHaveLength(ENTRIES);
    expect(formatIssue(issues[0]!)).toMatch(/^workflow\.yml:5:16: action_pairs\.b\.requires\.0: requires "x0", which is not a pair of this workflow/);
    expect(formatIssue(issues[ENTRIES - 1]!)).toMatch(new RegExp(`requires\\.${ENTRIES - 1}: requires "x${ENTRIES - 1}"`));
  });

  it("naming one pair again and again: one error at the list", { timeout: scaled(120_000) }, () => {
    const workflow = readFileSync(path.join(REPO, "examples/tdd-stack/workflow.yml"), "utf8");
    const issues = issuesOf(workflow.replace("requires: [g_test]", `requires: [${Array(ENTRIES).fill("g_test").join(", ")}]`));
    expect(issues.map(formatIssue)).toEqual([expect.stringMatching(/^workflow\.yml:28:15: action_pairs\.g_impl\.requires: lists the same entry twice/)]);
  });

  it("naming 2,000 pairs: loads, in two waves", () => {
    const n = 2_000;
    const pairs = Array.from({ length: n }, (_, i) => `  p${i}: {}\n`).join("");
    const dir = tempRepo({
      "workflow.yml": `name: n\naction_pairs:\n${pairs}  last:\n    requires: [${Array.from({ length: n }, (_, i) => `p${i}`).join(", ")}]\n`,
    });
    const { graph } = loadWorkflow(dir, dir);
    expect(graph.waves.map((w) => w.length)).toEqual([n, 1]);
  });
});
