/**
 * What a command reads is part of its pair's reference, through the installed CLI: a module a
 * script imports, a script a command reaches through `cd`, a file a guard's script sources. An edit
 * to any of them re-runs exactly its pair, and `plan` and `run` agree on which.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Reason } from "../../src/model/plan.js";
import { tempRepo } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "./built.js";

const WORKFLOW = `name: reads
rmax: 0
generator: command
action_pairs:
  imports:
    generator_config: {run: node gen.mjs}
  cd:
    generator_config: {run: cd sub && sh s.sh}
  guarded:
    generator_config: {run: echo ok}
    guard: command
    guard_config: {run: sh check.sh}
  other:
    generator_config: {run: echo other}
`;

const FILES = {
  "workflow.yml": WORKFLOW,
  "gen.mjs": 'import { word } from "./lib/helper.mjs";\nconsole.log(word);\n',
  "lib/helper.mjs": 'export const word = "one";\n',
  "sub/s.sh": "echo from sub\n",
  "check.sh": '. ./lib.sh\ngrep -q "$ALLOWED" "$PAIRFLOW_ARTIFACT"\n',
  "lib.sh": "ALLOWED=ok\n",
};

interface PlanJson {
  pairs: { id: string; action: string; reasons: Reason[] }[];
}
interface RunJson {
  pairs: { id: string; status: string }[];
}

function planned(dir: string): Record<string, Reason[]> {
  const r = pairflow(["plan", "--json"], { cwd: dir });
  expect(r.status, r.stderr).toBe(0);
  const plan = JSON.parse(r.stdout) as PlanJson;
  return Object.fromEntries(plan.pairs.filter((p) => p.action === "run").map((p) => [p.id, p.reasons]));
}

function ran(dir: string): Record<string, string> {
  const r = pairflow(["run", "--json"], { cwd: dir });
  const report = JSON.parse(r.stdout) as RunJson;
  return Object.fromEntries(report.pairs.filter((p) => p.status !== "reused").map((p) => [p.id, p.status]));
}

describe("an edit to a file a command reads, followed from its command line", () => {
  it.each<[string, string, (dir: string) => void, Reason, string]>([
    [
      "a module the script imports",
      "imports",
      (dir) => writeFileSync(path.join(dir, "lib/helper.mjs"), 'export const word = "two";\n'),
      { kind: "generator", detail: "lib/helper.mjs changed" },
      "executed",
    ],
    [
      "a script reached through cd",
      "cd",
      (dir) => appendFileSync(path.join(dir, "sub/s.sh"), "echo more\n"),
      { kind: "generator", detail: "sub/s.sh changed" },
      "executed",
    ],
    [
      "a file the guard's script sources, now rejecting the accepted output",
      "guarded",
      (dir) => writeFileSync(path.join(dir, "lib.sh"), "ALLOWED=nope\n"),
      { kind: "guard", detail: "lib.sh changed" },
      "failed",
    ],
  ])("%s re-runs exactly its pair, in plan and run", { timeout: scaled(60_000) }, (_, pair, edit, reason, status) => {
    const dir = tempRepo(FILES);
    expect(ran(dir)).toEqual({ imports: "executed", cd: "executed", guarded: "executed", other: "executed" });
    expect(planned(dir)).toEqual({});
    edit(dir);
    expect(planned(dir)).toEqual({ [pair]: [reason] });
    expect(ran(dir)).toEqual({ [pair]: status });
  });
});
