/**
 * Starting a workflow: a starter workflow.yml and prompts.yml that validate and run offline (a
 * command generator), and a GitHub Actions workflow that runs it on every push. Nothing that
 * exists is ever overwritten: when any of the files is there, none is written.
 */
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { UsageError } from "../model/errors.js";
import { findRepoRoot } from "../workspace/load.js";

export interface InitRequest {
  cwd: string;
  /** Where the workflow goes (default: cwd); created when missing. */
  dir?: string;
  /** The schemas/ directory of the running pairflow, for the `$schema` lines. */
  schemasDir: string;
}

export interface Initialized {
  /** The files written, absolute, in the order written. */
  files: string[];
  /** The repository root the GitHub workflow went under. */
  root: string;
  /** Where the `$schema` lines point: a directory relative to the workflow's, or a URL. */
  schemas: string;
}

/**
 * The published copy of this pairflow's schemas. A public npm CDN serves every file of every
 * published version of the package at this address (package.json publishes schemas/), and a
 * published version never changes, so the address resolves from any checkout on any machine and
 * always gives the schemas this pairflow validates with.
 */
export const SCHEMAS_URL = `https://cdn.jsdelivr.net/npm/${pkg.name}@${pkg.version}/schemas`;

export class InitTargetExistsError extends UsageError {
  override name = "InitTargetExistsError";
}

export function initWorkflow(request: InitRequest): Initialized {
  const dir = path.resolve(request.cwd, request.dir ?? ".");
  if (existsSync(dir) && !lstatSync(dir).isDirectory()) throw new UsageError(`${request.dir} is not a directory; give the directory to hold workflow.yml`);
  const root = findRepoRoot(dir);
  const schemas = schemaLocation(request.schemasDir, root, dir);
  const workflowDir = posix(path.relative(root, dir)) || ".";

  const files: [string, string][] = [
    [path.join(dir, "workflow.yml"), starterWorkflow(schemas)],
    [path.join(dir, "prompts.yml"), starterPrompts(schemas)],
    [path.join(root, ".github", "workflows", "pairflow.yml"), githubWorkflow(workflowDir)],
  ];
  const taken = files.map(([file]) => file).filter((file) => existsOrLink(file));
  if (taken.length > 0) {
    throw new InitTargetExistsError(
      `${taken.map((f) => posix(path.relative(request.cwd, f)) || f).join(", ")} already ${taken.length === 1 ? "exists" : "exist"}; ` +
        "pairflow init never overwrites anything and wrote nothing (move it away, or init another directory)",
    );
  }
  const written: string[] = [];
  try {
    for (const [file, text] of files) {
      mkdirSync(path.dirname(file), { recursive: true });
      // wx: fails if the file appeared meanwhile, so nothing is ever overwritten.
      writeFileSync(file, text, { flag: "wx" });
      written.push(file);
    }
  } catch (err) {
    for (const file of written) rmSync(file, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new InitTargetExistsError(`${(err as NodeJS.ErrnoException).path ?? "a file"} appeared while pairflow init wrote; it wrote nothing`);
    throw new UsageError(`could not write the starter files: ${(err as Error).message}; nothing was written`);
  }
  return { files: written, root, schemas };
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
  if (!isInside(shipped, realRoot)) return SCHEMAS_URL;
  // Relative to the root as given: dir is under it, and may not exist yet.
  return posix(path.relative(dir, path.join(root, path.relative(realRoot, shipped)))) || ".";
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function existsOrLink(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function posix(p: string): string {
  return p.split(path.sep).join("/");
}

function starterWorkflow(schemaDir: string): string {
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

function starterPrompts(schemaDir: string): string {
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

function githubWorkflow(workflowDir: string): string {
  const paths = workflowDir === "." ? "" : `\n    paths:\n      - "${workflowDir}/**"`;
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
          path: ${workflowDir}      # the directory holding workflow.yml
        # The variables your workflow's generators read, once they call a model:
        # env:
        #   OPENAI_API_KEY: \${{ secrets.OPENAI_API_KEY }}
`;
}
