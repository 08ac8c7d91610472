/**
 * Gathers both sides of a diff: the head (the working tree, as `pairflow plan` sees it) and the
 * base (the workflow, prompts and lock file at a git ref). The head is planned exactly as
 * `pairflow plan` plans it, with its own lock file, since that is the plan main makes once the
 * branch is merged; the base explains what changed. The one entry point `pairflow diff` and the
 * action share.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { UsageError } from "../model/errors.js";
import { displayPath, PROMPTS_NAMES } from "../config/parse.js";
import { resolveWorkflowPath } from "../workspace/load.js";
import type { RemoteStore } from "../model/ports.js";
import { planTarget, type Planned } from "./plan.js";
import { lockPathFor, readLock } from "../lockfile/lockfile.js";
import { type LockFile } from "../model/records.js";
import type { StateView } from "../model/plan.js";
import { compareWithBase, computeDiff, fileChanges, parseYaml, snapshotOf, type ConfigSnapshot, type PlanDiff } from "../diff/diff.js";
import { openRepo, type FetchOptions, type GitRepo } from "../github/git.js";

export interface DiffOptions {
  /** The base revision: a branch, tag or commit. */
  base: string;
  cwd: string;
  /** State directory for the local store. */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  /** A remote store the plan counts, as a run on main would (in CI, the Actions cache). */
  remote?: RemoteStore;
  /**
   * Where the base commits no lock file: the accepted state the remote store holds for the base
   * branch (a snapshot's manifest), to tell what changed since.
   */
  baseState?: () => Promise<LockFile | undefined>;
  /** Fetch the base from `origin` when this clone does not have it (a shallow checkout in CI), with the action's token if given. */
  fetch?: FetchOptions | boolean;
}

export interface PreparedDiff extends PlanDiff {
  /** The head's plan, the one `pairflow plan` makes there, with its estimate. */
  planned: Planned;
  /** The commit checked out (HEAD), which the pull request comment names; null when there is none. */
  head: string | null;
}

export async function planDiff(target: string | undefined, options: DiffOptions): Promise<PreparedDiff> {
  const { cwd } = options;
  const workflowPath = resolveWorkflowPath(target, cwd);
  const repo = openRepo(path.dirname(workflowPath), displayPath(path.dirname(workflowPath), cwd));
  const commit = repo.resolve(options.base, { fetch: options.fetch });
  const workflowFile = repo.relative(workflowPath);

  const baseLock = readLockAt(repo, commit, options.base, posixLockPath(workflowFile)) ?? (await options.baseState?.()) ?? null;
  const planned = await planTarget(workflowPath, { cwd, env: options.env, stateDir: options.stateDir, remote: options.remote });
  const { plan, workflow } = planned;
  // The base's lock file alone, to name what changed since: no store, no output file, no remote.
  const baseView: StateView = {
    ...planned.view,
    lock: baseLock,
    record: () => undefined,
    hasContent: () => false,
    outputHash: () => undefined,
    remote: undefined,
  };
  const sinceBase = await compareWithBase(plan, baseView, planned.lock);

  const head = snapshotOf({
    workflowFile,
    workflowText: readFileSync(workflow.path, "utf8"),
    promptsFile: workflow.promptsPath && repo.relative(workflow.promptsPath),
    promptsText: workflow.promptsPath && readFileSync(workflow.promptsPath, "utf8"),
  });
  const base = snapshotAt(repo, commit, options.base, workflowFile);
  const computed = computeDiff(plan, sinceBase, head, base, { ref: options.base, commit });
  // The files and sections pairs re-run for, at the base and now: the diffs of the causes they name.
  const dir = path.dirname(workflow.path);
  const inRepo = (file: string) => path.posix.join(path.posix.dirname(workflowFile), file);
  const files = fileChanges(plan, {
    base: (file) => tryRead(() => repo.read(commit, inRepo(file))),
    head: (file) => tryRead(() => readFileSync(path.join(dir, file), "utf8")),
  });
  return { ...computed, changes: [...computed.changes, ...files], planned, head: headCommit(repo) };
}

/** A file's text, or null when it cannot be read (it does not exist there). */
function tryRead(read: () => string | null): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}

function headCommit(repo: GitRepo): string | null {
  try {
    return repo.resolve("HEAD");
  } catch {
    return null;
  }
}

/** The base's configuration, or null when the workflow file does not exist there. */
function snapshotAt(repo: GitRepo, commit: string, ref: string, workflowFile: string): ConfigSnapshot | null {
  const workflowText = repo.read(commit, workflowFile);
  if (workflowText === null) return null;
  const where = (file: string) => `${ref}:${file}`;
  let settings: unknown;
  try {
    settings = parseYaml(workflowText);
  } catch (err) {
    throw new UsageError(`${where(workflowFile)} does not parse (${(err as Error).message}); compare against a base whose workflow is valid`);
  }
  const promptsFile = basePromptsFile(repo, commit, workflowFile, settings);
  const promptsText = promptsFile === null ? null : repo.read(commit, promptsFile);
  try {
    return snapshotOf({ workflowFile, workflowText, promptsFile, promptsText });
  } catch (err) {
    throw new UsageError(
      `${where(promptsFile ?? workflowFile)} does not parse (${(err as Error).message}); compare against a base whose prompts file is valid`,
    );
  }
}

/** The prompts file the base's workflow uses: the one it names, else the one beside it. */
function basePromptsFile(repo: GitRepo, commit: string, workflowFile: string, workflow: unknown): string | null {
  const dir = path.posix.dirname(workflowFile);
  const named = (workflow as { prompts?: unknown } | null)?.prompts;
  if (typeof named === "string") {
    const file = path.posix.normalize(path.posix.join(dir, named));
    return file.startsWith("../") ? null : file;
  }
  return PROMPTS_NAMES.map((name) => path.posix.join(dir, name)).find((file) => repo.read(commit, file) !== null) ?? null;
}

function posixLockPath(workflowFile: string): string {
  return lockPathFor(workflowFile).split(path.sep).join("/");
}

/** The lock file at the base, checked the way `pairflow plan` checks the one on disk. */
function readLockAt(repo: GitRepo, commit: string, ref: string, lockFile: string): LockFile | null {
  const text = repo.read(commit, lockFile);
  if (text === null) return null;
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-base-"));
  try {
    const file = path.join(dir, "base.lock.json");
    writeFileSync(file, text);
    return readLock(file, `${ref}:${lockFile}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
