/**
 * Any text the files allow is a pair id: names JavaScript objects hold already (`constructor`,
 * `toString`, `__proto__`, `hasOwnProperty`, ...), names other code gives meaning to (`then`,
 * `toJSON`, `prototype`), numbers, dots; and, as instances of foreach pairs, ids with brackets,
 * spaces, slashes, "%", quotes and characters beyond ASCII. On random small workflows of such
 * pairs (chains and diamonds, with prompts entries), run through the command line as a person
 * does: a first run of some of the pairs, then the rest added; at each step validate, plan and
 * plan --json agree, run executes exactly the pairs the plan said, the plan after it skips every
 * pair, and the lock file holds every pair and reads back as written.
 *
 *   PAIRFLOW_PROPERTY_RUNS=100   workflows to try (default 15)
 *   PAIRFLOW_PROPERTY_SEED=123   another seed (default fixed, so every run tries the same ones)
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { parseLock } from "../../src/lockfile/read.js";
import { mergeLocks } from "../../src/lockfile/merge.js";
import { serializeLock } from "../../src/lockfile/write.js";
import { tempRepo } from "../helpers/fixtures.js";

const RUNS = Number(process.env.PAIRFLOW_PROPERTY_RUNS ?? 15);
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20260424);

const PAIR_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Pair ids as written: every name Object.prototype has, and more that code tends to trip on. */
export const HOSTILE_IDS = [
  ...new Set([
    ...Object.getOwnPropertyNames(Object.prototype),
    "__proto__",
    "prototype",
    "toJSON",
    "then",
    "length",
    "name",
    "call",
    "apply",
    "bind",
    "0",
    "10",
    "a.b",
    "constructor.prototype",
    "__proto__.toString",
    "x-y",
  ]),
].filter((id) => PAIR_ID.test(id));

/** Items of foreach pairs, which make instance ids: `constructor[a b]`, `toString[x/y]`. */
const HOSTILE_VALUES = [
  "__proto__",
  "constructor",
  "toString",
  "then",
  "a b",
  "a.b",
  "x/y",
  "[0]",
  "%41",
  "%",
  "..",
  ".",
  "ü",
  "日本語",
  "😀",
  "-n",
  `it's "quoted" $HOME`,
];

interface PairSpec {
  /** Raw dependency numbers: pair i requires pair (d mod i), so only earlier pairs. */
  deps: number[];
  /** How a foreach pair requires a foreach pair: all its instances, the one with the same item, or one named instance. */
  via: ("all" | "same" | "one")[];
  foreach: boolean;
  prompt: boolean;
}

interface Scenario {
  ids: string[];
  pairs: PairSpec[];
  values: string[];
  /** How many pairs the first run has (modulo the count, plus one). */
  first: number;
}

const scenarioArb: fc.Arbitrary<Scenario> = fc.uniqueArray(fc.constantFrom(...HOSTILE_IDS), { minLength: 2, maxLength: 5 }).chain((ids) =>
  fc.record({
    ids: fc.constant(ids),
    pairs: fc.array(
      fc.record({
        deps: fc.array(fc.nat(), { maxLength: 3 }),
        via: fc.array(fc.constantFrom("all" as const, "same" as const, "one" as const), { minLength: 3, maxLength: 3 }),
        foreach: fc.oneof({ arbitrary: fc.constant(false), weight: 2 }, { arbitrary: fc.constant(true), weight: 1 }),
        prompt: fc.boolean(),
      }),
      { minLength: ids.length, maxLength: ids.length },
    ),
    values: fc.uniqueArray(fc.constantFrom(...HOSTILE_VALUES), { minLength: 1, maxLength: 3 }),
    first: fc.nat(),
  }),
);

interface PairDef {
  id: string;
  requires: string[];
  foreach: boolean;
  prompt: boolean;
}

function pairDefs(s: Scenario): PairDef[] {
  const defs: PairDef[] = [];
  s.ids.forEach((id, i) => {
    const spec = s.pairs[i]!;
    const requires: string[] = [];
    if (i > 0) {
      spec.deps.forEach((d, k) => {
        const dep = defs[d % i]!;
        const via = spec.via[k]!;
        const entry =
          !dep.foreach || via === "all" ? dep.id : via === "same" && spec.foreach ? `${dep.id}[{item}]` : `${dep.id}[${s.values[d % s.values.length]}]`;
        if (!requires.includes(entry)) requires.push(entry);
      });
    }
    defs.push({ id, requires, foreach: spec.foreach, prompt: spec.prompt });
  });
  return defs;
}

/** The ids of the pairs after foreach expansion. */
function expandedIds(defs: readonly PairDef[], values: readonly string[]): string[] {
  return defs.flatMap((d) => (d.foreach ? values.map((v) => `${d.id}[${v}]`) : [d.id]));
}

/** The workflow and prompts files of the pairs; mappings are Maps, so that "__proto__" is written as a key. */
function writeWorkflow(dir: string, defs: readonly PairDef[], values: readonly string[]): void {
  const pairs = new Map<string, unknown>();
  const prompts = new Map<string, unknown>();
  defs.forEach((d, i) => {
    const pair = new Map<string, unknown>();
    if (d.requires.length > 0) pair.set("requires", d.requires);
    if (d.foreach) {
      pair.set("foreach", { values });
      pair.set("output", `out/${i}/{value}.txt`);
      pair.set("generator_config", { run: "printf '%s\\n' {value}" });
    } else {
      pair.set("output", `out/${i}.txt`);
      pair.set("generator_config", { run: `printf '%s\\n' 'pair ${i}'` });
    }
    pairs.set(d.id, pair);
    if (d.prompt) prompts.set(d.id, { task: d.foreach ? `Write about {value} for ${d.id}.` : `Write ${d.id}.` });
  });
  writeFileSync(
    path.join(dir, "workflow.yml"),
    stringify(
      new Map<string, unknown>([
        ["name", "hostile ids"],
        ["generator", "command"],
        ["action_pairs", pairs],
      ]),
    ),
  );
  writeFileSync(path.join(dir, "prompts.yml"), prompts.size > 0 ? stringify(prompts) : "{}\n");
}

interface Result {
  status: number;
  stdout: string;
  stderr: string;
}

async function cli(dir: string, ...args: string[]): Promise<Result> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    cwd: dir,
    env: { PATH: process.env.PATH },
  });
  return { status, stdout, stderr };
}

interface PlanJson {
  waves: string[][];
  pairs: { id: string; action: "run" | "skip" }[];
  totals: { pairs: number; run: number; skip: number };
  removed?: string[];
}

interface RunJson {
  status: string;
  pairs: { id: string; status: string }[];
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

/** validate, plan and plan --json, checked to agree; returns the pairs the plan runs. */
async function planned(dir: string, ids: readonly string[]): Promise<string[]> {
  const validated = await cli(dir, "validate");
  expect(validated.stderr).toBe("");
  expect(validated.status).toBe(0);

  const json = await cli(dir, "plan", "--json");
  expect(json.stderr).toBe("");
  expect(json.status).toBe(0);
  const plan = JSON.parse(json.stdout) as PlanJson;
  expect(sorted(plan.pairs.map((p) => p.id))).toEqual(sorted(ids));
  expect(sorted(plan.waves.flat())).toEqual(sorted(ids));
  expect(plan.removed).toBeUndefined();
  const run = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
  expect(plan.totals).toMatchObject({ pairs: ids.length, run: run.length, skip: ids.length - run.length });

  const text = await cli(dir, "plan");
  expect(text.stderr).toBe("");
  expect(text.status).toBe(0);
  const lines = text.stdout.split("\n");
  // Every pair that runs has its line; instances that are skipped are counted under their template.
  for (const id of run) expect(lines.some((l) => l.trim().startsWith("run ") && l.includes(` ${id} `))).toBe(true);
  expect(text.stdout).toContain(`\n${run.length} to run, ${ids.length - run.length} unchanged\n`);
  return run;
}

/** run --json: executes exactly the pairs given, and the next plan skips every pair. */
async function ran(dir: string, ids: readonly string[], toRun: readonly string[]): Promise<void> {
  const result = await cli(dir, "run", "--yes", "--json");
  expect(result.status, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as RunJson;
  expect(report.status).toBe("success");
  expect(sorted(report.pairs.map((p) => p.id))).toEqual(sorted(ids));
  expect(sorted(report.pairs.filter((p) => p.status === "executed").map((p) => p.id))).toEqual(sorted(toRun));
  expect(await planned(dir, ids)).toEqual([]);
}

describe("any text the files allow is a pair id", () => {
  it(`validate, plan, plan --json and run agree over ${RUNS} workflows of hostile ids`, { timeout: 10 * 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const dir = tempRepo();
        const defs = pairDefs(scenario);
        const first = defs.slice(0, 1 + (scenario.first % defs.length));
        const lockFile = path.join(dir, "workflow.lock.json");

        writeWorkflow(dir, first, scenario.values);
        const firstIds = expandedIds(first, scenario.values);
        expect(sorted(await planned(dir, firstIds))).toEqual(sorted(firstIds));
        await ran(dir, firstIds, firstIds);
        const before = readFileSync(lockFile, "utf8");

        // The rest added: only they run, against a lock file that lacks them.
        writeWorkflow(dir, defs, scenario.values);
        const ids = expandedIds(defs, scenario.values);
        const added = ids.filter((id) => !firstIds.includes(id));
        expect(sorted(await planned(dir, ids))).toEqual(sorted(added));
        await ran(dir, ids, added);

        const after = readFileSync(lockFile, "utf8");
        const lock = parseLock(after, "workflow.lock.json");
        expect(sorted(Object.keys(lock.pairs))).toEqual(sorted(ids));
        expect(serializeLock(lock)).toBe(after);
        // A merge where one side added the pairs takes that side; both sides alike, that.
        const base = parseLock(before, "base");
        expect(serializeLock(mergeLocks(base, base, lock).lock)).toBe(after);
        expect(serializeLock(mergeLocks(null, lock, parseLock(after, "theirs")).lock)).toBe(after);
      }),
      { numRuns: RUNS, seed: SEED, verbose: 0 },
    );
  });
});
