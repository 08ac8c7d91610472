/**
 * What a command reads is part of its pair's reference, through the installed CLI: a module a
 * script imports, a script a command reaches through `cd`, a file a guard's script sources, and,
 * with --trace-reads, a data file nothing names. An edit to any of them re-runs exactly its pair,
 * and `plan` and `run` agree on which.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
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
    expect(planned(dir)).toMatchObject({ [pair]: [reason] });
    expect(Object.keys(planned(dir))).toEqual([pair]);
    expect(ran(dir)).toEqual({ [pair]: status });
  });
});

const STRACE = spawnSync("strace", ["-V"]).status === 0;

const TRACED = `name: traced
generator: command
action_pairs:
  reader:
    generator_config: {run: node gen.mjs}
  other:
    generator_config: {run: echo other}
`;

describe("--trace-reads: what a command really read", () => {
  it.runIf(STRACE).each(["auto", "off"])(
    "a data file nothing names is warned about on the first run, recorded, and re-runs its pair when it changes (sandbox %s)",
    { timeout: scaled(90_000) },
    (sandbox) => {
      const dir = tempRepo({
        "workflow.yml": TRACED,
        "gen.mjs": 'import { readFileSync } from "node:fs";\nconst file = ["data", "table.csv"].join("/");\nconsole.log(readFileSync(file, "utf8").length);\n',
        "data/table.csv": "a,b\n1,2\n",
      });
      const first = pairflow(["run", "--json", "--trace-reads", "--sandbox", sandbox], { cwd: dir });
      expect(first.status, first.stderr).toBe(0);
      expect(first.stderr).toContain("reader: its commands read data/table.csv, which its reference did not name; recorded as observed");
      expect(first.stderr).not.toMatch(/other: its commands read/);
      const lock = JSON.parse(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")) as { pairs: Record<string, { observed?: string[] }> };
      expect(lock.pairs.reader!.observed).toEqual(["data/table.csv"]);
      expect(lock.pairs.other!.observed).toBeUndefined();
      // The reference the run recorded is the one the next plan makes: nothing runs again.
      expect(planned(dir)).toEqual({});

      writeFileSync(path.join(dir, "data/table.csv"), "a,b\n3,4\n");
      expect(planned(dir)).toEqual({
        reader: [{ kind: "inputs", detail: "observed read: data/table.csv changed", component: { kind: "observed", name: "data/table.csv" } }],
      });
      // Untraced now: what was observed stays part of the reference.
      expect(ran(dir)).toEqual({ reader: "executed" });
      expect(planned(dir)).toEqual({});
    },
  );

  it("without strace says so once, and runs untraced", { timeout: scaled(60_000) }, () => {
    const dir = tempRepo({ "workflow.yml": TRACED.replace("node gen.mjs", "echo reader") });
    // strace is taken from the system's directories, never PATH: a machine without it is one where PAIRFLOW_STRACE names none.
    const missing = path.join(dir, "no-such-dir", "strace");
    const r = pairflow(["run", "--trace-reads", "--sandbox", "off"], { cwd: dir, env: { PATH: process.env.PATH, PAIRFLOW_STRACE: missing } });
    expect(r.status, r.stderr).toBe(0);
    const said = (r.stdout + r.stderr).split("\n").filter((line) => line.includes("reads are not traced"));
    expect(said).toEqual([expect.stringContaining(`reads are not traced: strace is not installed at ${missing} (PAIRFLOW_STRACE)`)]);
    expect(readFileSync(path.join(dir, "workflow.lock.json"), "utf8")).not.toContain("observed");
  });
});
