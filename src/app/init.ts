/**
 * Starting a workflow: a starter workflow.yml and prompts.yml that validate and run offline (a
 * command generator), GitHub Actions workflows that run it on every push to main and post its plan
 * on every pull request, and `.pairflow/` (the
 * state directory, src/app/state.ts) in the repository's .gitignore. Nothing that exists is ever
 * overwritten: each file that is missing is written, each that is there is kept and reported, so
 * running init again finishes what a first run could not.
 */
import { lstatSync, readFileSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { UsageError } from "../model/errors.js";
import { displayPath, PROMPTS_NAMES, WORKFLOW_NAMES } from "../config/parse.js";
import { createFileExclusive, writeFileAtomic } from "../workspace/files.js";
import { findRepoRoot } from "../workspace/load.js";
import { isInside } from "../config/paths.js";

export interface InitRequest {
  cwd: string;
  /** Where the workflow goes (default: cwd); created when missing. */
  dir?: string;
  /** The schemas/ directory of the running pairflow, for the `$schema` lines. */
  schemasDir: string;
}

/** What init did with one file. */
export interface InitStep {
  /** Absolute. */
  file: string;
  /**
   * wrote: created it; updated: added to it (.gitignore); kept: left it as it is, and why;
   * skipped: did not write it, though it is missing, and why.
   */
  done: "wrote" | "updated" | "kept" | "skipped";
  /** Why, or what was added: shown after the file's name. */
  detail?: string;
}

export interface Initialized {
  /** Every file init looked after, in the order it did so. */
  steps: InitStep[];
  /** The repository root the GitHub workflow and .gitignore went under. */
  root: string;
  /** Where the `$schema` lines point: a directory relative to the workflow's, or a URL. */
  schemas: string;
  /** The starter workflow.yml and prompts.yml were written. */
  starter: boolean;
}

/** The state directory, as .gitignore names it. */
export const STATE_ENTRY = ".pairflow/";

/**
 * The published copy of this pairflow's schemas. A public npm CDN serves every file of every
 * published version of the package at this address (package.json publishes schemas/), and a
 * published version never changes, so the address resolves from any checkout on any machine and
 * always gives the schemas this pairflow validates with.
 */
export const SCHEMAS_URL = `https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/schemas`;

export function initWorkflow(request: InitRequest): Initialized {
  const dir = path.resolve(request.cwd, request.dir ?? ".");
  if (existsOrLink(dir) && !lstatSync(dir).isDirectory()) throw new UsageError(`${request.dir} is not a directory; give the directory to hold workflow.yml`);
  const root = findRepoRoot(dir);
  const schemas = schemaLocation(request.schemasDir, root, dir);
  const workflowDir = posix(path.relative(root, dir)) || ".";

  // In the order shown: a file to write with its text, or what was decided about a file already.
  const todo: ([file: string, text: string] | InitStep)[] = [];
  const exists = "it exists; pairflow init never overwrites a file";
  // The starter's workflow and prompts go together: a starter prompts.yml beside a workflow of
  // one's own names pairs it does not have (an error), and a second workflow or prompts file in
  // a directory makes it ambiguous (an error). So both are written, or neither.
  const starter: [string, string][] = [
    [path.join(dir, "workflow.yml"), starterWorkflow(schemas)],
    [path.join(dir, "prompts.yml"), starterPrompts(schemas)],
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
    ["pairflow-plan.yml", planWorkflow(workflowDir)],
  ] as const) {
    const github = path.join(root, ".github", "workflows", name);
    if (existsOrLink(github)) todo.push({ file: github, done: "kept", detail: `${exists} (check that its pairflow step has path: ${workflowDir})` });
    else todo.push([github, text]);
  }
  // A directory on the way that is a link out of the repository (a committed `.github` link) is
  // never written through.
  const realRoot = realOrSelf(root);
  for (const [i, item] of todo.entries()) {
    if (!Array.isArray(item)) continue;
    const via = linkOut(item[0], realRoot);
    if (via !== undefined)
      todo[i] = {
        file: item[0],
        done: "skipped",
        detail: `${displayPath(via, request.cwd)} is a link that leads out of the repository; pairflow init writes only inside it`,
      };
  }

  const steps: InitStep[] = [];
  const written: string[] = [];
  try {
    for (const item of todo) {
      if (!Array.isArray(item)) steps.push(item);
      else if (createFileExclusive(item[0], item[1])) {
        written.push(item[0]);
        steps.push({ file: item[0], done: "wrote" });
      } else steps.push({ file: item[0], done: "kept", detail: `it appeared while pairflow init wrote; ${exists}` });
    }
    // Last: the only file changed in place, so nothing after it can fail and leave it changed.
    steps.push(ignoreState(path.join(root, ".gitignore")));
  } catch (err) {
    for (const file of written) rmSync(file, { force: true });
    throw new UsageError(`pairflow init could not write: ${(err as Error).message}; it wrote nothing (run it again once that is fixed)`);
  }
  return { steps, root, schemas, starter: written.includes(starter[0]![0]) };
}

/**
 * Where the `$schema` lines point, so that they resolve both in a clone of pairflow's own
 * repository and where pairflow is installed:
 * - When the running pairflow's schemas are inside the repository (pairflow installed as a
 *   dependency, in node_modules/pairflow; or pairflow's own repository), a relative path to them:
 *   it works offline, for everyone who checks the repository out and installs it, and follows the
 *   version the repository pins as it is upgraded.
 * - Otherwise (npx, a global install, a clone used on another repository) no path inside the
 *   repository leads to them, and a path outside it differs from machine to machine: the lines
 *   name the published copy of the same schemas by URL, which editors (yaml-language-server)
 *   fetch. The schemas' `$id` (urn:pairflow:schema:...) names them but resolves nowhere, so it
 *   cannot serve.
 */
function schemaLocation(schemasDir: string, root: string, dir: string): string {
  const shipped = realOrSelf(path.resolve(schemasDir));
  const realRoot = realOrSelf(root);
  if (!isInside(realRoot, shipped)) return SCHEMAS_URL;
  // Relative to the root as given: dir is under it, and may not exist yet.
  return posix(path.relative(dir, path.join(root, path.relative(realRoot, shipped)))) || ".";
}

/**
 * Adds `.pairflow/` to .gitignore at the repository root: creates the file, or appends the line
 * to it, keeping every byte it has (and whether it ends with a new line).
 */
function ignoreState(file: string): InitStep {
  const why = "pairflow keeps run records and its local store there";
  if (!existsOrLink(file)) {
    if (createFileExclusive(file, `${STATE_ENTRY}\n`)) return { file, done: "wrote", detail: `it ignores ${STATE_ENTRY}; ${why}` };
    return { file, done: "kept", detail: `it appeared while pairflow init wrote; add ${STATE_ENTRY} to it (${why})` };
  }
  // A link or anything else: writing would replace it with a file, or cannot be done.
  if (!lstatSync(file).isFile()) return { file, done: "kept", detail: `it is not a regular file; add ${STATE_ENTRY} to it yourself (${why})` };
  const bytes = readFileSync(file);
  const addition = stateIgnoreAddition(bytes.toString("utf8"));
  if (addition === undefined) return { file, done: "kept", detail: `it already ignores ${STATE_ENTRY}` };
  writeFileAtomic(file, Buffer.concat([bytes, Buffer.from(addition, "utf8")]));
  return { file, done: "updated", detail: `added ${STATE_ENTRY}; ${why}` };
}

/** The lines of .gitignore that ignore the state directory at the root, without and with their slashes. */
const STATE_PATTERNS = new Set([".pairflow", ".pairflow/", "/.pairflow", "/.pairflow/"]);

/**
 * What to append to a .gitignore holding `text` so that it ignores `.pairflow/`, or undefined
 * when it does already: when its last line naming the directory (as STATE_PATTERNS, read as git
 * reads a line: without a carriage return and trailing spaces) ignores it rather than negates it
 * (`!.pairflow/`). The line added ends with the file's own line ending, and the file keeps ending
 * with one or not.
 */
export function stateIgnoreAddition(text: string): string | undefined {
  let ignored = false;
  for (const raw of text.replace(/^\uFEFF/, "").split("\n")) {
    const line = raw.replace(/\r$/, "").replace(/(?<!\\) +$/, "");
    if (STATE_PATTERNS.has(line)) ignored = true;
    else if (line.startsWith("!") && STATE_PATTERNS.has(line.slice(1))) ignored = false;
  }
  if (ignored) return undefined;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (text === "") return STATE_ENTRY + eol;
  return text.endsWith("\n") ? STATE_ENTRY + eol : eol + STATE_ENTRY;
}

function existsOrLink(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** The directory on the way to `file` whose real place is outside `realRoot`, if any (the nearest existing one decides). */
function linkOut(file: string, realRoot: string): string | undefined {
  let dir = path.dirname(file);
  while (!existsOrLink(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return isInside(realRoot, realOrSelf(dir)) ? undefined : dir;
}

function realOrSelf(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}

function posix(p: string): string {
  return p.split(path.sep).join("/");
}

function starterWorkflow(schemas: string): string {
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

function starterPrompts(schemas: string): string {
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

/** The `paths:` filter of an event: the workflow's directory, or none for the repository's root. */
function pathsFilter(workflowDir: string): string {
  return workflowDir === "." ? "" : `\n    paths:\n      - "${workflowDir}/**"`;
}

/** The workflow that posts the plan of every pull request (docs/pull-requests.md). */
function planWorkflow(workflowDir: string): string {
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

/** The workflow that runs the pairs on every push to main. */
function runWorkflow(workflowDir: string): string {
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
