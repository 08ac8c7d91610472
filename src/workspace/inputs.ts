/**
 * A pair's `inputs`: globs relative to the workflow file's directory whose matched files (path and
 * content hash) become part of the pair's reference. Matches never reach outside the repository.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import fg from "fast-glob";
import type { Workflow } from "../model/workflow.js";
import { sha256Hex } from "../refs/hash.js";
import { isInside } from "../config/paths.js";
import { InputError } from "../model/errors.js";

/** Hashes each matched file once, however many pairs and globs match it. */
export class InputHasher {
  private readonly hashes = new Map<string, string>();
  private readonly root: string;

  constructor(
    private readonly workflow: Workflow,
    private readonly ignore: string[] = [],
  ) {
    this.root = realpathSync(workflow.root);
  }

  /** `{relative path: sha256}` for one pair's globs, sorted by path; `what` names the globs in messages. */
  hash(patterns: readonly string[], what = "input"): Record<string, string> {
    if (patterns.length === 0) return {};
    const files = fg.sync([...patterns], {
      cwd: this.workflow.dir,
      dot: true,
      onlyFiles: true,
      unique: true,
      ignore: ["**/.git/**", ...this.ignore],
    });
    files.sort();
    const out: Record<string, string> = {};
    for (const rel of files) out[rel] = this.fileHash(path.resolve(this.workflow.dir, rel), rel, what);
    return out;
  }

  /** sha256 of one file (`what` and `rel` name it in messages); an error when it resolves outside the repository. */
  fileHash(abs: string, rel: string, what = "input"): string {
    let hash = this.hashes.get(abs);
    if (hash === undefined) {
      const real = realpathSync(abs);
      if (!isInside(this.root, real)) {
        throw new InputError(`${what} "${rel}" resolves to ${real}, outside the repository (${this.root}); files pairflow hashes must stay inside it`);
      }
      hash = sha256Hex(readFileSync(real));
      this.hashes.set(abs, hash);
    }
    return hash;
  }
}
