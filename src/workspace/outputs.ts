/**
 * Pairs' output files in the workspace. Each file is hashed at most once per invocation, however
 * often the planner, the run and the estimate consult it; writing a file updates what is known.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Pair, Workflow } from "../model/workflow.js";
import { isInside, lockFileOf, reservedOutput } from "../config/paths.js";
import type { FileHash } from "../model/plan.js";
import { textHashes } from "../refs/hash.js";
import { writeFileAtomic } from "./files.js";

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
    return file !== undefined && existsSync(file) ? readFileSync(file) : undefined;
  }

  /** Writes the file atomically: readers see the old content or the new, never a mix. */
  write(pair: Pair, content: Buffer): void {
    const file = outputPath(this.workflow, pair);
    if (file === undefined) return;
    const problem = this.problem(pair);
    if (problem !== null) throw new Error(problem);
    writeFileAtomic(file, content);
    this.hashes.set(pair.id, textHashes(content));
  }

  /**
   * An output is written only inside the repository, after symlinks: a directory on its path that
   * links elsewhere, or an output that is itself a link, is refused rather than followed. Nor,
   * after symlinks, where git or pairflow keep their own files (reservedOutput): a directory that
   * links to .git or to the state directory is refused too.
   */
  problem(pair: Pair): string | null {
    const file = outputPath(this.workflow, pair);
    if (file === undefined) return null;
    const root = realpathSync(this.workflow.root);
    if (lexists(file) && lstatSync(file).isSymbolicLink()) {
      return `output ${pair.output} is a symbolic link; pairflow writes only regular files inside the repository: replace the link with a file, or choose another output`;
    }
    let dir = path.dirname(file);
    while (!lexists(dir)) dir = path.dirname(dir);
    // A link on the way that leads nowhere: making the directory would fail, or follow it when its target appears.
    if (!existsSync(dir))
      return `output ${pair.output} is under ${path.relative(this.workflow.root, dir) || dir}, a symbolic link that leads nowhere; remove the link`;
    const realDir = realpathSync(dir);
    if (!isInside(root, realDir))
      return `output ${pair.output} would be written outside the repository (${realDir} is not inside ${root}); give a path inside it`;
    const real = path.join(realDir, path.relative(dir, file));
    const reserved = reservedOutput(real, {
      root,
      lockFile: realPath(lockFileOf(this.workflow.path)),
      stateDirs: this.stateDir ? [realPath(this.stateDir)] : [],
    });
    if (reserved !== undefined) return `output ${pair.output} ${real === file ? "" : `(${path.relative(root, real)}) `}${reserved}`;
    if (existsSync(file) && !statSync(file).isFile()) return `output ${pair.output} is not a regular file; give the path of a file`;
    return null;
  }
}

/** A path after symbolic links, as far as it exists. */
function realPath(file: string): string {
  let dir = file;
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(realpathSync(dir), path.relative(dir, file));
}

/** Whether anything, a link included, is at the path (ENOTDIR: a file on the way, so nothing). */
function lexists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw err;
  }
}
