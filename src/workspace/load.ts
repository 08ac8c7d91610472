/**
 * Finds a workflow and its repository on disk and hands the files to the configuration parser,
 * which does the rest without touching the file system itself.
 *
 * Every configuration file is looked at before it is opened: only a regular file inside the
 * repository, after symbolic links, of a size a configuration file can have, is read at all. A
 * pipe named as the workflow would block forever, a device such as /dev/zero would fill memory,
 * and a file outside the repository must never be read, let alone quoted in a message.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";
import { ConfigError, type ConfigIssue } from "../model/errors.js";
import { isInside } from "../config/paths.js";
import { displayPath, issueAt, parseWorkflow, WORKFLOW_NAMES, type ConfigFiles, type FileKind, type Loaded } from "../config/parse.js";
import { OutputFiles } from "./outputs.js";
import { globFiles } from "./glob.js";

/**
 * Configuration files are text a person keeps: a larger one (a device, a dump written there by
 * mistake) is refused rather than read into memory. The prompts of a 50,000-pair workflow take
 * about 40 MB, well inside it.
 */
export const MAX_CONFIG_BYTES = 256 * 1024 * 1024;

/** The configuration files as they are on disk. */
export const diskFiles: ConfigFiles = {
  read: readConfigFile,
  exists: (file) => existsSync(file),
  glob: (patterns, cwd) =>
    // As `inputs` are matched (src/workspace/glob.ts): files only, never inside .git, never through
    // a link; hidden files only where a pattern names them (so `**` never reaches the state
    // directory, .pairflow/).
    globFiles(patterns, cwd, { dot: false, within: findRepoRoot(cwd) }),
  stat: fileKind,
};

function fileKind(file: string): FileKind {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined) return { kind: "missing" };
    return { kind: stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other", real: realpathSync.native(file) };
  } catch {
    return { kind: "missing" }; // a file on the way (ENOTDIR), or gone meanwhile
  }
}

/** What makes a path unfit to read as a configuration file, or undefined. */
function unreadable(stat: Stats): string | undefined {
  if (stat.isDirectory()) return "it is a directory; give the path of a file";
  if (!stat.isFile()) return "it is not a regular file (a pipe, a device or a socket); give the path of a file";
  if (stat.size > MAX_CONFIG_BYTES) return `it is ${stat.size} bytes, more than the ${MAX_CONFIG_BYTES} a configuration file may have`;
  return undefined;
}

/**
 * A configuration file's text, read only once it is known to be a regular file of bounded size.
 * It is opened without blocking (a pipe put in its place meanwhile does not hang the open) and
 * checked again once open.
 */
function readConfigFile(file: string): string {
  const before = unreadable(statSync(file));
  if (before) throw new Error(before);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const now = unreadable(fstatSync(fd));
    if (now) throw new Error(now);
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, MAX_CONFIG_BYTES) + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n;
    if (length > MAX_CONFIG_BYTES) throw new Error(`it is more than the ${MAX_CONFIG_BYTES} bytes a configuration file may have`);
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** PATH as the commands take it: a workflow file, or a directory holding workflow.yml|yaml|json. */
export function resolveWorkflowPath(target: string | undefined, cwd = process.cwd()): string {
  const abs = path.resolve(cwd, target ?? ".");
  if (!existsSync(abs))
    throw fileIssue(displayPath(abs, cwd), `no such file or directory; give a workflow file or a directory holding one of ${WORKFLOW_NAMES.join(", ")}`);
  if (!statSync(abs).isDirectory()) return checkedWorkflow(abs, cwd);
  const found = WORKFLOW_NAMES.filter((name) => existsSync(path.join(abs, name)));
  if (found.length === 0) {
    throw fileIssue(displayPath(abs, cwd), `no workflow file here; expected one of ${WORKFLOW_NAMES.join(", ")}, or give the file's path`);
  }
  if (found.length > 1) {
    throw fileIssue(displayPath(abs, cwd), `several workflow files here (${found.join(", ")}); give the one to use`);
  }
  return checkedWorkflow(path.join(abs, found[0]!), cwd);
}

/** The workflow file, once it is known to be a regular file inside its repository after symbolic links. */
function checkedWorkflow(file: string, cwd: string): string {
  const shown = displayPath(file, cwd);
  const stat = statSync(file);
  if (stat.isDirectory()) throw fileIssue(shown, `is a directory; give a workflow file or a directory holding one of ${WORKFLOW_NAMES.join(", ")}`);
  if (!stat.isFile()) throw fileIssue(shown, "is not a regular file (a pipe, a device or a socket); give the path of a workflow file");
  const root = realpathSync.native(findRepoRoot(path.dirname(file)));
  const real = realpathSync.native(file);
  if (!isInside(root, real)) {
    throw fileIssue(shown, `is a link to ${real}, outside the repository (${root}); give the path of the workflow file itself, inside its repository`);
  }
  return file;
}

export function loadWorkflow(target: string | undefined, cwd = process.cwd()): Loaded {
  const workflowPath = resolveWorkflowPath(target, cwd);
  const loaded = parseWorkflow(workflowPath, { files: diskFiles, cwd: path.resolve(cwd), root: findRepoRoot(path.dirname(workflowPath)) });
  const issues = outputIssues(loaded);
  if (issues.length > 0) throw new ConfigError(issues);
  return loaded;
}

/**
 * What is on disk where the pairs' outputs go: each must be a regular file, or nothing yet, inside
 * the repository after symbolic links, never a directory or a path under a file
 * (OutputFiles.problem). Checked before anything reads them: reading a pipe would block the plan.
 */
export function outputIssues(loaded: Loaded, outputs = new OutputFiles(loaded.workflow)): ConfigIssue[] {
  const { workflow, sources } = loaded;
  const issues: ConfigIssue[] = [];
  for (const pair of workflow.pairs.values()) {
    const problem = outputs.problem(pair, { beforeRun: true })?.replace(`output ${pair.output} `, `"${pair.output}" `);
    if (problem !== undefined) issues.push(issueAt(sources.workflow, ["action_pairs", pair.template ?? pair.id, "output"], problem));
  }
  return issues;
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
