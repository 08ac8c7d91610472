/**
 * The files a pair's generator and guards read, so that their contents are part of its reference:
 *
 * - every word of a `command` generator's or guard's `run` that names a regular file inside the
 *   repository (resolved where the shell is when it gets to the word: the workflow file's
 *   directory, or where `cd` took it), and what those scripts load in turn, as their interpreters
 *   would (src/workspace/reads/follow.ts);
 * - a `json_schema` guard's `schema_file`;
 * - the `files` globs of generator_config and guard_config, for files a script reads that pairflow
 *   cannot see on its command line.
 *
 * Sub-guards of a composite guard count as the guard. The output files of the workflow's pairs, the
 * lock file and the state directory are left out: pairflow writes them itself (a pair that reads
 * another's output names it in `requires`, which hashes that content). Each file is hashed once per
 * invocation, through the InputHasher that also hashes `inputs`.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../config/paths.js";
import { InputError } from "../model/errors.js";
import { dict } from "../model/dict.js";
import type { PairFiles } from "../model/plan.js";
import type { GuardRef, Pair, Workflow } from "../model/workflow.js";
import { sortedObject } from "../refs/configRef.js";
import type { InputHasher } from "./inputs.js";
import { outputPath } from "./outputs.js";
import { ReadGraph, type Reached } from "./reads/follow.js";
import { realPath, statFollowing } from "./glob.js";
import { sharedValue } from "../refs/canonical.js";

/** A composite inside a composite inside ...: deeper than this is not followed. */
const MAX_GUARD_DEPTH = 16;
/** The hash of an observed file that is gone. */
export const MISSING = "missing";
/** Directories whose files a traced run may read but that are no part of a reference: version control's, and installed packages'. */
const NOT_OBSERVED = new Set([".git", "node_modules", "__pycache__", "site-packages"]);

export { commandWords } from "./reads/shell.js";

export interface PairFileOptions {
  /** Absolute paths of files pairflow writes that are never hashed as files (the lock file). */
  exclude?: string[];
  /** Absolute directory whose files are never hashed (the state directory). */
  excludeDir?: string;
  /** Told what cannot be followed to the end (a walk that stopped, a script that could not be read), once each. */
  warn?: (message: string) => void;
}

export class PairFileHasher {
  private readonly realRoot: string;
  private readonly excluded: Set<string>;
  private readonly cache = new Map<string, PairFiles>();
  /** Whether a command word's absolute path is a file to hash, by path. */
  private readonly words = new Map<string, boolean>();
  private readonly graph: ReadGraph;
  private readonly warned = new Set<string>();
  private readonly stoppedSaid = new WeakSet<Reached>();
  /** The names of the files pairflow writes, by directory (made when first needed). */
  private besides: Map<string, Set<string>> | undefined;
  /** The files a walk reached, hashed, by walk: every pair whose command reaches them shares the one mapping. */
  private readonly reachedHashes = new WeakMap<Reached, Record<string, string>>();

  constructor(
    private readonly workflow: Workflow,
    private readonly hasher: InputHasher,
    private readonly options: PairFileOptions = {},
  ) {
    this.realRoot = realpathSync.native(workflow.root);
    this.excluded = new Set(options.exclude ?? []);
    for (const pair of workflow.pairs.values()) {
      const file = outputPath(workflow, pair);
      if (file !== undefined) this.excluded.add(file);
    }
    this.graph = new ReadGraph({ readable: (abs) => this.readable(abs), warn: (message) => this.warn(message), display: (abs) => this.relative(abs) });
  }

  /**
   * `{path: sha256}` of what the pair's generator reads and what its guards read, and of the files
   * `observed` lists (what a traced run saw its commands read, from its lock entry) that nothing
   * names; computed once per pair.
   */
  hashes(pair: Pair, observed?: readonly string[]): PairFiles {
    let files = this.cache.get(pair.id);
    if (!files) {
      const generator: Record<string, string>[] = [];
      const config = pair.generatorConfig as Record<string, unknown>;
      if (pair.generator === "command") this.commandFiles(pair, "generator", config, generator);
      this.globbed("generator_config.files", config.files, generator);
      const guard: Record<string, string>[] = [];
      this.guardFiles(pair, pair.guard, pair.guardConfig as Record<string, unknown>, pair.guards, guard, 0);
      files = { generator: combined(generator), guard: combined(guard) };
      if (observed !== undefined && observed.length > 0) {
        const seen = this.observedHashes(observed, [files.generator, files.guard]);
        if (Object.keys(seen).length > 0) files.observed = seen;
      }
      this.cache.set(pair.id, files);
    }
    return files;
  }

  /**
   * `{path: sha256}` of files a traced run saw read (paths relative to the workflow file), less
   * those already hashed in `except` and those pairflow never hashes: outside the repository, its
   * own files (outputs, the lock file and what sits beside it, the state directory), version
   * control's and installed packages' (.git, node_modules, __pycache__, site-packages). A file that
   * is gone hashes as "missing", so that its return changes the reference again.
   */
  observedHashes(files: readonly string[], except: readonly Record<string, string>[] = []): Record<string, string> {
    const out = dict<string>();
    for (const file of files) {
      const abs = path.resolve(this.workflow.dir, file);
      const rel = this.relative(abs);
      if (except.some((known) => Object.hasOwn(known, rel)) || !this.observable(abs)) continue;
      out[rel] = this.readable(abs) ? this.hasher.fileHash(abs, rel) : MISSING;
    }
    return sortedObject(out);
  }

  /** Paths relative to the workflow file of what a traced command opened (absolute, links resolved), those inside the repository only. */
  workflowPaths(opened: readonly string[]): string[] {
    const out: string[] = [];
    for (const abs of opened) {
      const inRepo = isInside(this.realRoot, abs)
        ? path.join(this.workflow.root, path.relative(this.realRoot, abs))
        : isInside(this.workflow.root, abs)
          ? abs
          : undefined;
      if (inRepo !== undefined) out.push(this.relative(inRepo));
    }
    return out;
  }

  /** Whether a file a traced command read may be part of a reference (see observedHashes). */
  private observable(abs: string): boolean {
    if (!isInside(this.workflow.root, abs) || this.pairflows(abs)) return false;
    return !path
      .relative(this.workflow.root, abs)
      .split(path.sep)
      .some((segment) => NOT_OBSERVED.has(segment));
  }

  /**
   * Whether pairflow writes the file itself: an output, the lock file, what sits beside one of
   * them (the lock file's journal and mutex, temporary files: `.workflow.lock.json.mutex`), the
   * state directory.
   */
  private pairflows(abs: string): boolean {
    if (this.excluded.has(abs) || this.inStateDir(abs)) return true;
    const name = path.basename(abs);
    if (!name.startsWith(".")) return false;
    if (this.besides === undefined) {
      this.besides = new Map();
      for (const file of this.excluded) {
        const names = this.besides.get(path.dirname(file)) ?? new Set<string>();
        names.add(path.basename(file));
        this.besides.set(path.dirname(file), names);
      }
    }
    for (const written of this.besides.get(path.dirname(abs)) ?? []) if (name.startsWith(`.${written}.`)) return true;
    return false;
  }

  /** A guard's files, and a composite guard's sub-guards' (from the pair's `guards`, else guard_config.guards, as it runs them). */
  private guardFiles(
    pair: Pair,
    name: string | null,
    config: Record<string, unknown>,
    subGuards: GuardRef[] | undefined,
    out: Record<string, string>[],
    depth: number,
  ): void {
    if (name === "command") this.commandFiles(pair, "guard", config, out);
    if (name === "json_schema" && typeof config.schema_file === "string") this.namedFile("guard_config.schema_file", config.schema_file, out);
    this.globbed("guard_config.files", config.files, out);
    if (name !== "composite" || depth >= MAX_GUARD_DEPTH) return;
    for (const sub of subGuards ?? guardList(config.guards))
      this.guardFiles(pair, sub.guard, sub.guard_config as Record<string, unknown>, undefined, out, depth + 1);
  }

  /**
   * The files a command reads: those its line names and what they load, run where it runs with the
   * variables its `env` gives; words that name nothing, or something outside the repository, are
   * passed over.
   */
  private commandFiles(pair: Pair, who: "generator" | "guard", config: Record<string, unknown>, out: Record<string, string>[]): void {
    const run = config.run;
    if (typeof run !== "string") return;
    const env = dict<string>();
    if (config.env !== null && typeof config.env === "object" && !Array.isArray(config.env)) {
      for (const [name, value] of Object.entries(config.env)) if (typeof value === "string") env[name] = value;
    }
    const reached = this.graph.reach(run, this.workflow.dir, env);
    let hashes = this.reachedHashes.get(reached);
    if (!hashes) {
      const found = dict<string>();
      for (const abs of reached.files) {
        const rel = this.relative(abs);
        found[rel] = this.hasher.fileHash(abs, rel);
      }
      // One object for every pair whose command reaches these files: its canonical JSON is written once.
      hashes = sharedValue(Object.freeze(sortedObject(found)));
      this.reachedHashes.set(reached, hashes);
    }
    out.push(hashes);
    // Said once for every pair whose command reaches the same files.
    if (reached.stopped !== undefined && !this.stoppedSaid.has(reached)) {
      this.stoppedSaid.add(reached);
      this.warn(
        `${pair.id}: following what its ${who} command reads stopped ${reached.stopped} (and so for every pair whose command reaches the same files); ` +
          `the files past that are not part of the reference: list them under ${who}_config.files`,
      );
    }
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.options.warn?.(message);
  }

  /**
   * Whether a command word's path is a regular file inside the repository that pairflow does not
   * write itself. Most words are programs and arguments that name no file, and every pair repeats
   * them, so each path is looked at once, without throwing.
   */
  private readable(abs: string): boolean {
    let known = this.words.get(abs);
    if (known === undefined) {
      known = false;
      if (isInside(this.workflow.root, abs) && !this.pairflows(abs) && statFollowing(abs)?.isFile()) {
        // A link may lead out of the repository; such a file is never read.
        known = isInside(this.realRoot, realPath(abs));
      }
      this.words.set(abs, known);
    }
    return known;
  }

  /** A file the configuration names as a file: it must stay inside the repository; a missing one is left to the guard to report. */
  private namedFile(key: string, file: string, out: Record<string, string>[]): void {
    const abs = path.resolve(this.workflow.dir, file);
    if (!isInside(this.workflow.root, abs)) {
      throw new InputError(
        `${key} "${file}" is outside the repository (${this.workflow.root}); keep it inside the repository, so its content is part of the reference`,
      );
    }
    if (this.excluded.has(abs) || this.inStateDir(abs)) return;
    try {
      if (!statSync(abs).isFile()) return;
    } catch {
      return;
    }
    out.push({ [this.relative(abs)]: this.hasher.fileHash(abs, file, key) });
  }

  private globbed(key: string, value: unknown, out: Record<string, string>[]): void {
    const patterns = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((p): p is string => typeof p === "string") : [];
    if (patterns.length === 0) return;
    const found = dict<string>();
    for (const [rel, hash] of Object.entries(this.hasher.hash(patterns, key))) {
      const abs = path.resolve(this.workflow.dir, rel);
      if (!this.excluded.has(abs) && !this.inStateDir(abs)) found[this.relative(abs)] = hash;
    }
    out.push(found);
  }

  private inStateDir(abs: string): boolean {
    return this.options.excludeDir !== undefined && isInside(this.options.excludeDir, abs);
  }

  /** The component name of a file: its path relative to the workflow file's directory, with `/`. */
  private relative(abs: string): string {
    return path.relative(this.workflow.dir, abs).split(path.sep).join("/");
  }
}

/** The files of several sources as one mapping sorted by path: the one source itself when there is only one (a command's, shared). */
function combined(records: readonly Record<string, string>[]): Record<string, string> {
  const filled = records.filter((r) => Object.keys(r).length > 0);
  if (filled.length === 1 && Object.isFrozen(filled[0])) return filled[0]!;
  const out = dict<string>();
  for (const record of filled) Object.assign(out, record);
  return sortedObject(out);
}

/** guard_config.guards of a composite guard, in the forms it accepts: a name, or {guard, guard_config}. */
function guardList(value: unknown): GuardRef[] {
  if (!Array.isArray(value)) return [];
  const refs: GuardRef[] = [];
  for (const item of value) {
    if (typeof item === "string") refs.push({ guard: item, guard_config: {} });
    else if (item !== null && typeof item === "object" && typeof (item as { guard?: unknown }).guard === "string") {
      const { guard, guard_config } = item as { guard: string; guard_config?: unknown };
      const config = guard_config !== null && typeof guard_config === "object" && !Array.isArray(guard_config) ? guard_config : {};
      refs.push({ guard, guard_config: config as GuardRef["guard_config"] });
    }
  }
  return refs;
}
