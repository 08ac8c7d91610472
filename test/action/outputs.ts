/** The action's outputs as action.yml declares them, checked the way a following step reads them. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { parse } from "yaml";
import { REPO } from "../helpers/fixtures.js";

const declared = Object.keys((parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { outputs: Record<string, unknown> }).outputs);

/** Outputs a step reads with fromJSON. */
const JSON_OUTPUTS = ["plan", "executed", "reused", "failed", "blocked", "to-run", "has-changes", "matrix", "changes"];

/**
 * Every output of action.yml has a value, those read with fromJSON parse, and the given ones are as
 * expected: what an `if: always()` step needs on every path, failures included.
 */
export function expectEveryOutput(outputs: Record<string, string>, expected: Record<string, string> = {}): void {
  for (const name of declared) {
    expect(outputs, `output ${name}`).toHaveProperty([name]);
    if (JSON_OUTPUTS.includes(name)) expect(() => JSON.parse(outputs[name]!), `output ${name}`).not.toThrow();
  }
  expect(outputs).toMatchObject(expected);
}
