/**
 * An independent oracle for incremental runs: on random workflows of real commands that read
 * through what pairflow must follow (a script that sources another by `$(dirname "$0")`, Node
 * modules imported after a `cd`, a Python module imported by a script, a file whose name only a
 * traced run sees, the sections of a `split: markdown` page, the files of a `foreach` added, edited
 * and deleted, and a pair reading all of them), after each random step of changes a
 * person makes (those files edited and reverted, prompts, guards tightened and loosened, outputs
 * edited by hand, restored and deleted), one `pairflow run --trace-reads` must leave every output as a
 * from-scratch `run --force` of the same sources in a separate copy leaves it (no miss), and:
 *
 * - plan = run: the pairs `plan` said would run are those the run executed;
 * - a second run right after executes nothing;
 * - no generator is called for a request an earlier run had answered (each call is counted in a
 *   file outside the repository, by what it received);
 * - an output edited by hand stays as the person left it; the pairs that read it are left out of
 *   the comparison, which a from-scratch build cannot make.
 *
 *   PAIRFLOW_PROPERTY_RUNS=40    workflows to try (default 2: each takes a few seconds of real processes)
 *   PAIRFLOW_PROPERTY_SEED=123   another seed (default fixed, so every run tries the same ones)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import type { RunReport, Selection } from "../../src/model/run.js";
import { copySources, writeFiles } from "../helpers/fixtures.js";
import { planOf, runOf } from "../helpers/state.js";
import { scaled } from "../helpers/time.js";

const RUNS = Number(process.env.PAIRFLOW_PROPERTY_RUNS ?? 2);
const SEED = Number(process.env.PAIRFLOW_PROPERTY_SEED ?? 20260636);

// ---------------------------------------------------------------------------------------------
// The files commands read, each editable to a few versions (so edits are also reverts)

const EDITABLE = ["lib/b.sh", "tools/y.mjs", "py/helper.py", "data/hidden.txt"] as const;
const VERSIONS = 3;
const ITEMS = 3;

function editable(file: (typeof EDITABLE)[number], v: number): string {
  switch (file) {
    case "lib/b.sh":
      return `B="b v${v}"\n`;
    case "tools/y.mjs":
      return `export const y = "y v${v}";\n`;
    case "py/helper.py":
      return `H = "helper v${v}"\n`;
    case "data/hidden.txt":
      return `hidden v${v}\n`;
  }
}

const FIXED: Record<string, string> = {
  // Sourced through $(dirname "$0"): pairflow follows it to lib/b.sh.
  "lib/a.sh": '. "$(dirname "$0")/b.sh"\ncat\necho "a: $B"\n',
  // The same, in the backquoted spelling.
  "lib/c.sh": '. "`dirname "$0"`/b.sh"\ncat\necho "c: $B"\n',
  // Run after `cd tools`: the import is relative to tools/.
  "tools/x.mjs": 'import { y } from "./y.mjs";\nimport { readFileSync } from "node:fs";\nprocess.stdout.write(readFileSync(0, "utf8") + "x: " + y + "\\n");\n',
  "py/m.py": 'import sys\nfrom helper import H\nsys.stdout.write(sys.stdin.read() + "m: " + H + "\\n")\n',
  // A name no reading of the script finds: only a traced run sees the file opened.
  "lib/indirect.sh": "cat\nf=$(printf '%s/%s' data hidden.txt)\ncat \"$f\"\n",
  // What every generator pipes its artifact through: counts the call, by what it received, outside the repository.
  "lib/log.sh": [
    "out=$(cat; printf x)",
    'out="${out%x}"',
    "printf '%s' \"$out\"",
    'printf \'%s %s\\n\' "$PAIRFLOW_PAIR" "$(printf \'%s\' "$out" | cksum)" >> "$COUNT_LOG"',
    "",
  ].join("\n"),
};

type Kind = "source" | "backquoted" | "cd" | "python" | "traced" | "plain" | "crlf";

const COMMAND: Record<Kind, string> = {
  source: "sh lib/a.sh | sh lib/log.sh",
  backquoted: "sh lib/c.sh | sh lib/log.sh",
  cd: "cd tools && node x.mjs | sh ../lib/log.sh",
  python: "python3 py/m.py | sh lib/log.sh",
  traced: "sh lib/indirect.sh | sh lib/log.sh",
  plain: "cat | sh lib/log.sh",
  // Lines ending CRLF, as a Windows tool writes them: what dependents read is these bytes.
  crlf: "sed 's/$/\\r/' | sh lib/log.sh",
};

// ---------------------------------------------------------------------------------------------
// Workflows and steps

interface PairSpec {
  kind: Kind;
  deps: number[];
  guard: number;
}

type Change =
  | { kind: "file"; file: number; version: number }
  | { kind: "section"; section: number; version: number }
  | { kind: "task"; pair: number; version: number }
  | { kind: "guard"; pair: number; variant: number }
  | { kind: "hand"; pair: number }
  | { kind: "restore"; pair: number }
  | { kind: "delete"; pair: number }
  | { kind: "item"; item: number; version: number };

interface Scenario {
  pairs: PairSpec[];
  split: boolean;
  /** A foreach pair over items/*.txt, and a pair that reads all its instances. */
  items: boolean;
  steps: Change[][];
}

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("file" as const), file: fc.nat(EDITABLE.length - 1), version: fc.nat(VERSIONS - 1) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("section" as const), section: fc.nat(2), version: fc.nat(VERSIONS - 1) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("task" as const), pair: fc.nat(), version: fc.nat(VERSIONS - 1) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("guard" as const), pair: fc.nat(), variant: fc.nat(2) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("hand" as const), pair: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("restore" as const), pair: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), pair: fc.nat() }), weight: 1 },
  // Version 3 is the item deleted.
  { arbitrary: fc.record({ kind: fc.constant("item" as const), item: fc.nat(ITEMS - 1), version: fc.nat(VERSIONS) }), weight: 2 },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  pairs: fc.array(
    fc.record({
      kind: fc.constantFrom<Kind>("source", "backquoted", "cd", "python", "traced", "plain", "crlf"),
      deps: fc.array(fc.nat(), { maxLength: 2 }),
      guard: fc.nat(2),
    }),
    { minLength: 2, maxLength: 5 },
  ),
  split: fc.boolean(),
  items: fc.boolean(),
  steps: fc.array(fc.array(changeArb, { minLength: 1, maxLength: 2 }), { minLength: 2, maxLength: 5 }),
});

/** Pair i may require only earlier pairs: d mod i. */
function requiresOf(spec: PairSpec, i: number): number[] {
  return i === 0 ? [] : [...new Set(spec.deps.map((d) => d % i))].sort((a, b) => a - b);
}

/** Guards, from none to tight: each variant accepts what the pair's command gives (its task names the pair). */
function guardOf(i: number, variant: number): Record<string, unknown> {
  if (variant === 0) return {};
  return { guard: "contains", guard_config: { text: variant === 1 ? [`part p${i}`] : [`part p${i}`, "version"] } };
}

/** The repository's state a scenario's changes move: every version number, and the outputs a person edited. */
class Sources {
  files: number[] = EDITABLE.map(() => 0);
  sections = [0, 0, 0];
  /** Each item's version; VERSIONS when it is deleted. */
  items = [0, 0, VERSIONS];
  tasks: number[];
  guards: number[];
  /** Output files edited by hand: the bytes they held before. */
  readonly hand = new Map<number, Buffer>();
  private edits = 0;

  constructor(
    readonly scenario: Scenario,
    readonly dir: string,
  ) {
    this.tasks = scenario.pairs.map(() => 0);
    this.guards = scenario.pairs.map((p) => p.guard);
  }

  write(): void {
    const pairs: Record<string, unknown> = {};
    const prompts: Record<string, unknown> = {};
    this.scenario.pairs.forEach((spec, i) => {
      const requires = requiresOf(spec, i).map((d) => `p${d}`);
      pairs[`p${i}`] = {
        ...(requires.length > 0 ? { requires } : {}),
        generator: "command",
        generator_config: { run: COMMAND[spec.kind] },
        output: `out/p${i}.txt`,
        ...guardOf(i, this.guards[i]!),
      };
      prompts[`p${i}`] = { task: `Write part p${i}, version ${this.tasks[i]}.` };
    });
    if (this.scenario.split) {
      pairs.pages = {
        foreach: { files: "docs/*.md", split: "markdown" },
        generator: "command",
        generator_config: { run: "cat | sh lib/log.sh" },
        output: "out/{name}",
      };
      prompts.pages = { task: "Translate:\n<<<\n{piece}>>>" };
    }
    if (this.scenario.items) {
      pairs.items = {
        foreach: { files: "items/*.txt" },
        generator: "command",
        generator_config: { run: "{ cat; cat {file}; } | sh lib/log.sh" },
        output: "out/items/{name}",
      };
      pairs.digest = { requires: ["items"], generator: "command", generator_config: { run: "cat | sh lib/log.sh" }, output: "out/digest.txt" };
      prompts.items = { task: "Summarise {file}." };
      prompts.digest = { task: "Digest the summaries." };
      this.items.forEach((v, k) => {
        const file = path.join(this.dir, `items/i${k}.txt`);
        if (v === VERSIONS) rmSync(file, { force: true });
        else writeFiles(this.dir, { [`items/i${k}.txt`]: `item ${k}, version ${v}\n` });
      });
    }
    writeFiles(this.dir, {
      ...FIXED,
      ...Object.fromEntries(EDITABLE.map((f, k) => [f, editable(f, this.files[k]!)])),
      "workflow.yml": stringify({ name: "oracle", action_pairs: pairs }),
      "prompts.yml": stringify(prompts),
      ...(this.scenario.split ? { "docs/page.md": this.page() } : {}),
    });
  }

  /** Three sections, two of one name, each at its version; version 2 of the first renames it. */
  private page(): string {
    const [a, b, c] = this.sections as [number, number, number];
    return `# Page\n\n## ${a === 2 ? "Install" : "Setup"}\n\nFirst, version ${a}.\n\n## Setup\n\nSecond, version ${b}.\n\n## Usage\n\nThird, version ${c}.\n`;
  }

  output(i: number): string {
    return path.join(this.dir, `out/p${i}.txt`);
  }

  /** Applies a change; says what it did. */
  apply(change: Change): string {
    const n = this.scenario.pairs.length;
    switch (change.kind) {
      case "file":
        this.files[change.file] = change.version;
        this.write();
        return `${EDITABLE[change.file]} at version ${change.version}`;
      case "section":
        this.sections[change.section] = change.version;
        this.write();
        return `section ${change.section} of docs/page.md at version ${change.version}`;
      case "task":
        this.tasks[change.pair % n] = change.version;
        this.write();
        return `p${change.pair % n}'s task at version ${change.version}`;
      case "guard":
        this.guards[change.pair % n] = change.variant;
        this.write();
        return `p${change.pair % n}'s guard at variant ${change.variant}`;
      case "hand": {
        const i = change.pair % n;
        if (!existsSync(this.output(i))) return `(p${i} has no output to edit)`;
        if (!this.hand.has(i)) this.hand.set(i, readFileSync(this.output(i)));
        writeFileSync(this.output(i), readFileSync(this.output(i), "utf8") + `written by hand ${++this.edits}\n`);
        return `out/p${i}.txt edited by hand`;
      }
      case "item":
        this.items[change.item] = change.version;
        this.write();
        return change.version === VERSIONS ? `items/i${change.item}.txt deleted` : `items/i${change.item}.txt at version ${change.version}`;
      case "delete": {
        const i = change.pair % n;
        rmSync(this.output(i), { force: true });
        this.hand.delete(i);
        return `out/p${i}.txt deleted`;
      }
      case "restore": {
        const i = change.pair % n;
        const before = this.hand.get(i);
        if (before === undefined) return `(out/p${i}.txt is not edited by hand)`;
        writeFileSync(this.output(i), before);
        this.hand.delete(i);
        return `out/p${i}.txt restored to what pairflow wrote`;
      }
    }
  }

  /** The pairs whose output, or an output they read, a person edited. */
  handTainted(): Set<string> {
    const tainted = new Set<number>();
    this.scenario.pairs.forEach((spec, i) => {
      if (this.hand.has(i) || requiresOf(spec, i).some((d) => tainted.has(d))) tainted.add(i);
    });
    return new Set([...tainted].map((i) => `p${i}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Running

function scratch(prefix: string): string {
  return mkdtempSync(path.join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), prefix));
}

function env(countLog: string): Record<string, string> {
  return { ...(process.env as Record<string, string>), PAIRFLOW_SANDBOX: "off", COUNT_LOG: countLog };
}

function run(dir: string, countLog: string, selection: Selection = {}): Promise<RunReport> {
  return runOf(dir, { cwd: dir, env: env(countLog), selection, traceReads: true });
}

/** The outputs a workflow's run leaves, by file. */
function outputs(dir: string, scenario: Scenario): Map<string, string | null> {
  const files = scenario.pairs.map((_, i) => `out/p${i}.txt`);
  if (scenario.split) files.push("out/page.md");
  if (scenario.items) files.push("out/digest.txt", ...Array.from({ length: ITEMS }, (_, k) => `out/items/i${k}.txt`));
  return new Map(files.map((f) => [f, existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), "utf8") : null]));
}

/** The lines of a count log: one per generator call. */
function calls(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);

async function check(scenario: Scenario): Promise<void> {
  const tmp = scratch("pairflow-oracle-");
  const repo = path.join(tmp, "repo");
  const countLog = path.join(tmp, "calls.log");
  const sources = new Sources(scenario, repo);
  writeFiles(repo, { ".git/HEAD": "ref: refs/heads/main\n" });
  sources.write();
  /** From-scratch builds, by a digest of the sources they were made of (reverts come back to one). */
  const fromScratch = new Map<string, Map<string, string | null>>();
  const answered = new Set<string>();
  const log: string[] = [];
  try {
    for (const [n, step] of [[], ...scenario.steps].entries()) {
      log.push(`${n}: ${n === 0 ? "first run" : step.map((c) => sources.apply(c)).join("; ")}`);
      const where = () => `after\n  ${log.join("\n  ")}`;

      const { plan } = await planOf(repo, { cwd: repo, env: env(countLog) });
      const before = calls(countLog).length;
      const report = await run(repo, countLog);
      const made = calls(countLog).slice(before);

      // plan = run: what the plan said would run is what ran (an early cutoff may end a planned run reused).
      for (const p of plan.pairs) {
        const r = report.pairs.find((x) => x.id === p.id);
        const cutoff = r?.status === "reused" && (r.note ?? "").startsWith("early cutoff");
        expect(r?.status === "executed" || cutoff, `${p.id}: plan ${p.action}, run ${r?.status} (${r?.note ?? ""}) ${where()}`).toBe(p.action === "run");
      }
      // No request answered by an earlier run is asked again.
      for (const call of made) expect(answered.has(call), `a call for a request answered before: ${call} ${where()}`).toBe(false);
      for (const call of made) answered.add(call);

      // A second run executes nothing.
      const again = calls(countLog).length;
      const second = await run(repo, countLog);
      expect(
        second.pairs.filter((p) => p.status === "executed").map((p) => p.id),
        `a second run ${where()}`,
      ).toEqual([]);
      expect(calls(countLog).length, `calls in a second run ${where()}`).toBe(again);

      // No miss: every output a person's edit does not reach is what a from-scratch build makes.
      const copy = path.join(tmp, `scratch-${n}`);
      copySources(repo, copy);
      const key = digest(JSON.stringify([sources.files, sources.sections, sources.tasks, sources.guards, sources.items]));
      if (!fromScratch.has(key)) {
        await run(copy, path.join(tmp, "scratch.log"), { force: true });
        fromScratch.set(key, outputs(copy, scenario));
      }
      rmSync(copy, { recursive: true, force: true });
      const expected = fromScratch.get(key)!;
      const tainted = sources.handTainted();
      const actual = outputs(repo, scenario);
      for (const [file, want] of expected) {
        const id = path.basename(file, ".txt");
        if (tainted.has(id)) continue;
        // A deleted item's output is left where it is (docs/foreach.md).
        if (file.startsWith("out/items/") && want === null) continue;
        expect(actual.get(file), `${file} differs from a from-scratch build ${where()}`).toBe(want);
      }
      // A person's edit stays.
      for (const i of sources.hand.keys()) expect(readFileSync(sources.output(i), "utf8"), `out/p${i}.txt ${where()}`).toMatch(/written by hand \d+\n$/);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe("an incremental run, against a from-scratch build of the same sources", () => {
  it(`misses nothing, runs what its plan said, and asks nothing twice, over ${RUNS} random workflows`, { timeout: scaled(30 * 60_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, (scenario) => check(scenario)),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
