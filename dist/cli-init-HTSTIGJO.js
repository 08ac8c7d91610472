#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  package_default
} from "./cli-chunk-DM52N67H.js";
import {
  PROMPTS_NAMES,
  UsageError,
  WORKFLOW_NAMES,
  createFileExclusive,
  displayPath,
  examples,
  findRepoRoot,
  isInside,
  writeFileAtomic
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/cli/commands/init.ts
import { existsSync } from "node:fs";
import path2 from "node:path";
import { fileURLToPath } from "node:url";

// src/app/init.ts
import { lstatSync, readFileSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
var STATE_ENTRY = ".pairflow/";
var SCHEMAS_URL = `https://cdn.jsdelivr.net/npm/${package_default.name}@${package_default.version}/schemas`;
function initWorkflow(request) {
  const dir = path.resolve(request.cwd, request.dir ?? ".");
  if (existsOrLink(dir) && !lstatSync(dir).isDirectory()) throw new UsageError(`${request.dir} is not a directory; give the directory to hold workflow.yml`);
  const root = findRepoRoot(dir);
  const schemas = schemaLocation(request.schemasDir, root, dir);
  const workflowDir = posix(path.relative(root, dir)) || ".";
  const todo = [];
  const exists = "it exists; pairflow init never overwrites a file";
  const starter = [
    [path.join(dir, "workflow.yml"), starterWorkflow(schemas)],
    [path.join(dir, "prompts.yml"), starterPrompts(schemas)]
  ];
  const present = [...WORKFLOW_NAMES, ...PROMPTS_NAMES].filter((name) => existsOrLink(path.join(dir, name)));
  if (present.length === 0) todo.push(...starter);
  else {
    const holds = `${displayPath(dir, request.cwd)} already holds ${present.join(", ")}`;
    for (const [file] of starter) {
      if (existsOrLink(file)) todo.push({ file, done: "kept", detail: exists });
      else todo.push({ file, done: "skipped", detail: `${holds}, and the starter's workflow.yml and prompts.yml go only together` });
    }
  }
  for (const [name, text] of [
    ["pairflow.yml", runWorkflow(workflowDir)],
    ["pairflow-plan.yml", planWorkflow(workflowDir)]
  ]) {
    const github = path.join(root, ".github", "workflows", name);
    if (existsOrLink(github)) todo.push({ file: github, done: "kept", detail: `${exists} (check that its pairflow step has path: ${workflowDir})` });
    else todo.push([github, text]);
  }
  const realRoot = realOrSelf(root);
  for (const [i, item] of todo.entries()) {
    if (!Array.isArray(item)) continue;
    const via = linkOut(item[0], realRoot);
    if (via !== void 0)
      todo[i] = {
        file: item[0],
        done: "skipped",
        detail: `${displayPath(via, request.cwd)} is a link that leads out of the repository; pairflow init writes only inside it`
      };
  }
  const steps = [];
  const written = [];
  try {
    for (const item of todo) {
      if (!Array.isArray(item)) steps.push(item);
      else if (createFileExclusive(item[0], item[1])) {
        written.push(item[0]);
        steps.push({ file: item[0], done: "wrote" });
      } else steps.push({ file: item[0], done: "kept", detail: `it appeared while pairflow init wrote; ${exists}` });
    }
    steps.push(ignoreState(path.join(root, ".gitignore")));
  } catch (err) {
    for (const file of written) rmSync(file, { force: true });
    throw new UsageError(`pairflow init could not write: ${err.message}; it wrote nothing (run it again once that is fixed)`);
  }
  return { steps, root, schemas, starter: written.includes(starter[0][0]) };
}
function schemaLocation(schemasDir, root, dir) {
  const shipped = realOrSelf(path.resolve(schemasDir));
  const realRoot = realOrSelf(root);
  if (!isInside(realRoot, shipped)) return SCHEMAS_URL;
  return posix(path.relative(dir, path.join(root, path.relative(realRoot, shipped)))) || ".";
}
function ignoreState(file) {
  const why = "pairflow keeps run records and its local store there";
  if (!existsOrLink(file)) {
    if (createFileExclusive(file, `${STATE_ENTRY}
`)) return { file, done: "wrote", detail: `it ignores ${STATE_ENTRY}; ${why}` };
    return { file, done: "kept", detail: `it appeared while pairflow init wrote; add ${STATE_ENTRY} to it (${why})` };
  }
  if (!lstatSync(file).isFile()) return { file, done: "kept", detail: `it is not a regular file; add ${STATE_ENTRY} to it yourself (${why})` };
  const bytes = readFileSync(file);
  const addition = stateIgnoreAddition(bytes.toString("utf8"));
  if (addition === void 0) return { file, done: "kept", detail: `it already ignores ${STATE_ENTRY}` };
  writeFileAtomic(file, Buffer.concat([bytes, Buffer.from(addition, "utf8")]));
  return { file, done: "updated", detail: `added ${STATE_ENTRY}; ${why}` };
}
var STATE_PATTERNS = /* @__PURE__ */ new Set([".pairflow", ".pairflow/", "/.pairflow", "/.pairflow/"]);
function stateIgnoreAddition(text) {
  let ignored = false;
  for (const raw of text.replace(/^\uFEFF/, "").split("\n")) {
    const line = raw.replace(/\r$/, "").replace(/(?<!\\) +$/, "");
    if (STATE_PATTERNS.has(line)) ignored = true;
    else if (line.startsWith("!") && STATE_PATTERNS.has(line.slice(1))) ignored = false;
  }
  if (ignored) return void 0;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (text === "") return STATE_ENTRY + eol;
  return text.endsWith("\n") ? STATE_ENTRY + eol : eol + STATE_ENTRY;
}
function existsOrLink(file) {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
function linkOut(file, realRoot) {
  let dir = path.dirname(file);
  while (!existsOrLink(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return isInside(realRoot, realOrSelf(dir)) ? void 0 : dir;
}
function realOrSelf(file) {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}
function posix(p) {
  return p.split(path.sep).join("/");
}
function starterWorkflow(schemas) {
  return `# yaml-language-server: $schema=${schemas}/workflow.schema.json
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
function starterPrompts(schemas) {
  return `# yaml-language-server: $schema=${schemas}/prompts.schema.json
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
function pathsFilter(workflowDir) {
  return workflowDir === "." ? "" : `
    paths:
      - "${workflowDir}/**"`;
}
function planWorkflow(workflowDir) {
  return `# Written by pairflow init. On every pull request: one comment, updated on every push, showing which
# pairs merging would re-run, why, the prompt diffs and the estimated cost; the same in the job summary.
# Nothing is executed, so no provider key is needed and forks' pull requests are safe (their token
# cannot comment, so the plan goes to the job summary only).
name: pairflow plan

on:
  pull_request:${pathsFilter(workflowDir)}

permissions:
  contents: read        # check out the code and fetch the base; the Actions cache needs no token permission
  pull-requests: write  # post and update the plan comment

# One plan at a time per pull request: a new push cancels the plan of the one before. (Should two
# still overlap, the comment keeps the plan of the newest push.)
concurrency:
  group: pairflow-plan-\${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
  plan:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false   # keep the job's token out of .git/config (docs/security.md)
      - uses: <owner>/pairflow@v1   # replace <owner>; pin a release tag or a commit SHA
        with:
          mode: plan
          path: ${workflowDir}      # the directory holding workflow.yml
`;
}
function runWorkflow(workflowDir) {
  const paths = pathsFilter(workflowDir);
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
        with:
          # The job's token stays out of .git/config, where any command of the job could read it;
          # pairflow's commands need no token (a later step that pushes passes its own).
          persist-credentials: false
      # Confine the commands pairflow starts so they cannot read this job's tokens: bubblewrap,
      # allowed the user namespaces Ubuntu 24.04 forbids by default (pairflow's docs/security.md).
      - name: Sandbox for pairflow's commands
        run: |
          sudo apt-get update -q && sudo apt-get install -y -q --no-install-recommends bubblewrap
          if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
            sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
          fi
      - uses: <owner>/pairflow@v1   # replace <owner>; pin a release tag or a commit SHA
        with:
          path: ${workflowDir}      # the directory holding workflow.yml
          sandbox: required         # fail rather than run the commands unconfined
        # The variables your workflow's generators read, once they call a model:
        # env:
        #   OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
`;
}

// src/cli/commands/init.ts
function shippedSchemasDir() {
  let dir = path2.dirname(fileURLToPath(import.meta.url));
  for (; ; ) {
    if (existsSync(path2.join(dir, "schemas", "workflow.schema.json"))) return path2.join(dir, "schemas");
    const up = path2.dirname(dir);
    if (up === dir) return path2.resolve(path2.dirname(fileURLToPath(import.meta.url)), "..", "schemas");
    dir = up;
  }
}
function registerInit(program, { io }) {
  program.command("init").description(
    "Write a starter workflow.yml and prompts.yml that run offline, GitHub Actions workflows that run them on every push (.github/workflows/pairflow.yml) and post their plan on every pull request (.github/workflows/pairflow-plan.yml), and .pairflow/ (pairflow's local state) into .gitignore. Never overwrites anything: writes each file that is missing and says which it kept; run it again to finish what it could not do."
  ).argument("[dir]", "the directory to hold workflow.yml (default: .); created when missing").addHelpText("after", examples(["pairflow init", "pairflow init pairflow && pairflow run pairflow"])).action((dir) => {
    const done = initWorkflow({ cwd: io.cwd, dir, schemasDir: shippedSchemasDir() });
    for (const step of done.steps) io.stdout.write(`${step.done} ${displayPath(step.file, io.cwd)}${step.detail ? `: ${step.detail}` : ""}
`);
    if (!done.starter) return;
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
