/**
 * Random workflows and random sequences of changes to them, as plain records fast-check can shrink,
 * and the workspace that turns them into files.
 *
 * Pair and file references in a record are raw numbers, resolved modulo what exists (a pair's
 * dependencies modulo its position, so only earlier pairs), so every shrink of a record is valid.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { stringify } from "yaml";
import type { Selection } from "./driver.js";
import { marker, STAND_IN } from "./standIn.js";

export const INPUT_FILES = 4;
const VARIANTS = 3;

export interface PairSpec {
  /** Raw dependency numbers: pair i depends on p(d mod i) for each. */
  deps: number[];
  output: boolean;
  /** Indices of data/d<k>.txt files. */
  inputs: number[];
  guard: "contains" | "regex" | "none";
  flaky: boolean;
}

export type Change =
  | { kind: "prompt"; pair: number; revision: number }
  | { kind: "model"; pair: number; variant: number }
  | { kind: "guardConfig"; pair: number; variant: number }
  | { kind: "input"; file: number; variant: number }
  | { kind: "handEdit"; pair: number }
  | { kind: "deleteOutput"; pair: number }
  | { kind: "deleteStore" }
  | { kind: "deleteLock" }
  | { kind: "freshRunner" };

export type SelectionSpec = { kind: "none" } | { kind: "only"; pairs: number[] } | { kind: "from"; pair: number } | { kind: "force" };

/** Changes made by hand, then one plan and one run with the selection. */
export interface StepSpec {
  changes: Change[];
  selection: SelectionSpec;
}

export interface Scenario {
  pairs: PairSpec[];
  /** Every execution gives new bytes (no early cutoff possible). */
  nondeterministic: boolean;
  steps: StepSpec[];
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const pairArb: fc.Arbitrary<PairSpec> = fc.record({
  deps: fc.array(fc.nat(), { maxLength: 4 }),
  output: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
  inputs: fc.oneof(
    { arbitrary: fc.constant<number[]>([]), weight: 3 },
    { arbitrary: fc.uniqueArray(fc.nat(INPUT_FILES - 1), { minLength: 1, maxLength: 2 }), weight: 1 },
  ),
  guard: fc.oneof(
    { arbitrary: fc.constant("contains" as const), weight: 6 },
    { arbitrary: fc.constant("regex" as const), weight: 2 },
    { arbitrary: fc.constant("none" as const), weight: 2 },
  ),
  flaky: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
});

const variant = fc.nat(VARIANTS - 1);

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("prompt" as const), pair: fc.nat(), revision: variant }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("model" as const), pair: fc.nat(), variant }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("guardConfig" as const), pair: fc.nat(), variant }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("input" as const), file: fc.nat(INPUT_FILES - 1), variant }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("handEdit" as const), pair: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("deleteOutput" as const), pair: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("deleteStore" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("deleteLock" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("freshRunner" as const) }), weight: 1 },
);

/** Shrinks towards no selection. */
const selectionArb: fc.Arbitrary<SelectionSpec> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.constant({ kind: "none" as const }), weight: 11 },
  { arbitrary: fc.record({ kind: fc.constant("only" as const), pairs: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("from" as const), pair: fc.nat() }), weight: 3 },
  { arbitrary: fc.constant({ kind: "force" as const }), weight: 2 },
);

const stepArb: fc.Arbitrary<StepSpec> = fc.record({ changes: fc.array(changeArb, { maxLength: 3 }), selection: selectionArb });

/**
 * 10 to 60 pairs, mostly few: a pair costs a few milliseconds per plan and per run, and most
 * counterexamples need only a handful. Each array shrinks towards 10 pairs.
 */
const pairsArb: fc.Arbitrary<PairSpec[]> = fc.oneof(
  { arbitrary: fc.array(pairArb, { minLength: 10, maxLength: 60, size: "xsmall" }), weight: 4 },
  { arbitrary: fc.array(pairArb, { minLength: 10, maxLength: 60, size: "small" }), weight: 2 },
  { arbitrary: fc.array(pairArb, { minLength: 10, maxLength: 60, size: "max" }), weight: 1 },
);

export const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    pairs: pairsArb,
    nondeterministic: fc.boolean(),
    steps: fc.array(stepArb, { minLength: 3, maxLength: 8 }),
  })
  .map((s) => Object.assign(s, { [fc.toStringMethod]: () => describeScenario(s) }));

// ---------------------------------------------------------------------------------------------
// The workflow a scenario describes

export interface PairDef {
  id: string;
  requires: string[];
  output?: string;
  inputs: string[];
  guard: PairSpec["guard"];
  flaky: boolean;
}

export function pairDefs(specs: PairSpec[]): PairDef[] {
  return specs.map((spec, i) => ({
    id: `p${i}`,
    requires: i === 0 ? [] : [...new Set(spec.deps.map((d) => d % i))].sort((a, b) => a - b).map((d) => `p${d}`),
    output: spec.output ? `out/p${i}.txt` : undefined,
    inputs: [...spec.inputs].sort().map(inputFile),
    guard: spec.guard,
    flaky: spec.flaky,
  }));
}

export function inputFile(k: number): string {
  return `data/d${k}.txt`;
}

/** A step with its references resolved against the workflow, as the property applies it. */
export interface ResolvedStep {
  changes: { change: Change; pair?: PairDef; text: string }[];
  selection: Selection;
  text: string;
}

export function resolveStep(step: StepSpec, pairs: PairDef[]): ResolvedStep {
  const changes = step.changes.map((change) => resolveChange(change, pairs));
  let selection: Selection = {};
  let run = "run";
  const sel = step.selection;
  if (sel.kind === "force") {
    selection = { force: true };
    run = "run --force";
  } else if (sel.kind === "from") {
    const id = pairs[sel.pair % pairs.length]!.id;
    selection = { from: id };
    run = `run --from ${id}`;
  } else if (sel.kind === "only") {
    const ids = [...new Set(sel.pairs.map((p) => pairs[p % pairs.length]!.id))];
    selection = { only: ids };
    run = `run --only ${ids.join(" ")}`;
  }
  return { changes, selection, text: [...changes.map((c) => c.text), run].join("; ") };
}

function resolveChange(change: Change, pairs: PairDef[]): { change: Change; pair?: PairDef; text: string } {
  const pick = (among: PairDef[], n: number) => (among.length === 0 ? undefined : among[n % among.length]);
  switch (change.kind) {
    case "prompt": {
      const pair = pick(pairs, change.pair)!;
      return { change, pair, text: `set ${pair.id}'s task to revision ${change.revision}` };
    }
    case "model": {
      const pair = pick(pairs, change.pair)!;
      return { change, pair, text: `set ${pair.id}'s model to ${modelOf(change.variant) ?? "the workflow's (m1)"}` };
    }
    case "guardConfig": {
      const pair = pick(
        pairs.filter((p) => p.guard !== "none"),
        change.pair,
      );
      return pair
        ? { change, pair, text: `set ${pair.id}'s guard_config to ${JSON.stringify(guardConfig(pair, change.variant))}` }
        : { change, text: "(no pair has a guard to reconfigure)" };
    }
    case "input":
      return { change, text: `write ${inputFile(change.file)} version ${change.variant}` };
    case "handEdit": {
      const pair = pick(
        pairs.filter((p) => p.output),
        change.pair,
      );
      return pair ? { change, pair, text: `edit ${pair.output} by hand` } : { change, text: "(no output file to edit)" };
    }
    case "deleteOutput": {
      const pair = pick(
        pairs.filter((p) => p.output),
        change.pair,
      );
      return pair ? { change, pair, text: `delete ${pair.output}` } : { change, text: "(no output file to delete)" };
    }
    case "deleteStore":
      return { change, text: "delete .pairflow/store" };
    case "deleteLock":
      return { change, text: "delete workflow.lock.json" };
    case "freshRunner":
      return { change, text: "fresh runner (delete .pairflow and every output file)" };
  }
}

function modelOf(variant: number): string | undefined {
  return variant === 0 ? undefined : `m${variant + 1}`;
}

/** Every variant still asks for the marker, so a flaky pair's first attempt is always rejected. */
function guardConfig(pair: PairDef, variant: number): Record<string, unknown> | undefined {
  const mark = marker(pair.id);
  if (pair.guard === "contains") return { text: [[mark], [mark, `EXTRA-${pair.id}`], [mark, `ALSO-${pair.id}`]][variant] };
  if (pair.guard === "regex") {
    return [{ pattern: `^${mark}$`, flags: "m" }, { pattern: `${mark}\\nEXTRA-${pair.id}` }, { pattern: `^${mark}$[\\s\\S]*^ALSO-${pair.id}$`, flags: "m" }][
      variant
    ];
  }
  return undefined;
}

export function describeScenario(s: Scenario): string {
  const pairs = pairDefs(s.pairs);
  const lines = [`${pairs.length} pairs, ${s.nondeterministic ? "nondeterministic" : "deterministic"} generator`, ...describeWorkflow(pairs), "steps:"];
  s.steps.forEach((step, i) => lines.push(`  ${i + 1}: ${resolveStep(step, pairs).text}`));
  return lines.join("\n");
}

export function describeWorkflow(pairs: PairDef[]): string[] {
  return pairs.map((p) =>
    [
      `  ${p.id}`,
      p.requires.length > 0 ? `<- ${p.requires.join(",")}` : "",
      p.output ? "output" : "no output",
      p.guard === "none" ? "no guard" : p.guard,
      p.inputs.length > 0 ? `inputs ${p.inputs.join(",")}` : "",
      p.flaky ? "flaky" : "",
    ]
      .filter(Boolean)
      .join("  "),
  );
}

// ---------------------------------------------------------------------------------------------
// The workspace

/** The files of a scenario's repository, and the changes a person makes to them. */
export class Workspace {
  readonly pairs: PairDef[];
  private readonly revision = new Map<string, number>();
  private readonly model = new Map<string, number>();
  private readonly guard = new Map<string, number>();
  private readonly inputVersion = new Map<number, number>();
  private handEdits = 0;
  /** Output files edited by hand and not generated since, by pair id. */
  readonly handEdited = new Set<string>();

  constructor(
    readonly dir: string,
    specs: PairSpec[],
  ) {
    this.pairs = pairDefs(specs);
    mkdirSync(path.join(dir, ".git"), { recursive: true });
    for (let k = 0; k < INPUT_FILES; k++) this.writeInput(k, 0);
    this.writeWorkflow();
    this.writePrompts();
  }

  get lockFile(): string {
    return path.join(this.dir, "workflow.lock.json");
  }

  outputFile(pair: PairDef): string | undefined {
    return pair.output === undefined ? undefined : path.join(this.dir, pair.output);
  }

  lockBytes(): string | null {
    return existsSync(this.lockFile) ? readFileSync(this.lockFile, "utf8") : null;
  }

  apply(step: ResolvedStep): void {
    for (const { change, pair } of step.changes) {
      switch (change.kind) {
        case "prompt":
          this.revision.set(pair!.id, change.revision);
          this.writePrompts();
          break;
        case "model":
          this.model.set(pair!.id, change.variant);
          this.writeWorkflow();
          break;
        case "guardConfig":
          if (!pair) break;
          this.guard.set(pair.id, change.variant);
          this.writeWorkflow();
          break;
        case "input":
          this.writeInput(change.file, change.variant);
          break;
        case "handEdit":
          if (!pair) break;
          mkdirSync(path.dirname(this.outputFile(pair)!), { recursive: true });
          writeFileSync(this.outputFile(pair)!, `written by hand, edit ${++this.handEdits}\n`);
          this.handEdited.add(pair.id);
          break;
        case "deleteOutput":
          if (pair) rmSync(this.outputFile(pair)!, { force: true });
          break;
        case "deleteStore":
          rmSync(path.join(this.dir, ".pairflow", "store"), { recursive: true, force: true });
          break;
        case "deleteLock":
          rmSync(this.lockFile, { force: true });
          break;
        case "freshRunner":
          rmSync(path.join(this.dir, ".pairflow"), { recursive: true, force: true });
          rmSync(path.join(this.dir, "out"), { recursive: true, force: true });
          break;
      }
    }
  }

  private writeWorkflow(): void {
    const actionPairs: Record<string, Record<string, unknown>> = {};
    for (const p of this.pairs) {
      const entry: Record<string, unknown> = {};
      if (p.requires.length > 0) entry.requires = p.requires;
      if (p.output) entry.output = p.output;
      if (p.inputs.length > 0) entry.inputs = p.inputs;
      const model = modelOf(this.model.get(p.id) ?? 0);
      if (model) entry.model = model;
      if (p.guard !== "none") {
        entry.guard = p.guard;
        entry.guard_config = guardConfig(p, this.guard.get(p.id) ?? 0);
      }
      actionPairs[p.id] = entry;
    }
    const workflow = { name: "property", generator: STAND_IN, model: "m1", action_pairs: actionPairs };
    writeFileSync(path.join(this.dir, "workflow.yml"), stringify(workflow));
  }

  private writePrompts(): void {
    const prompts: Record<string, Record<string, string>> = {};
    for (const p of this.pairs) {
      const revision = this.revision.get(p.id) ?? 0;
      prompts[p.id] = {
        role: `You write part ${p.id}.`,
        task: `Write part ${p.id}${p.flaky ? ", which is flaky" : ""}.${revision > 0 ? ` Revision ${revision}.` : ""}`,
      };
    }
    writeFileSync(path.join(this.dir, "prompts.yml"), stringify(prompts));
  }

  private writeInput(k: number, version: number): void {
    this.inputVersion.set(k, version);
    const file = path.join(this.dir, inputFile(k));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `input d${k}, version ${version}\n`);
  }
}
