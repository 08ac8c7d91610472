/**
 * Pairs' output files in the workspace. Each file is hashed at most once per invocation, however
 * often the planner, the run and the estimate consult it; writing a file updates what is known.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Pair, Workflow } from "../model/workflow.js";
import { defaultStateDir, isInside, lockFileOf, reservedOutput } from "../config/paths.js";
import { stageCandidate } from "./staged.js";
import type { FileHash } from "../model/plan.js";
import { textHashes } from "../refs/hash.js";
import { lstatOrUndefined, writeFileAtomic, writeFileAtomicAsync } from "./files.js";

/** The absolute path of a pair's output file, when it has one. */
export function outputPath(workflow: Pick<Workflow, "dir">, pair: Pick<Pair, "output">): string | undefined {
  return pair.output === undefined ? undefined : path.resolve(workflow.dir, pair.output);
}

export class OutputFiles {
  private readonly hashes = new Map<string, FileHash | undefined>();

  constructor(
    private readonly workflow: Pick<Workflow, "dir" | "root" | "path">,
    /** The state directory in use, when it is not the default (.pairflow/ at the root, always refused). */
    private readonly stateDir?: string,
  ) {}

  /** The hashes of the pair's output file; undefined when it has none or the file does not exist. */
  hash(pair: Pair): FileHash | undefined {
    if (!this.hashes.has(pair.id)) {
      const content = this.read(pair);
      this.hashes.set(pair.id, content && textHashes(content));
    }
    return this.hashes.get(pair.id);
  }

  read(pair: Pair): Buffer | undefined {
    const file = outputPath(this.workflow, pair);
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw err;
    }
  }

  path(pair: Pair): string | undefined {
    return outputPath(this.workflow, pair);
  }

  /** Writes a candidate at the output's path while a guard judges it; returns what puts the file back. */
  stage(pair: Pair, content: Buffer): () => void {
    const file = outputPath(this.workflow, pair);
    if (file === undefined || this.problem(pair) !== null) return () => {};
    return stageCandidate(this.stateDir ?? defaultStateDir(this.workflow.root), file, content);
  }

  /** Writes the file atomically: readers see the old content or the new, never a mix. */
  write(pair: Pair, content: Buffer): void {
    const file = this.target(pair);
    if (file === undefined) return;
    writeFileAtomic(file, content);
    this.hashes.set(pair.id, textHashes(content));
  }

  /** write, the wait for the disk off the calling thread: a run goes on with other pairs meanwhile. */
  async writeAsync(pair: Pair, content: Buffer): Promise<void> {
    const file = this.target(pair);
    if (file === undefined) return;
    await writeFileAtomicAsync(file, content);
    this.hashes.set(pair.id, textHashes(content));
  }

  /** Where a write of the pair's output goes (none without an output); throws when it may not go there. */
  private target(pair: Pair): string | undefined {
    const file = outputPath(this.workflow, pair);
    if (file === undefined) return undefined;
    const problem = this.problem(pair);
    if (problem !== null) throw new Error(problem);
    return file;
  }

  /**
   * An output is written only inside the repository, after symlinks: a directory on its path that
   * links elsewhere, or an output that is itself a link, is refused rather than followed. Nor,
   * after symlinks, where git or pairflow keep their own files (reservedOutput): a directory that
   * links to .git or to the state directory is refused too. Nor a directory; and before anything
   * runs (`beforeRun`), nor a path under a file. Checked afresh before every write (a command may
   * have changed the tree meanwhile), so in as few system calls as the checks allow. During a run,
   * a file where a directory should be is left for the write to meet: the run stops there with the
   * acceptance already recorded, and the next run restores the output rather than generating it again.
   */
  problem(pair: Pair, { beforeRun = false } = {}): string | null {
    const file = outputPath(this.workflow, pair);
    if (file === undefined) return null;
    const shown = `output ${pair.output}`;
    const stat = lstatOrUndefined(file);
    if (stat?.isSymbolicLink())
      return `${shown} is a symbolic link; pairflow writes only regular files inside the repository: replace the link with a file, or choose another output`;
    if (stat?.isDirectory()) return `${shown} is a directory; give the path of a file for the pair to write`;
    if (stat !== undefined && !stat.isFile()) return `${shown} is not a regular file; give the path of a file`;
    let dir = path.dirname(file);
    let dirStat = stat === undefined ? lstatOrUndefined(dir) : undefined;
    if (stat === undefined) {
      while (dirStat === undefined) dirStat = lstatOrUndefined((dir = path.dirname(dir)));
      if (!dirStat.isDirectory() && !dirStat.isSymbolicLink()) return beforeRun ? underFile(shown, this.workflow.root, dir) : null;
    }
    let realDir: string;
    try {
      realDir = realpathSync.native(dir);
    } catch {
      // A link on the way that leads nowhere: making the directory would fail, or follow it when its target appears.
      return `${shown} is under ${path.relative(this.workflow.root, dir) || dir}, a symbolic link that leads nowhere; remove the link`;
    }
    if (dirStat?.isSymbolicLink() && !statSync(realDir).isDirectory()) return beforeRun ? underFile(shown, this.workflow.root, dir) : null;
    const { root, lockFile, stateDirs } = this.reserved();
    if (!isInside(root, realDir)) return `${shown} would be written outside the repository (${realDir} is not inside ${root}); give a path inside it`;
    const real = path.join(realDir, path.relative(dir, file));
    const reserved = reservedOutput(real, { root, lockFile, stateDirs });
    if (reserved !== undefined) return `${shown} ${real === file ? "" : `(${path.relative(root, real)}) `}${reserved}`;
    return null;
  }

  private reservedPaths?: { root: string; lockFile: string; stateDirs: string[] };

  /** The repository, the lock file and the state directory after links: they stay put for an invocation. */
  private reserved() {
    return (this.reservedPaths ??= {
      root: realpathSync.native(this.workflow.root),
      lockFile: realPath(lockFileOf(this.workflow.path)),
      stateDirs: this.stateDir ? [realPath(this.stateDir)] : [],
    });
  }
}

function underFile(shown: string, root: string, dir: string): string {
  return `${shown} is under ${path.relative(root, dir) || dir}, which is a file, not a directory; give a path where a file can be written`;
}

/** A path after symbolic links, as far as it exists. */
function realPath(file: string): string {
  let dir = file;
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(realpathSync.native(dir), path.relative(dir, file));
}
