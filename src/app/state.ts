/**
 * Opens a workflow where it lives: the workflow and prompts files, the lock file beside them, the
 * local store under the state directory, the output and input files, the files generators and
 * guards read, and optionally a remote store; and the StateView through which the planner sees
 * all of them. Where the repository has no lock file, the accepted state the remote store last saved
 * (a snapshot's manifest) serves as one: the planner then knows references, content hashes and
 * reasons exactly as a committed lock file would tell them.
 */
import { utf8Text } from "../model/text.js";
import path from "node:path";
import { displayPath, type Loaded } from "../config/parse.js";
import { loadWorkflow, outputIssues } from "../workspace/load.js";
import { defaultStateDir, escapeGlob } from "../config/paths.js";
import { ConfigError } from "../model/errors.js";
import { readLockWithJournal } from "../lockfile/journal.js";
import { lockPathFor } from "../lockfile/lockfile.js";
import type { Graph } from "../model/graph.js";
import type { StateView } from "../model/plan.js";
import type { RemoteStore } from "../model/ports.js";
import { lockEntry, type LockFile } from "../model/records.js";
import type { Pair, Workflow } from "../model/workflow.js";
import { LocalStore } from "../store/local.js";
import { RemoteCache } from "../store/remote.js";
import { InputHasher, writtenFiles } from "../workspace/inputs.js";
import type { SnapshotSource } from "../store/snapshot.js";
import { sha256Hex } from "../refs/hash.js";
import { PairFileHasher } from "../workspace/pairFiles.js";
import { OutputFiles } from "../workspace/outputs.js";
import { checkStateDir } from "../workspace/stateDir.js";
import { readBatches } from "../records/batches.js";
import { acceptedBytes } from "../refs/accepted.js";

export interface StateOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** State directory; default PAIRFLOW_STATE_DIR, else .pairflow/ at the repository root. */
  stateDir?: string;
  /** The accepted state to plan against instead of the lock file beside the workflow (a base commit's). */
  lock?: LockFile | null;
  remote?: RemoteStore;
  /** Told what planning cannot follow to the end: what a command reads past the bound of the walk, a script that cannot be read. */
  warn?: (message: string) => void;
}

export interface Opened {
  workflow: Workflow;
  graph: Graph;
  /** What loading gave, for checks that point at the files' lines. */
  loaded: Loaded;
  stateDir: string;
  lockPath: string;
  /** The lock file beside the workflow (or the one given); the view's lock falls back to the remote store's state. */
  lock: LockFile | null;
  store: LocalStore;
  outputs: OutputFiles;
  remote: RemoteCache | undefined;
  view: StateView;
  /** The files each pair's generator and guards read, as the view hashes them. */
  files: PairFileHasher;
}

export function stateDirFor(root: string, options: Pick<StateOptions, "cwd" | "env" | "stateDir">): string {
  const dir = options.stateDir ?? options.env?.PAIRFLOW_STATE_DIR;
  return dir ? path.resolve(options.cwd, dir) : defaultStateDir(root);
}

/**
 * The state directory, before anything reads, writes or deletes there: a symbolic link where
 * pairflow keeps a directory (a repository can commit one) is refused (src/workspace/stateDir.ts).
 */
export function checkedStateDir(root: string, options: Pick<StateOptions, "cwd" | "env" | "stateDir">): string {
  const dir = stateDirFor(root, options);
  checkStateDir(dir, root);
  return dir;
}

/**
 * The hasher of the workflow's inputs. The state directory may sit inside the workflow's
 * directory: its files are never inputs; nor are the lock file and the pairs' outputs.
 */
export function inputHasherFor(workflow: Workflow, stateDir: string, lockPath = lockPathFor(workflow.path)): InputHasher {
  const stateFiles = path.relative(workflow.dir, stateDir).split(path.sep).join("/") + "/**";
  // Beside the lock file: its journal, the run mutex and their temporary files, which change during a run.
  const lockDir = path.relative(workflow.dir, path.dirname(lockPath)).split(path.sep).join("/");
  const lockFiles = (lockDir === "" ? "" : escapeGlob(lockDir) + "/") + `.${escapeGlob(path.basename(lockPath))}.*`;
  return new InputHasher(workflow, [stateFiles, lockFiles], writtenFiles(workflow, lockPath));
}

export function openState(target: string | undefined, options: StateOptions): Opened {
  const loaded = loadWorkflow(target, options.cwd);
  const { workflow, graph } = loaded;
  const stateDir = checkedStateDir(workflow.root, options);
  const lockPath = lockPathFor(workflow.path);
  // With the journal of a run in progress, or of a killed one, applied: what was accepted is known.
  const lock = options.lock !== undefined ? options.lock : readLockWithJournal(lockPath, displayPath(lockPath, options.cwd));
  const store = new LocalStore(path.join(stateDir, "store"), { warn: options.warn });
  const outputs = new OutputFiles(workflow, stateDir);
  if (stateDir !== defaultStateDir(workflow.root)) {
    // Loading checked the outputs against the default state directory; this one is given.
    const issues = outputIssues(loaded, outputs);
    if (issues.length > 0) throw new ConfigError(issues);
  }
  const remote = options.remote && new RemoteCache(options.remote);
  const viewLock = lock ?? (options.lock === undefined ? (remote?.acceptedState() ?? null) : null);
  const hasher = inputHasherFor(workflow, stateDir, lockPath);
  const inputs = new Map<string, Record<string, string>>();
  const files = new PairFileHasher(workflow, hasher, { exclude: [lockPath], excludeDir: stateDir, warn: options.warn });
  const view: StateView = {
    lock: viewLock,
    record: (pair, ref) => store.record(pair, ref),
    hasContent: (hash) => store.hasContent(hash),
    outputHash: (pair) => outputs.hash(pair),
    generatedHashes: (pair) => store.generatedHashes(pair),
    inputHashes: (pair: Pair) => {
      let hashes = inputs.get(pair.id);
      if (!hashes) inputs.set(pair.id, (hashes = hasher.hash(pair.inputs)));
      return hashes;
    },
    fileHashes: (pair) => files.hashes(pair, lockEntry(viewLock, pair.id)?.observed),
    remote: remote && ((pair, ref) => remote.record(pair, ref)),
    // As the run reads it for a dependent's prompt: the output file when it holds that content, else the store's copy.
    text: (pair, hash) => {
      const file = outputs.read(pair);
      const bytes = (file && acceptedBytes(file, hash)) ?? store.content(hash);
      return bytes === undefined ? undefined : utf8Text(bytes);
    },
    storedText: (hash) => {
      const bytes = store.content(hash);
      return bytes === undefined ? undefined : utf8Text(bytes);
    },
    outputText: (pair) => {
      const bytes = outputs.read(pair);
      return bytes === undefined ? undefined : utf8Text(bytes);
    },
    requests: (key) => {
      const local = store.requests(key).filter((e) => store.hasContent(e.contentHash));
      const more = remote?.requests(key).filter((e) => !local.some((l) => l.contentHash === e.contentHash)) ?? [];
      return [...local, ...more];
    },
  };
  return { workflow, graph, loaded, stateDir, lockPath, lock, store, outputs, remote, view, files };
}

/**
 * What a snapshot of the opened workflow's state is made of as a run goes on: the lock file the run
 * keeps current, and the content this machine holds (the local store, else the output file when it
 * is exactly that content).
 */
export function snapshotSource(opened: Opened): SnapshotSource {
  return {
    name: opened.workflow.name,
    pairs: new Set(opened.workflow.pairs.keys()),
    lock: () => {
      try {
        // The lock file as the run has it so far: its last checkpoint and the journal since.
        return readLockWithJournal(opened.lockPath);
      } catch {
        return null;
      }
    },
    batches: () => readBatches(opened.stateDir, opened.workflow.path),
    content: (id, hash) => {
      const stored = opened.store.content(hash);
      if (stored !== undefined) return stored;
      const pair = opened.workflow.pairs.get(id);
      const file = pair && opened.outputs.read(pair);
      return file !== undefined && sha256Hex(file) === hash ? file : undefined;
    },
  };
}
