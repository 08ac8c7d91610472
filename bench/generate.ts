/**
 * Generates a synthetic but realistically shaped workflow of N pairs in a fake repository:
 * workflow.yml, prompts.yml, a handful of small input files and a `.git` directory (so the
 * directory is the repository root). Deterministic: everything is drawn from a seeded PRNG.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";

/** mulberry32: tiny, fast, and good enough to make varied but reproducible workflows. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Generated {
  workflowPath: string;
  pairs: number;
  roots: number;
  /** Stages the pairs were drawn in: an upper bound on the plan's waves. */
  stages: number;
  withOutput: number;
  withInputs: number;
  workflowBytes: number;
  promptsBytes: number;
}

const WORDS = (
  "parser schema module endpoint migration fixture handler service cache index report summary " +
  "test suite contract invariant boundary payload request response record field column table " +
  "query builder adapter client server queue worker retry timeout config option flag default " +
  "error message log metric trace span token budget review check lint format style naming"
).split(" ");
const VERBS = ["design", "spec", "test", "impl", "review", "doc", "refactor", "audit", "bench", "migrate"];
const MODELS = ["gpt-4o-mini", "claude-3-5-haiku", "claude-sonnet-4", "gpt-4.1"];

/** Small files the `inputs` globs match: a few sources, docs and a config file. */
const INPUT_FILES: Record<string, string> = {
  "README.md": "# Service\n\nA small service used as context for the benchmark workflow.\n",
  "src/app/__init__.py": "",
  "src/app/models.py": "class User:\n    def __init__(self, name):\n        self.name = name\n",
  "src/app/views.py": "from .models import User\n\ndef show(user: User) -> str:\n    return user.name\n",
  "src/app/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n",
  "docs/api.md": "# API\n\nGET /users returns a list of users.\n",
  "docs/design.md": "# Design\n\nRequests go through a cache in front of the store.\n",
  "docs/draft.md": "# Draft\n\nNot ready.\n",
  "config/settings.json": '{ "cache_ttl": 60, "retries": 3 }\n',
};
const INPUT_GLOBS: string[][] = [
  ["src/**/*.py"],
  ["docs/*.md", "!docs/draft.md"],
  ["README.md"],
  ["config/*.json", "README.md"],
  ["src/app/models.py", "src/app/views.py"],
];

export interface GenerateOptions {
  /**
   * For timing runs: every pair's generator is one trivial shell command (it prints the pair's id)
   * and its guard a `contains` check of that id, so a run spends its time in pairflow, not in a
   * model or a guard. The graph, prompts, outputs and inputs are drawn exactly as without it.
   */
  trivialRun?: boolean;
}

/** The command every pair runs with trivialRun, and what the run bench's spawn floor runs too. */
export const TRIVIAL_COMMAND = 'printf "%s\\n" "$PAIRFLOW_PAIR"';

export function generateWorkflow(root: string, n: number, seed = n, options: GenerateOptions = {}): Generated {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const words = (count: number) => Array.from({ length: count }, () => pick(WORDS)).join(" ");
  const sentence = (count: number) => {
    const s = words(count);
    return s[0]!.toUpperCase() + s.slice(1) + ".";
  };

  mkdirSync(path.join(root, ".git"), { recursive: true });
  for (const [file, text] of Object.entries(INPUT_FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }

  // Pairs are drawn stage by stage: a few roots, then stages whose pairs require 1-4 pairs of
  // earlier stages, mostly the latest ones. Without stages, "bias to recent" alone makes chains as
  // long as a large fraction of N; with them the plan has about `stages` waves, growing with log N
  // (10, 20, 30 for 100, 1,000, 10,000 pairs) as in real workflows that widen rather than deepen.
  const roots = Math.max(3, Math.round(Math.sqrt(n) / 3));
  const stages = Math.round(10 * Math.log10(n)) - 10;
  const stageStart = (s: number) => (s === 0 ? 0 : roots + Math.floor(((s - 1) * (n - roots)) / (stages - 1)));

  const ids: string[] = [];
  const actionPairs: Record<string, Record<string, unknown>> = {};
  const prompts: Record<string, Record<string, string>> = {};
  let stage = 0;
  let withOutput = 0;
  let withInputs = 0;
  for (let i = 0; i < n; i++) {
    while (stage + 1 < stages && i >= stageStart(stage + 1)) stage++;
    const id = `${pick(VERBS)}_${String(i).padStart(5, "0")}`;
    ids.push(id);
    const pair: Record<string, unknown> = { description: `${sentence(6)}` };

    if (stage > 0) {
      const start = stageStart(stage);
      const want = Math.min(1 + Math.floor(rand() * 4), start);
      const deps = new Set<number>();
      // rand()^3 puts most picks just before this stage, a few far back.
      while (deps.size < want) deps.add(start - 1 - Math.floor(rand() ** 3 * start));
      pair.requires = [...deps].map((d) => ids[d]!);
    }

    Object.assign(pair, randomGuard(rand, pick, words));
    if (rand() < 0.1) pair.model = pick(MODELS);
    if (rand() < 0.05) pair.generator_config = { run: "node model.mjs --strict", temperature: 0.2 };
    if (rand() < 0.1) pair.rmax = 1 + Math.floor(rand() * 4);
    if (rand() < 0.05) {
      pair.output = `out/${id}.md`;
      withOutput++;
    }
    if (rand() < 0.05) {
      pair.inputs = pick(INPUT_GLOBS);
      withInputs++;
    }
    if (options.trivialRun) {
      delete pair.generator_config;
      delete pair.guards;
      Object.assign(pair, { guard: "contains", guard_config: { text: id } });
    }
    actionPairs[id] = pair;

    prompts[id] = {
      role: `You are a ${pick(["senior", "careful", "pragmatic", "meticulous"])} engineer working on the ${words(2)}. ${sentence(8)}`,
      constraints: `${sentence(12)} ${sentence(10)} Keep the answer under ${100 + Math.floor(rand() * 900)} lines.`,
      task: `${sentence(14)} ${sentence(16)} ${sentence(10)}`,
      feedback_wrapper: `Your previous answer was rejected:\n{feedback}\n${sentence(9)}\nAnswer with the whole artifact again.\n`,
    };
  }

  const workflow = {
    name: `bench-${n}`,
    description: `Synthetic workflow of ${n} pairs for the benchmark.`,
    specification: `${sentence(20)}\n${sentence(18)}\n`,
    constraints: "Python 3.12, standard library only.",
    model: "gpt-4o-mini",
    rmax: 2,
    generator: "command",
    // timeout is a transport key (not hashed); run is hashed into every configRef.
    generator_config: { run: options.trivialRun ? TRIVIAL_COMMAND : "node model.mjs", timeout: 120 },
    action_pairs: actionPairs,
  };
  // No anchors/aliases for repeated objects: the yaml library would alias them, and toJS refuses
  // documents with more than 100 alias expansions (maxAliasCount).
  const workflowText = stringify(workflow, { lineWidth: 100, aliasDuplicateObjects: false });
  const promptsText = stringify(prompts, { lineWidth: 100, aliasDuplicateObjects: false });
  const workflowPath = path.join(root, "workflow.yml");
  writeFileSync(workflowPath, workflowText);
  writeFileSync(path.join(root, "prompts.yml"), promptsText);
  return {
    workflowPath,
    pairs: n,
    roots,
    stages,
    withOutput,
    withInputs,
    workflowBytes: Buffer.byteLength(workflowText),
    promptsBytes: Buffer.byteLength(promptsText),
  };
}

/** One of the guards real workflows use, with a small guard_config. */
function randomGuard(rand: () => number, pick: <T>(items: readonly T[]) => T, words: (n: number) => string): Record<string, unknown> {
  const r = rand();
  if (r < 0.3) return { guard: "regex", guard_config: { pattern: `^(def|class) ${pick(WORDS)}`, flags: "m" } };
  if (r < 0.6) {
    const text = rand() < 0.5 ? words(2) : [words(1), words(2), words(1)];
    return { guard: "contains", guard_config: { text, all: true } };
  }
  if (r < 0.8) {
    const [a, b] = [pick(WORDS), pick(WORDS)];
    return {
      guard: "json_schema",
      guard_config: {
        schema: {
          type: "object",
          required: [a],
          properties: { [a]: { type: "string", minLength: 1 }, [b]: { type: "array", items: { type: "integer" } } },
        },
      },
    };
  }
  if (r < 0.95) {
    return {
      guard: "composite",
      guard_config: { policy: pick(["all_pass", "majority_pass"]) },
      guards: ["json", { guard: "regex", guard_config: { pattern: `"${pick(WORDS)}"` } }, { guard: "contains", guard_config: { absent: ["TODO", "FIXME"] } }],
    };
  }
  return { guard: "json" };
}
