/**
 * Finds a workflow and its repository on disk and hands the files to the configuration parser,
 * which does the rest without touching the file system itself.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import { ConfigError } from "../model/errors.js";
import { displayPath, parseWorkflow, WORKFLOW_NAMES, type ConfigFiles, type Loaded } from "../config/parse.js";

/** The configuration files as they are on disk. */
export const diskFiles: ConfigFiles = {
  read: (file) => readFileSync(file, "utf8"),
  exists: (file) => existsSync(file),
  glob: (patterns, cwd) =>
    // As `inputs` are matched (src/workspace/inputs.ts), files only and never inside .git; hidden
    // files only where a pattern names them (so `**` never reaches the state directory, .pairflow/),
    // and no symbolic link is followed into a directory, so matches stay where they appear to be.
    fg.sync([...patterns], { cwd, dot: false, onlyFiles: true, unique: true, followSymbolicLinks: false, ignore: ["**/.git/**"] }),
};

/** PATH as the commands take it: a workflow file, or a directory holding workflow.yml|yaml|json. */
export function resolveWorkflowPath(target: string | undefined, cwd = process.cwd()): string {
  const abs = path.resolve(cwd, target ?? ".");
  if (!existsSync(abs))
    throw fileIssue(displayPath(abs, cwd), `no such file or directory; give a workflow file or a directory holding one of ${WORKFLOW_NAMES.join(", ")}`);
  if (!statSync(abs).isDirectory()) return abs;
  const found = WORKFLOW_NAMES.filter((name) => existsSync(path.join(abs, name)));
  if (found.length === 0) {
    throw fileIssue(displayPath(abs, cwd), `no workflow file here; expected one of ${WORKFLOW_NAMES.join(", ")}, or give the file's path`);
  }
  if (found.length > 1) {
    throw fileIssue(displayPath(abs, cwd), `several workflow files here (${found.join(", ")}); give the one to use`);
  }
  return path.join(abs, found[0]!);
}

export function loadWorkflow(target: string | undefined, cwd = process.cwd()): Loaded {
  const workflowPath = resolveWorkflowPath(target, cwd);
  return parseWorkflow(workflowPath, { files: diskFiles, cwd: path.resolve(cwd), root: findRepoRoot(path.dirname(workflowPath)) });
}

/** The nearest ancestor of dir holding .git, else dir itself. */
export function findRepoRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, ".git"))) return d;
    if (path.dirname(d) === d) return dir;
  }
}

function fileIssue(display: string, message: string): ConfigError {
  return new ConfigError([{ file: display, line: 1, column: 1, key: "", message }]);
}
