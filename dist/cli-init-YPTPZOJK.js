#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  UsageError,
  displayPath,
  examples,
  findRepoRoot
} from "./cli-chunk-ZTYHHU54.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/cli/commands/init.ts
import { existsSync as existsSync2 } from "node:fs";
import path2 from "node:path";
import { fileURLToPath } from "node:url";

// src/app/init.ts
import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
var InitTargetExistsError = class extends UsageError {
  name = "InitTargetExistsError";
};
function initWorkflow(request) {
  const dir = path.resolve(request.cwd, request.dir ?? ".");
  if (existsSync(dir) && !lstatSync(dir).isDirectory()) throw new UsageError(`${request.dir} is not a directory; give the directory to hold workflow.yml`);
  const root = findRepoRoot(dir);
  const shipped = path.resolve(request.schemasDir);
  const schemaInstalled = isInside(shipped, root);
  const schemas = schemaInstalled ? shipped : path.join(root, "node_modules", "pairflow", "schemas");
  const schemaDir = posix(path.relative(dir, schemas)) || ".";
  const workflowDir = posix(path.relative(root, dir)) || ".";
  const files = [
    [path.join(dir, "workflow.yml"), starterWorkflow(schemaDir)],
    [path.join(dir, "prompts.yml"), starterPrompts(schemaDir)],
    [path.join(root, ".github", "workflows", "pairflow.yml"), githubWorkflow(workflowDir)]
  ];
  const taken = files.map(([file]) => file).filter((file) => existsOrLink(file));
  if (taken.length > 0) {
    throw new InitTargetExistsError(
      `${taken.map((f) => posix(path.relative(request.cwd, f)) || f).join(", ")} already ${taken.length === 1 ? "exists" : "exist"}; pairflow init never overwrites anything and wrote nothing (move it away, or init another directory)`
    );
  }
  const written = [];
  try {
    for (const [file, text] of files) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text, { flag: "wx" });
      written.push(file);
    }
  } catch (err) {
    for (const file of written) rmSync(file, { force: true });
    const code = err.code;
    if (code === "EEXIST")
      throw new InitTargetExistsError(`${err.path ?? "a file"} appeared while pairflow init wrote; it wrote nothing`);
    throw new UsageError(`could not write the starter files: ${err.message}; nothing was written`);
  }
  return { files: written, root, schemaInstalled, schemaDir };
}
function existsOrLink(file) {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
function isInside(file, dir) {
  const rel = path.relative(dir, file);
  return rel === "" || !rel.startsWith("..") && !path.isAbsolute(rel);
}
function posix(p) {
  return p.split(path.sep).join("/");
}
function starterWorkflow(schemaDir) {
  return `# yaml-language-server: $schema=${schemaDir}/workflow.schema.json
#
# A starter workflow: two action pairs, each a generator that produces an artifact and a guard that
# accepts or rejects it. Its generator is a shell command that answers with the prompt it receives
# (cat), so it runs offline with nothing to install: \`pairflow run\` here, then \`pairflow prompt review\`
# shows exactly what a generator gets. To use a model, set \`generator: openai\` (or \`anthropic\`)
# and a \`model\`, or make \`run\` a command line that calls one (it reads the prompt on stdin).
name: starter
specification: |
  Describe here what the pairs of this workflow produce. This text is part of every prompt.

generator: command
generator_config:
  run: cat

action_pairs:
  draft:
    description: A first draft
    output: out/draft.md
    guard: contains
    guard_config:
      text: ["# Task"]

  review:
    description: A review of the draft
    requires: [draft]          # gets draft's accepted artifact in its prompt
    output: out/review.md
    guard: contains
    guard_config:
      text: ["## draft"]
`;
}
function starterPrompts(schemaDir) {
  return `# yaml-language-server: $schema=${schemaDir}/prompts.schema.json
#
# One entry per pair: editing an entry re-runs that pair and what depends on it.
draft:
  role: You are a careful technical writer.
  task: Write a one-page draft of what the specification describes.

review:
  role: You are a demanding reviewer.
  task: Review the draft above and list what to improve.
  feedback_wrapper: "Your review was rejected:\\n{feedback}"
`;
}
function githubWorkflow(workflowDir) {
  const paths = workflowDir === "." ? "" : `
    paths:
      - "${workflowDir}/**"`;
  return `# Written by pairflow init. On every push to main: run the pairs whose inputs changed, reuse every
# other accepted artifact from the Actions cache, and save what this run accepts for the next one.
name: pairflow

on:
  push:
    branches: [main]${paths}
  workflow_dispatch:     # run by hand from the Actions tab

permissions:
  contents: read

# One run at a time: a second push waits, then reuses what the first accepted.
concurrency:
  group: pairflow-\${{ github.ref }}
  cancel-in-progress: false

jobs:
  run:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: <owner>/pairflow@v1   # replace <owner>; pin a release tag or a commit SHA
        with:
          workflow: ${workflowDir}
        # The variables your workflow's generators read, once they call a model:
        # env:
        #   OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
`;
}

// src/cli/commands/init.ts
function shippedSchemasDir() {
  let dir = path2.dirname(fileURLToPath(import.meta.url));
  for (; ; ) {
    if (existsSync2(path2.join(dir, "schemas", "workflow.schema.json"))) return path2.join(dir, "schemas");
    const up = path2.dirname(dir);
    if (up === dir) return path2.resolve(path2.dirname(fileURLToPath(import.meta.url)), "..", "schemas");
    dir = up;
  }
}
function registerInit(program, { io }) {
  program.command("init").description(
    "Write a starter workflow.yml and prompts.yml that run offline, and a GitHub Actions workflow (.github/workflows/pairflow.yml) that runs them. Never overwrites anything: if any of these files exists, writes none (exit 2)."
  ).argument("[dir]", "the directory to hold workflow.yml (default: .); created when missing").addHelpText("after", examples(["pairflow init", "pairflow init pairflow && pairflow run pairflow"])).action((dir) => {
    const done = initWorkflow({ cwd: io.cwd, dir, schemasDir: shippedSchemasDir() });
    for (const file of done.files) io.stdout.write(`wrote ${displayPath(file, io.cwd)}
`);
    if (!done.schemaInstalled) {
      io.stdout.write(
        `note: the $schema lines point at ${done.schemaDir}/: npm install --save-dev pairflow puts the schemas there, for completion in editors
`
      );
    }
    const target = dir === void 0 ? "" : ` ${dir}`;
    io.stdout.write(`
Next: pairflow run${target}   (then pairflow prompt review${target} shows what a generator receives)
`);
  });
}
export {
  registerInit,
  shippedSchemasDir
};
