/**
 * A pair's `inputs`: globs relative to the workflow file's directory whose matched files (path and
 * content hash) become part of the pair's reference. Matches never reach outside the repository,
 * and never include the files pairflow itself writes (the lock file, every pair's output): a
 * reference that included them would change on every run, so the pair would never settle. Globs
 * walk by src/workspace/glob.ts: never through a symbolic link, names of any bytes.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { Workflow } from "../model/workflow.js";
import { textHashes } from "../refs/hash.js";
import { isInside } from "../config/paths.js";
import { InputError } from "../model/errors.js";
import { dict } from "../model/dict.js";
import { shownName } from "../model/fileName.js";
import { fsPath, globFiles, realPath } from "./glob.js";

/** Files pairflow writes, by absolute path: the pair whose output each is, or null for the lock file. */
export type WrittenFiles = ReadonlyMap<string, string | null>;

/** The lock file at lockPath and every pair's output, which no `inputs` glob ever matches. */
export function writtenFiles(workflow: Workflow, lockPath: string): Map<string, string | null> {
  const files = new Map<string, string | null>([[path.resolve(lockPath), null]]);
  for (const pair of workflow.pairs.values()) {
    if (pair.output !== undefined) files.set(path.resolve(workflow.dir, pair.output), pair.id);
  }
  return files;
}

/** A file one glob of a pair matched that is left out of its inputs, because pairflow writes it. */
export interface LeftOut {
  /** The glob's index in the pair's `inputs`. */
  index: number;
  pattern: string;
  /** Relative to the workflow file's directory. */
  file: string;
  /** The pair whose output the file is, or null for the lock file. */
  owner: string | null;
}

/** Hashes each matched file once, however many pairs and globs match it. */
export class InputHasher {
  private readonly hashes = new Map<string, string>();
  private readonly root: string;

  constructor(
    private readonly workflow: Workflow,
    private readonly ignore: string[] = [],
    private readonly written: WrittenFiles = new Map(),
  ) {
    this.root = realpathSync.native(workflow.root);
  }

  /** `{relative path: sha256}` for one pair's globs, sorted by path; `what` names the globs in messages. */
  hash(patterns: readonly string[], what = "input"): Record<string, string> {
    if (patterns.length === 0) return dict();
    const files = this.match(patterns).filter((rel) => !this.written.has(path.resolve(this.workflow.dir, rel)));
    files.sort();
    // A file may be called "__proto__" or "constructor": keys of a dictionary, not an object.
    const out = dict<string>();
    for (const rel of files) out[rel] = this.fileHash(path.resolve(this.workflow.dir, rel), rel, what);
    return out;
  }

  /**
   * For each glob of one pair, the existing files it matches that hash() leaves out. An output that
   * does not exist yet is left out all the same once it does, but cannot be named before.
   */
  leftOut(patterns: readonly string[]): LeftOut[] {
    const exclusions = patterns.filter((p) => p.startsWith("!"));
    const out: LeftOut[] = [];
    patterns.forEach((pattern, index) => {
      if (pattern.startsWith("!")) return;
      for (const file of this.match([pattern, ...exclusions]).sort()) {
        const abs = path.resolve(this.workflow.dir, file);
        const owner = this.written.get(abs);
        if (owner !== undefined) out.push({ index, pattern, file, owner });
      }
    });
    return out;
  }

  /**
   * Matches by glob list: pairs often share their globs, and each match walks the tree. Like the
   * hashes, they are taken once per invocation (the planner takes every pair's inputs up front).
   */
  private readonly matches = new Map<string, readonly string[]>();

  private match(patterns: readonly string[]): string[] {
    const key = patterns.join("\0");
    let found = this.matches.get(key);
    if (found === undefined) this.matches.set(key, (found = this.glob(patterns)));
    return [...found];
  }

  private glob(patterns: readonly string[]): string[] {
    return globFiles(patterns, this.workflow.dir, { dot: true, ignore: this.ignore, within: this.workflow.root });
  }

  /** sha256 of one file (`what` and `rel` name it in messages); an error when it resolves outside the repository. */
  fileHash(abs: string, rel: string, what = "input"): string {
    let hash = this.hashes.get(abs);
    if (hash === undefined) {
      const real = realPath(abs);
      if (!isInside(this.root, real)) {
        throw new InputError(
          `${what} "${shownName(rel)}" resolves to ${shownName(real)}, outside the repository (${this.root}); files pairflow hashes must stay inside it`,
        );
      }
      // Text compares with normalised line endings: a CRLF checkout is the same input.
      hash = textHashes(readFileSync(fsPath(real))).text;
      this.hashes.set(abs, hash);
    }
    return hash;
  }
}
