/**
 * Turns the texts of a workflow file and its prompts file (YAML or JSON) into a workflow and its
 * dependency graph: validates them against the JSON Schemas in schemas/, checks the dependency
 * graph, and reports every problem of both files at once, each at its file:line:column.
 *
 * Pure: files are reached only through the ConfigFiles given, and every path is resolved against
 * the absolute directories given, never the process's working directory. Finding the files on disk
 * is src/workspace/load.ts's work.
 */
import path from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { fastYamlValue } from "./yamlFast.js";
import { promptsValidator, workflowValidator } from "./validators.js";
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
  type Document,
  type Node,
  type Pair as YAMLPair,
  type Tags,
  type YAMLMap,
} from "yaml";
import { buildGraph } from "../graph/graph.js";
import { expandForeach, templatePath, type Glob } from "./foreach.js";
import { type Graph } from "../model/graph.js";
import { isInside, lockFileOf, reservedOutput } from "./paths.js";
import { plain, PyFloat, type CanonicalValue } from "../model/values.js";
import { didYouMean } from "../model/text.js";
import { dict, own } from "../model/dict.js";
import { ConfigError, sortIssues, type ConfigIssue } from "../model/errors.js";
import { DEFAULT_RMAX, type GuardRef, type ModelPrice, type Pair, type PromptEntry, type Workflow } from "../model/workflow.js";

export const WORKFLOW_NAMES = ["workflow.yml", "workflow.yaml", "workflow.json"];
export const PROMPTS_NAMES = ["prompts.yml", "prompts.yaml", "prompts.json"];

/** The files the parser may look at, by absolute path. */
export interface ConfigFiles {
  /**
   * The file's text; throws an Error saying why when it cannot be read (missing, a directory, a
   * pipe or device, too large, not permitted), in words that never quote the file.
   */
  read(file: string): string;
  /** Whether a file or directory exists at the path. */
  exists(file: string): boolean;
  /** The files matching globs (exclusions start with "!"), relative to cwd: what `foreach` takes (src/config/foreach.ts). */
  glob?: Glob;
  /** What is at the path once symbolic links are followed, and its real path; read nothing. */
  stat(file: string): FileKind;
}

/** What a path leads to: nothing, or a regular file, a directory or anything else (a pipe, a device, a socket) at its real path. */
export type FileKind = { kind: "missing" } | { kind: "file" | "directory" | "other"; real: string };

/**
 * What is wrong with a path the configuration names as a file to read, or undefined: it must lead,
 * after symbolic links, to a regular file inside the repository (realRoot: the repository's real
 * path). Nothing is read, so no message can show the file's contents. A missing path is the
 * caller's to report.
 */
export function namedFileProblem(files: ConfigFiles, file: string, realRoot: string, expect: "file" | "directory" = "file"): string | undefined {
  const found = files.stat(file);
  if (found.kind === "missing") return undefined;
  if (!isInside(realRoot, found.real)) return `leads to ${found.real}, outside the repository (${realRoot}); pairflow reads only files inside it`;
  if (found.kind === expect) return undefined;
  if (found.kind === "directory") return "is a directory; give the path of a file";
  if (found.kind === "file") return "is a file; give the path of a directory";
  return `is not a regular ${expect} (a pipe, a device or a socket); give the path of a ${expect}`;
}

/** The repository's path with symbolic links resolved, as namedFileProblem compares real paths with it. */
export function realRootOf(files: ConfigFiles, root: string): string {
  const found = files.stat(root);
  return found.kind === "missing" ? root : found.real;
}

export interface ParseOptions {
  files: ConfigFiles;
  /** Absolute directory that paths in messages are shown relative to (when inside it). */
  cwd: string;
  /** Absolute path of the repository holding the workflow: outputs and inputs stay inside it. */
  root: string;
}

export interface Loaded {
  workflow: Workflow;
  graph: Graph;
  /** Problems that do not stop a load (severity "warning"): keys ignored, settings not honoured. */
  warnings: ConfigIssue[];
  /** "reference" for a workflow.json (see isReferenceFormat), else "pairflow". */
  format: Format;
  /** The parsed files, for checks that point at their lines. */
  sources: { workflow: SourceFile; prompts?: SourceFile };
}

export type Format = "reference" | "pairflow";

/**
 * A workflow file in the reference framework's format: JSON named workflow.json. Its prompts file
 * goes with it. Such files are read as the framework reads them: keys pairflow does not know are
 * warnings and ignored, where in pairflow's own files (YAML, or JSON under another name) they are
 * errors. A near miss of a known key is an error in both.
 */
export function isReferenceFormat(workflowPath: string): boolean {
  return path.basename(workflowPath) === "workflow.json";
}

/** Keys of the reference framework that pairflow accepts and ignores, left out of "expected one of" lists. */
const REFERENCE_ONLY = new Set([
  "provider",
  "output_type",
  "r_patience",
  "e_max",
  "escalate_feedback_to",
  "escalate_feedback_by_guard",
  "escalation",
  "escalation_by_guard",
  "escalation_feedback_wrapper",
]);

/** The reference framework's escalation settings, which pairflow accepts and does not honour. */
export const ESCALATION_KEYS = ["r_patience", "e_max", "escalate_feedback_to", "escalate_feedback_by_guard", "escalation", "escalation_by_guard"];

/** A parsed file, kept so that later checks can point at its lines. */
export interface SourceFile {
  /** Path as shown to people (relative to the working directory when inside it). */
  display: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** The file's value when read by the fast path (yamlFast.ts); doc and lines are then parsed on first use. */
  fastValue?: Record<string, unknown>;
  /** fastValue is its own plain value (see plainOf). */
  fastPlain?: boolean;
}

/**
 * The workflow at workflowPath (absolute, or relative to cwd) with its prompts file: the one the
 * workflow names, else the one beside it. Throws ConfigError listing every problem.
 */
export function parseWorkflow(workflowPath: string, options: ParseOptions): Loaded {
  const { files, cwd, root } = options;
  // path.resolve and path.relative would complete relative ones with the process's working directory.
  if (!path.isAbsolute(cwd) || !path.isAbsolute(root)) throw new Error(`parseWorkflow: cwd and root must be absolute paths (got "${cwd}" and "${root}")`);
  workflowPath = path.resolve(cwd, workflowPath);
  const dir = path.dirname(workflowPath);
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const format: Format = isReferenceFormat(workflowPath) ? "reference" : "pairflow";
  const reference = format === "reference";

  const wfFile = readSource(workflowPath, options, issues);
  // Hashable values keep the source's number forms (PyFloat); validators see plain numbers.
  const hashable = ((wfFile ? valueOf(wfFile, issues) : {}) ?? {}) as Record<string, unknown>;
  const wfValue = plainOf(hashable, wfFile);
  if (wfFile) validate(workflowValidator(), wfValue, wfFile, issues, reference ? warnings : undefined);
  const wf = isObject(wfValue) ? wfValue : {};

  // The prompts file: named by the workflow, else the one beside it.
  const realRoot = realRootOf(files, root);
  let promptsPath: string | null = null;
  if (typeof wf.prompts === "string") {
    promptsPath = path.resolve(dir, wf.prompts);
    const problem = namedFileProblem(files, promptsPath, realRoot);
    if (problem !== undefined && wfFile) {
      issues.push(at(wfFile, ["prompts"], `"${wf.prompts}" ${problem}`));
      promptsPath = null;
    } else if (!files.exists(promptsPath) && wfFile) {
      issues.push(
        at(
          wfFile,
          ["prompts"],
          `file "${wf.prompts}" not found (looked for ${displayPath(promptsPath, cwd)}); fix the path or remove the key to use ${PROMPTS_NAMES.join(", ")} beside the workflow`,
        ),
      );
      promptsPath = null;
    }
  } else {
    const found = PROMPTS_NAMES.filter((name) => files.exists(path.join(dir, name)));
    if (found.length > 1 && wfFile) {
      issues.push(at(wfFile, [], `several prompts files beside the workflow (${found.join(", ")}); keep one, or name it with "prompts:"`));
    }
    promptsPath = found.length > 0 ? path.join(dir, found[0]!) : null;
    const problem = promptsPath === null ? undefined : namedFileProblem(files, promptsPath, realRoot);
    if (problem !== undefined && wfFile) {
      issues.push(at(wfFile, [], `the prompts file beside the workflow, ${found[0]}, ${problem}`));
      promptsPath = null;
    }
  }
  const promptsFile = promptsPath ? readSource(promptsPath, options, issues) : undefined;
  const promptsValue = promptsFile ? valueOf(promptsFile, issues) : {};
  const rawPairs = isObject(wf.action_pairs) ? wf.action_pairs : {};
  const ids = Object.keys(rawPairs);
  // Entries are matched with pairs only when there are pairs to match: a workflow that could not be read says so itself.
  const matched = promptsFile !== undefined && wfFile !== undefined && isObject(wf.action_pairs);
  const forNoPair = (key: string) => matched && key !== "$schema" && !Object.hasOwn(rawPairs, key);
  if (promptsFile) {
    // The reference framework shares one prompts file among workflows: entries of other workflows'
    // pairs are theirs to check, and this workflow ignores them (warned about below).
    const checked = plainOf(promptsValue, promptsFile);
    const mine = reference && isObject(checked) ? Object.fromEntries(Object.entries(checked).filter(([key]) => !forNoPair(key))) : checked;
    validate(promptsValidator(), mine, promptsFile, issues, reference ? warnings : undefined);
  }
  const hashablePairs = (isObject(hashable.action_pairs) ? hashable.action_pairs : {}) as Record<string, Record<string, unknown>>;
  const prompts = (isObject(promptsValue) ? promptsValue : {}) as Record<string, unknown>;
  const noPair = (keys: string[]) =>
    `${keys.length === 1 ? "entry" : "entries"} ${quoteList(keys)} ${keys.length === 1 ? "names" : "name"} no pair of ${path.basename(workflowPath)}, and ${keys.length === 1 ? "is" : "are"} ignored`;

  if (matched) {
    const unused: string[] = [];
    for (const key of Object.keys(prompts).filter(forNoPair)) {
      const hint = didYouMean(key, ids);
      if (reference) {
        // Likely another workflow's entry: the reference framework ignores it, and so does pairflow.
        if (hint === undefined) unused.push(key);
        else warnings.push(warning(at(promptsFile, [key], `${noPair([key])}; did you mean "${hint}"?`, true)));
        continue;
      }
      issues.push(
        at(
          promptsFile,
          [key],
          `prompts entry "${key}" names no pair of ${path.basename(workflowPath)}` +
            (hint ? `; did you mean "${hint}"?` : `; pairs are: ${ids.join(", ") || "(none)"}`),
          true,
        ),
      );
    }
    if (unused.length > 0) warnings.push(warning(at(promptsFile, [unused[0]!], noPair(unused), true)));
  }

  const written = new Map<string, Pair>();
  let pairs = written;
  for (const id of ids) {
    pairs.set(id, toPair(id, { value: objectOr(own(rawPairs, id)), hashable: own(hashablePairs, id) ?? {} }, { value: wf, hashable }, own(prompts, id)));
  }
  if (wfFile) {
    pairs = expandForeach(pairs, rawPairs, {
      dir,
      root,
      workflowPath,
      glob: files.glob,
      read: (file) => files.read(path.resolve(dir, file)),
      error: (keyPath, message, onKey) => issues.push(at(wfFile, keyPath, message, onKey)),
      warn: (keyPath, message, onKey) => warnings.push(warning(at(wfFile, keyPath, message, onKey))),
      promptError: (keyPath, message) => issues.push(promptsFile ? at(promptsFile, keyPath, message) : at(wfFile, ["action_pairs", keyPath[0]!], message)),
    });
  }

  // Pairs share a few globs: each is checked once.
  const where = { dir, root, realRoot, workflowPath, problems: new Map<string, string | undefined>() };
  if (wfFile) for (const pair of pairs.values()) checkPaths(pair, where, files, wfFile, issues);

  const { graph, issues: graphIssues } = buildGraph([...pairs.values()]);
  // The instances of a foreach pair share its lines: each problem once.
  const graphProblems = new Map(graphIssues.map((g) => [`${templatePath(g.path, pairs, written).join("\0")}\0${g.message}`, g]));
  if (wfFile) for (const g of graphProblems.values()) issues.push(at(wfFile, templatePath(g.path, pairs, written), g.message));

  if (issues.length > 0 || !graph) throw new ConfigError(sortIssues(issues));

  const escalates = (id: string, key: string) => Object.hasOwn(objectOr(own(rawPairs, id)), key);
  const escalating = ids.filter((id) => ESCALATION_KEYS.some((key) => escalates(id, key)));
  if (wfFile && escalating.length > 0) {
    const first = ESCALATION_KEYS.find((key) => escalates(escalating[0]!, key))!;
    warnings.push(
      warning(
        at(
          wfFile,
          ["action_pairs", escalating[0]!, first],
          `pairflow does not honour the reference framework's escalation settings (${ESCALATION_KEYS.join(", ")}) of ${escalating.length === 1 ? "pair" : "pairs"} ${quoteList(escalating)}: a rejected attempt is retried up to rmax times, and feedback is never escalated to other pairs`,
          true,
        ),
      ),
    );
  }

  const workflow: Workflow = {
    name: String(wf.name),
    description: optionalString(wf.description),
    specification: optionalString(wf.specification),
    constraints: optionalString(wf.constraints),
    path: workflowPath,
    dir,
    root,
    promptsPath,
    pairs,
    pricing: pricingOf(wf.pricing),
  };
  return { workflow, graph, warnings: sortIssues(warnings), format, sources: { workflow: wfFile!, prompts: promptsFile } };
}

function warning(issue: ConfigIssue): ConfigIssue {
  return { ...issue, severity: "warning" };
}

export function quoteList(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(", ");
}

/**
 * A mapping twice over: `value` is what the schema validated, and what everything used at run time
 * is read from (`rmax: 1.0` is the number 1 there); `hashable` is the same mapping with the
 * source's number forms kept (PyFloat), read only for what goes into a configRef.
 */
interface Both {
  value: Record<string, unknown>;
  hashable: Record<string, unknown>;
}

function toPair(id: string, pair: Both, wf: Both, prompt: unknown): Pair {
  const raw = pair.value;
  const pairGenerator = optionalString(raw.generator);
  const wfGenerator = optionalString(wf.value.generator);
  const generator = pairGenerator ?? wfGenerator ?? null;
  // Workflow-level generator_config holds defaults for the workflow's generator; a pair that names
  // another generator does not inherit them.
  const inherits = pairGenerator === undefined || pairGenerator === wfGenerator;
  const generatorConfig = {
    ...(inherits ? objectOr(wf.hashable.generator_config) : {}),
    ...objectOr(pair.hashable.generator_config),
  } as Record<string, CanonicalValue>;
  const rmax = raw.rmax ?? wf.value.rmax;
  return {
    id,
    description: optionalString(raw.description),
    requires: Array.isArray(raw.requires) ? raw.requires.filter((r): r is string => typeof r === "string") : [],
    guard: optionalString(raw.guard) ?? null,
    guardConfig: objectOr(pair.hashable.guard_config) as Record<string, CanonicalValue>,
    guards: Array.isArray(pair.hashable.guards) ? pair.hashable.guards.map(toGuardRef) : undefined,
    generator,
    generatorConfig,
    model: optionalString(raw.model) ?? optionalString(wf.value.model) ?? null,
    rmax: typeof rmax === "number" ? rmax : DEFAULT_RMAX,
    ...maxOutputBytes(wf.value.max_output_bytes),
    ...((raw.fresh ?? wf.value.fresh) === true ? { fresh: true } : {}),
    ...((raw.carry_edits ?? wf.value.carry_edits) === true ? { carryEdits: true } : {}),
    ...((raw.adopt_existing ?? wf.value.adopt_existing) === true ? { adoptExisting: true } : {}),
    output: optionalString(raw.output),
    inputs: Array.isArray(raw.inputs) ? raw.inputs.filter((r): r is string => typeof r === "string") : [],
    prompt: isObject(prompt) ? (prompt as PromptEntry) : undefined,
  };
}

/** `max_output_bytes`, when set: a runtime limit, never part of a configRef. */
function maxOutputBytes(value: unknown): { maxOutputBytes?: number } {
  return typeof value === "number" ? { maxOutputBytes: value } : {};
}

/** `pricing:` as validated by the schema: {model: {input, output, cached_input?, cache_write?, batch_discount?}}. */
function pricingOf(value: unknown): Record<string, ModelPrice> {
  const pricing = dict<ModelPrice>();
  for (const [model, price] of Object.entries(objectOr(value))) {
    const p = objectOr(price);
    if (typeof p.input !== "number" || typeof p.output !== "number") continue;
    pricing[model] = {
      input: p.input,
      output: p.output,
      ...(typeof p.cached_input === "number" ? { cachedInput: p.cached_input } : {}),
      ...(typeof p.cache_write === "number" ? { cacheWrite: p.cache_write } : {}),
      ...(typeof p.batch_discount === "number" ? { batchDiscount: p.batch_discount } : {}),
    };
  }
  return pricing;
}

function toGuardRef(item: unknown): GuardRef {
  if (typeof item === "string") return { guard: item, guard_config: {} };
  const obj = objectOr(item);
  return { guard: String(obj.guard), guard_config: objectOr(obj.guard_config) as Record<string, CanonicalValue> };
}

/**
 * `output` and `inputs` stay inside the repository, after symbolic links as far as they exist, and
 * an output out of the places git and pairflow keep their own files (reservedOutput); a literal
 * input path must be a file that exists. What is on disk at an output (a directory, a link)
 * is src/workspace/load.ts's to check.
 */
function checkPaths(
  pair: Pair,
  where: { dir: string; root: string; realRoot: string; workflowPath: string; problems: Map<string, string | undefined> },
  files: ConfigFiles,
  file: SourceFile,
  issues: ConfigIssue[],
): void {
  const { dir, root, realRoot, workflowPath, problems } = where;
  // What is wrong with a glob, found once per glob and mustExist.
  const problemOf = (pattern: string, mustExist: boolean) => {
    const key = `${mustExist ? "1" : "0"}${pattern}`;
    if (problems.has(key)) return problems.get(key);
    const problem = inputProblem(pattern, dir, root, realRoot, files, mustExist);
    problems.set(key, problem);
    return problem;
  };
  const keyPath = ["action_pairs", pair.template ?? pair.id];
  // An instance's own file (its first input) was matched by its glob: it exists and is inside.
  const own = pair.itemFile ? 1 : 0;
  if (pair.output !== undefined) {
    const target = path.resolve(dir, pair.output);
    const problem = !isInside(root, target)
      ? `is outside the repository (${root}); give a path inside it, relative to the workflow file`
      : reservedOutput(target, { root, lockFile: lockFileOf(workflowPath) });
    if (problem !== undefined) issues.push(at(file, [...keyPath, "output"], `"${pair.output}" ${problem}`));
  }
  pair.inputs.forEach((pattern, i) => {
    if (pattern.startsWith("!")) return; // an exclusion only narrows the matches
    if (i < own) return;
    const problem = problemOf(pattern, true);
    if (problem !== undefined) issues.push(at(file, [...keyPath, "inputs", i - own], `"${pattern}" ${problem}`));
  });
  // The files generators and guards read (src/workspace/pairFiles.ts hashes them): `files` globs, and a schema_file.
  // Where a problem is reported is looked up only when there is one: the positioned document is
  // parsed only for files that have something to point at (src/config/yamlFast.ts).
  const globs = (value: unknown, where: (string | number)[] | (() => (string | number)[])) => {
    const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    list.forEach((pattern, i) => {
      if (typeof pattern !== "string" || pattern.startsWith("!")) return;
      const problem = problemOf(pattern, false);
      if (problem === undefined) return;
      const place = typeof where === "function" ? where() : where;
      issues.push(at(file, typeof value === "string" ? place : [...place, i], `"${pattern}" ${problem}`));
    });
  };
  const generatorConfig = pair.generatorConfig as Record<string, unknown>;
  globs(generatorConfig.files, () =>
    file.doc.hasIn([...keyPath, "generator_config", "files"]) ? [...keyPath, "generator_config", "files"] : ["generator_config", "files"],
  );
  const guard = (
    name: string | null,
    config: Record<string, unknown>,
    where: (string | number)[],
    subs: GuardRef[] | undefined,
    subsAt: (string | number)[],
    depth: number,
  ) => {
    globs(config.files, [...where, "files"]);
    if (name === "json_schema" && typeof config.schema_file === "string" && config.schema_file !== "") {
      const named = path.resolve(dir, config.schema_file);
      const problem = !isInside(root, named)
        ? `is outside the repository (${root}); give a path inside it, relative to the workflow file`
        : namedFileProblem(files, named, realRoot);
      if (problem !== undefined) issues.push(at(file, [...where, "schema_file"], `"${config.schema_file}" ${problem}`));
    }
    if (name !== "composite" || depth >= 16) return;
    const list = subs ?? (Array.isArray(config.guards) ? config.guards.map(toGuardRef) : []);
    const listAt = subs ? subsAt : [...where, "guards"];
    list.forEach((sub, i) => guard(sub.guard, objectOr(sub.guard_config), [...listAt, i, "guard_config"], undefined, [], depth + 1));
  };
  guard(pair.guard, pair.guardConfig as Record<string, unknown>, [...keyPath, "guard_config"], pair.guards, [...keyPath, "guards"], 0);
}

/** What is wrong with one `inputs` glob, or undefined; a literal path must exist unless mustExist is false. */
function inputProblem(pattern: string, dir: string, root: string, realRoot: string, files: ConfigFiles, mustExist = true): string | undefined {
  const outside = `reaches outside the repository (${root}); inputs are globs relative to the workflow file, inside the repository`;
  if (pattern === "" || pattern.includes("\0")) return "is not a path; write a glob relative to the workflow file";
  if (path.isAbsolute(pattern) || pattern.startsWith("~")) return outside;
  // Wildcards, classes, braces and extglobs begin where the first of these characters is.
  const special = pattern.search(/[*?[\]{}()]/);
  // After one, ".." could climb anywhere (a brace may even hide it: {../x,y}): only the fixed start may hold it.
  if (special !== -1 && pattern.slice(special).includes("..")) {
    return `has ".." after a wildcard or brace, which could reach outside the repository; put any ".." before the first wildcard`;
  }
  const fixed = path.resolve(dir, special === -1 ? pattern : pattern.slice(0, pattern.lastIndexOf("/", special) + 1));
  if (!isInside(root, fixed)) return outside;
  // The fixed start, as far as it exists, must stay inside after symbolic links.
  let existing = fixed;
  while (files.stat(existing).kind === "missing" && isInside(root, path.dirname(existing)) && path.dirname(existing) !== existing)
    existing = path.dirname(existing);
  const found = files.stat(existing);
  if (found.kind !== "missing" && !isInside(realRoot, found.real)) return `leads to ${found.real}, outside the repository (${realRoot}); inputs stay inside it`;
  // Nothing can be under a file: a glob would fail to list it.
  const under = path.relative(root, existing) || ".";
  if ((found.kind === "file" || found.kind === "other") && existing !== fixed) return `is under ${under}, which is a file, not a directory; fix the path`;
  if (found.kind !== "directory" && found.kind !== "missing" && special !== -1) return `starts at ${under}, which is a file, not a directory; fix the path`;
  if (special !== -1) return undefined;
  if (found.kind === "missing" || existing !== fixed) {
    if (!mustExist) return undefined;
    return "does not exist (inputs are relative to the workflow file); fix the path, or write a glob if the file may be absent";
  }
  if (found.kind === "directory") return `is a directory; inputs name files: write "${pattern.replace(/\/+$/, "")}/**" for every file under it`;
  if (found.kind === "other") return "is not a regular file (a pipe, a device or a socket); inputs name files";
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Parsing with positions

/**
 * YAML's core schema, with numbers kept as the reference implementation (Python's json module)
 * keeps them, so that they hash as it writes them:
 * - a float written with an integral value (`1.0`, `2e3`) stays a float (PyFloat), hashed as `1.0`,
 *   not `1`;
 * - an integer outside JavaScript's safe range (2^53 and beyond) is a BigInt holding its exact
 *   value, hashed digit for digit as Python writes its integers, where a number would round (and
 *   9007199254740993 would hash as 9007199254740992).
 */
function pythonNumbers(tags: Tags): Tags {
  return tags.map((tag) => {
    if (typeof tag !== "object" || !tag.resolve) return tag;
    const resolve = tag.resolve as (value: string, onError: unknown, options: object) => unknown;
    if (tag.tag === "tag:yaml.org,2002:float") {
      return {
        ...tag,
        resolve(value: string, onError: unknown, options: object) {
          const resolved = resolve(value, onError, options);
          const n = typeof resolved === "number" ? resolved : isScalar(resolved) ? resolved.value : undefined;
          return typeof n === "number" && Number.isInteger(n) ? (new PyFloat(n) as never) : resolved;
        },
      } as typeof tag;
    }
    if (tag.tag === "tag:yaml.org,2002:int") {
      return {
        ...tag,
        resolve(value: string, onError: unknown, options: object) {
          const n = resolve(value, onError, { ...options, intAsBigInt: false });
          return typeof n === "number" && !Number.isSafeInteger(n) ? resolve(value, onError, { ...options, intAsBigInt: true }) : n;
        },
      } as typeof tag;
    }
    return tag;
  });
}

/** The file read through files and parsed; a file that cannot be read is an issue at its line 1. */
function readSource(file: string, options: Pick<ParseOptions, "files" | "cwd">, issues: ConfigIssue[]): SourceFile | undefined {
  const { files, cwd } = options;
  const display = displayPath(file, cwd);
  let text: string;
  try {
    text = files.read(file);
  } catch (err) {
    issues.push({ file: display, line: 1, column: 1, key: "", message: `cannot read: ${(err as Error).message}` });
    return undefined;
  }
  return parseText(text, display, issues);
}

/**
 * YAML or JSON text parsed with positions, named display in issues. Syntax errors, duplicate keys
 * and values that have no JSON form go to issues, and then there is no file.
 *
 * Every value must hash as what it is, and a hash is of JSON. So the text is read as YAML 1.2 with
 * its core schema, the one JSON is a subset of (an unquoted 2024-01-01 is text there, as a quoted
 * one must be in JSON; the reference implementation, Python's json module, could not write the date
 * PyYAML would make of it). Whatever that schema has no JSON value for is an error at its place
 * rather than something hashed as `{}` or as text it is not: tags other than the core ones
 * (`!!timestamp`, `!!set`, `!!omap`, `!!binary`, local tags), a `%YAML 1.1` document, and keys
 * that are not text, integers or booleans.
 */
export function parseText(text: string, display: string, issues: ConfigIssue[]): SourceFile | undefined {
  const tooDeep = nestingProblem(text, display);
  if (tooDeep) {
    issues.push(tooDeep);
    return undefined;
  }
  const fast = fastYamlValue(text, YAML_OPTIONS);
  // The copy js-yaml's values hold is kept, rather than the text as read: one copy, not two.
  if (fast !== undefined) return lazySource(fast.text, display, fast.value, fast.plain);
  const { doc, lines } = parsePositioned(text);
  const source: SourceFile = { display, doc, lines };
  const reported = new Set<string>();
  for (const err of doc.errors) {
    const [line, column] = position(lines, err.pos[0]);
    // One problem often trips the parser several times on a line; the first says it.
    if (reported.has(`${line}:${err.code}`)) continue;
    reported.add(`${line}:${err.code}`);
    issues.push({ file: display, line, column, key: "", message: parseMessage(err.code, err.message) });
  }
  if (doc.errors.length > 0) return undefined;
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version === "1.1") {
    const [line, column] = position(lines, /^%YAML/m.exec(text)?.index ?? 0);
    const message =
      "pairflow reads YAML 1.2 (as JSON is read), where yes/no/on/off and dates are text and 0777 is a decimal; " +
      "remove the %YAML 1.1 line and write true/false, quoted text and 0o777 where you mean them";
    issues.push({ file: display, line, column, key: "", message });
    return undefined;
  }
  const problems = [...findUnresolvedTags(source), ...findDuplicateKeys(source), ...findAliasProblems(source)];
  issues.push(...problems);
  return problems.length > 0 ? undefined : source;
}

/**
 * Collections nested deeper than any configuration needs. The YAML parser descends recursively, and
 * a file of a few kilobytes of brackets would exhaust the stack: such text is refused first, at the
 * bracket that goes too deep. Brackets inside quoted or block text count as well, an
 * over-estimate no real file comes near.
 */
const MAX_NESTING = 256;

const BRACKET = /[[\]{}]/g;

function nestingProblem(text: string, display: string): ConfigIssue | undefined {
  let depth = 0;
  // The regular expression jumps from bracket to bracket: most of a file has none, and a loop over
  // every character was a few percent of a large plan.
  BRACKET.lastIndex = 0;
  for (let found = BRACKET.exec(text); found !== null; found = BRACKET.exec(text)) {
    const i = found.index;
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_NESTING) {
        const before = text.slice(0, i).split("\n");
        const message = `lists and mappings nested more than ${MAX_NESTING} deep; pairflow's files need a few levels: flatten the structure`;
        return { file: display, line: before.length, column: before[before.length - 1]!.length + 1, key: "", message };
      }
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

/**
 * Values aliases may add to one document once expanded. Aliases are welcome for shared settings,
 * and a workflow has no use for more than a few thousand; an "alias bomb" (aliases of anchors full
 * of aliases, a few lines long) would expand to billions.
 */
export const MAX_ALIAS_EXPANSION = 1_000_000;

/**
 * Aliases that name no anchor before them, that stand for a value containing themselves (which has
 * no JSON form), or that expand the document beyond MAX_ALIAS_EXPANSION values: each an issue at
 * the alias. The count is computed once per node, in linear time, without expanding anything.
 */
function findAliasProblems(file: SourceFile): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const issue = (node: Node, message: string) => {
    const [line, column] = position(file.lines, node.range?.[0] ?? 0);
    issues.push({ file: file.display, line, column, key: "", message });
  };
  // The anchor each alias names: the last one of that name before it, as YAML defines.
  const anchors = new Map<string, Node>();
  const targets = new Map<Node, Node>();
  let written = 0;
  visit(file.doc, {
    Node(_, node) {
      written++;
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target) targets.set(node, target);
        else issue(node, `the alias *${node.source} names no anchor before it; define &${node.source} first, or write the value here`);
      } else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  if (targets.size === 0) return issues;

  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  const recursive = new Set<Node>();
  const size = (node: unknown): number => {
    if (isAlias(node)) {
      const target = targets.get(node);
      if (!target) return 1;
      if (open.has(target)) {
        if (!recursive.has(node)) {
          recursive.add(node);
          issue(node, `the alias *${node.source} stands for a value that contains it, which has no JSON form; write the value out instead`);
        }
        return 1;
      }
      return size(target);
    }
    if (!isMap(node) && !isSeq(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    open.add(node);
    let n = 1;
    for (const item of node.items) n += isPair(item) ? size(item.key) + size(item.value) : size(item);
    open.delete(node);
    sizes.set(node, n);
    return n;
  };
  let expanded: number;
  try {
    expanded = size(file.doc.contents);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    issue(file.doc.contents ?? ({} as Node), "the document is nested too deeply to read; flatten it");
    return issues;
  }
  if (recursive.size === 0 && expanded - written > MAX_ALIAS_EXPANSION) {
    // The alias standing for the most is the one to look at first.
    let worst: Node | undefined;
    let most = 0;
    for (const [alias, target] of targets) {
      const n = size(target);
      if (n > most) [worst, most] = [alias, n];
    }
    issue(
      worst!,
      `aliases expand this document to more than ${MAX_ALIAS_EXPANSION.toLocaleString("en")} values (this one alone to ${most.toLocaleString("en")}), ` +
        "as an alias bomb does; write the shared values with fewer aliases of aliases",
    );
  }
  return issues;
}

// The parser's own duplicate-key check compares each key with every earlier one, which is
// quadratic in a map of thousands of pairs; findDuplicateKeys does the same in linear time.
// resolveKnownTags: false leaves YAML 1.1's !!set, !!omap, !!timestamp, ... unresolved, and so
// reported below, where the parser would make JavaScript Sets, Maps and Dates of them.
const YAML_OPTIONS = { customTags: pythonNumbers, resolveKnownTags: false, prettyErrors: false, uniqueKeys: false } as const;

function parsePositioned(text: string): { doc: Document.Parsed; lines: LineCounter } {
  const lines = new LineCounter();
  return { doc: parseDocument(text, { ...YAML_OPTIONS, lineCounter: lines }), lines };
}

/** A file read by the fast path: its positioned document is parsed only if something points into it. */
function lazySource(text: string, display: string, fastValue: Record<string, unknown>, fastPlain: boolean): SourceFile {
  let positioned: { doc: Document.Parsed; lines: LineCounter } | undefined;
  return {
    display,
    fastValue,
    ...(fastPlain ? { fastPlain } : {}),
    get doc() {
      return (positioned ??= parsePositioned(text)).doc;
    },
    get lines() {
      return (positioned ??= parsePositioned(text)).lines;
    },
  };
}

const CORE_TAGS = new Set(["str", "int", "float", "bool", "null", "map", "seq"].map((name) => `tag:yaml.org,2002:${name}`));

/** Tags the core schema does not know, and values that do not fit the core tag they are given. */
function findUnresolvedTags(file: SourceFile): ConfigIssue[] {
  const warnings = file.doc.warnings.filter((w) => w.code === "TAG_RESOLVE_FAILED");
  if (warnings.length === 0) return [];
  const tagged: { offset: number; tag: string; source: string | undefined }[] = [];
  visit(file.doc, {
    Node(_, node) {
      if (node.tag && node.range) tagged.push({ offset: node.range[0], tag: node.tag, source: isScalar(node) ? node.source : undefined });
    },
  });
  const issues: ConfigIssue[] = [];
  for (const warning of warnings) {
    const tag = warning.message.replace(/^Unresolved tag: /, "");
    const shown = file.doc.directives?.tagString(tag) ?? tag;
    // The node the tag belongs to follows the tag.
    const node = tagged.find((t) => t.offset >= warning.pos[0] && t.tag === tag);
    const [line, column] = position(file.lines, warning.pos[0]);
    const message = CORE_TAGS.has(tag)
      ? `the value does not fit its tag ${shown}; remove the tag, or write a value of that type`
      : `the tag ${shown} is not one of YAML 1.2's core types, so its value has no JSON form to hash; ${tagHint(tag, node?.source)}`;
    issues.push({ file: file.display, line, column, key: "", message });
  }
  return issues;
}

function tagHint(tag: string, source: string | undefined): string {
  switch (tag) {
    case "tag:yaml.org,2002:timestamp":
      return `quote the date (${JSON.stringify(source ?? "2024-01-01")}) to keep it as text`;
    case "tag:yaml.org,2002:set":
      return "write a list ([a, b]) instead";
    case "tag:yaml.org,2002:omap":
    case "tag:yaml.org,2002:pairs":
      return "write a mapping, or a list of mappings, instead";
    default:
      return "remove the tag, or quote the value to keep it as text";
  }
}

/**
 * What a mapping key is when it has no JSON form: a JSON key is text, and Python's json module
 * writes integer and boolean keys as their text, as pairflow does; null, float and collection
 * keys it writes otherwise or not at all.
 */
function keyProblem(key: unknown, doc: Document.Parsed): { what: string; source?: string } | undefined {
  const node = isAlias(key) ? key.resolve(doc) : key;
  if (node === null || node === undefined) return { what: "null" };
  if (isMap(node)) return { what: "a mapping" };
  if (isSeq(node)) return { what: "a list" };
  if (!isScalar(node)) return undefined;
  if (node.value === null) return { what: "null", source: node.source ?? "null" };
  const value = node.value;
  if (value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value))) return { what: "a float", source: node.source };
  return undefined;
}

function findDuplicateKeys(file: SourceFile): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  visit(file.doc, {
    Map(_, map) {
      const first = new Map<string, number>();
      for (const item of map.items) {
        const problem = keyProblem(item.key, file.doc);
        if (problem) {
          const node = (item.key ?? item.value ?? map) as Node;
          const [line, column] = position(file.lines, node.range?.[0] ?? 0);
          const fix = problem.source === undefined ? "write a text key" : `quote it (${JSON.stringify(problem.source)}) to keep it as text`;
          issues.push({ file: file.display, line, column, key: "", message: `YAML reads this key as ${problem.what}, and a JSON key is text; ${fix}` });
          continue;
        }
        if (!isScalar(item.key)) continue;
        const key = String(item.key.value);
        const offset = item.key.range?.[0] ?? 0;
        const seen = first.get(key);
        if (seen === undefined) {
          first.set(key, offset);
          continue;
        }
        const [line, column] = position(file.lines, offset);
        const message = `duplicate key "${key}" (first at line ${position(file.lines, seen)[0]}); each key, and each pair id, may appear once`;
        issues.push({ file: file.display, line, column, key: "", message });
      }
    },
  });
  return issues;
}

/**
 * plain(value) of a file's value: the value itself when the fast path found nothing in it that
 * plain() would change, which spares a walk of every mapping and list of a large file.
 */
function plainOf(value: unknown, file: SourceFile | undefined): unknown {
  return file?.fastPlain === true && value === file.fastValue ? value : plain(value);
}

/** The file's value as plain data; an empty file is an empty mapping. */
function valueOf(file: SourceFile, issues: ConfigIssue[]): unknown {
  if (file.fastValue !== undefined) return file.fastValue;
  if (file.doc.contents === null) return {};
  try {
    // findAliasProblems has bounded what the aliases expand to.
    return file.doc.toJS({ maxAliasCount: -1 });
  } catch (err) {
    issues.push({ file: file.display, line: 1, column: 1, key: "", message: `${(err as Error).message}; use fewer aliases (*name) of large anchors` });
    return undefined;
  }
}

function parseMessage(code: string, message: string): string {
  const text = message.replace(/ at line \d+, column \d+.*$/s, "");
  if (code === "BLOCK_AS_IMPLICIT_KEY") return `${text}; if this value is text containing ": ", put it in quotes or use a block scalar (|)`;
  return text;
}

function position(lines: LineCounter, offset: number): [number, number] {
  const { line, col } = lines.linePos(offset);
  return [line, col];
}

/** The node at a key path, or the nearest existing ancestor. */
function locate(file: SourceFile, keyPath: readonly (string | number)[], onKey: boolean): [number, number] {
  let node: Node | null = file.doc.contents;
  let keyNode: Node | null = null;
  for (const key of keyPath) {
    if (isMap(node)) {
      const pair = entryOf(node, String(key));
      if (!pair) break;
      keyNode = pair.key as Node;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof key === "number") {
      keyNode = null;
      node = (node.items[key] as Node | undefined) ?? null;
    } else {
      break;
    }
  }
  const target = (onKey && keyNode) || node || keyNode;
  return position(file.lines, target?.range?.[0] ?? 0);
}

/**
 * A mapping's first entry with the key. Each mapping is indexed once, on the first lookup: a
 * lookup per problem that scanned the mapping made reporting a problem in each of n entries (a
 * lock file of 50,000 damaged entries) quadratic.
 */
function entryOf(map: YAMLMap, key: string): YAMLPair | undefined {
  let index = keyIndexes.get(map);
  if (index === undefined) {
    index = new Map();
    for (const item of map.items) {
      if (!isPair(item) || !isScalar(item.key)) continue;
      const name = String(item.key.value);
      if (!index.has(name)) index.set(name, item);
    }
    keyIndexes.set(map, index);
  }
  return index.get(key);
}

const keyIndexes = new WeakMap<YAMLMap, Map<string, YAMLPair>>();

/** An issue at the value at keyPath in file (at its key, with onKey), or at its nearest existing ancestor. */
export function issueAt(file: SourceFile, keyPath: readonly (string | number)[], message: string, onKey = false): ConfigIssue {
  return at(file, keyPath, message, onKey);
}

function at(file: SourceFile, keyPath: readonly (string | number)[], message: string, onKey = false): ConfigIssue {
  const [line, column] = locate(file, keyPath, onKey);
  return { file: file.display, line, column, key: keyPath.join("."), message };
}

/** file as shown to people: relative to cwd when inside it, else as given. */
export function displayPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  if (rel === "") return ".";
  return !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

// ---------------------------------------------------------------------------------------------
// Schema validation

/**
 * Schema problems go to issues. With ignored (a reference-format file), unknown keys that are no
 * near miss of a known one are not problems: they are listed in one warning added to ignored.
 */
function validate(check: ValidateFunction, value: unknown, file: SourceFile, issues: ConfigIssue[], ignored?: ConfigIssue[]): void {
  if (check(value)) return;
  const errors = check.errors ?? [];
  const unknown: ConfigIssue[] = [];
  // An anyOf failure explains itself; the failures of its branches would only repeat it.
  // Schema paths, not places in the file: a few, however many values fail them.
  const anyOfPaths = [...new Set(errors.filter((e) => e.keyword === "anyOf").map((e) => e.schemaPath))];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === "propertyNames") continue; // its "pattern" error already names the key
    if (anyOfPaths.some((p) => error.schemaPath !== p && error.schemaPath.startsWith(p.replace(/anyOf$/, "anyOf/")))) continue;
    const issue = describe(error, value, file);
    const id = `${issue.line}:${issue.column}:${issue.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (ignored && error.keyword === "additionalProperties" && !isNearMiss(error)) unknown.push(issue);
    else issues.push(issue);
  }
  if (ignored && unknown.length > 0) {
    const first = sortIssues(unknown)[0]!;
    const keys = [...new Set(unknown.map((u) => u.key))];
    ignored.push({
      ...first,
      key: "",
      severity: "warning",
      message: `${keys.length === 1 ? "key" : "keys"} ${quoteList(keys)} unknown to pairflow, ignored (as the reference framework ignores keys it does not use)`,
    });
  }
}

/** An additionalProperties error for a key close to one the schema knows: a likely typo. */
function isNearMiss(error: ErrorObject): boolean {
  const parent = error.parentSchema as { properties?: object };
  return didYouMean(String((error.params as Record<string, unknown>).additionalProperty), Object.keys(parent.properties ?? {})) !== undefined;
}

function describe(error: ErrorObject, root: unknown, file: SourceFile): ConfigIssue {
  const keyPath = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s, i, all) => (Array.isArray(valueAt(root, all.slice(0, i))) ? Number(s) : s));
  const found = valueAt(root, keyPath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const parent = error.parentSchema as { properties?: object; patternProperties?: object };
      const known = Object.keys(parent.properties ?? {}).filter((k) => k !== "$schema");
      const allowed = known.filter((k) => !REFERENCE_ONLY.has(k));
      const hint = didYouMean(key, known);
      const notes = parent.patternProperties && "^x-" in parent.patternProperties ? ' (or an "x-" key for notes of your own)' : "";
      return at(
        file,
        [...keyPath, key],
        `unknown key "${key}"` + (hint ? `; did you mean "${hint}"?` : "") + `; expected one of: ${allowed.join(", ")}${notes}`,
        true,
      );
    }
    case "required":
      return at(file, keyPath, `missing required key "${String(p.missingProperty)}"`);
    case "type":
      return at(file, keyPath, `found ${describeValue(found)}; expected ${String(p.type).replace(",", " or ")}`);
    case "pattern":
      if (p.propertyName !== undefined || error.propertyName !== undefined) {
        const name = String(error.propertyName ?? p.propertyName);
        return at(
          file,
          [...keyPath, name],
          `"${name}" is not a valid pair id; use letters, digits, "_", "." and "-" (up to 128), not starting with "." or "-"`,
          true,
        );
      }
      return at(file, keyPath, `found ${describeValue(found)}; expected a valid pair id (letters, digits, "_", "." and "-")`);
    case "anyOf":
      return at(file, keyPath, `found ${describeValue(found)}; expected a guard name, or a mapping with "guard" and optional "guard_config"`);
    case "uniqueItems":
      return at(file, keyPath, `lists the same entry twice (items ${String(p.j)} and ${String(p.i)}); list each once`);
    case "minProperties":
      return at(file, keyPath, `is empty; expected at least one entry`);
    default:
      return at(file, keyPath, `found ${describeValue(found)}; expected a value that ${error.message ?? "matches the schema"}`);
  }
}

function valueAt(root: unknown, keyPath: readonly (string | number)[]): unknown {
  let v = root;
  for (const k of keyPath) v = v === null || typeof v !== "object" || !Object.hasOwn(v, k) ? undefined : (v as Record<string, unknown>)[k];
  return v;
}

function describeValue(v: unknown): string {
  if (v === null || v === undefined) return "nothing (null)";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  const text = JSON.stringify(v);
  return `${typeof v === "string" ? "the text" : `the ${typeof v}`} ${text.length > 60 ? text.slice(0, 57) + "..." : text}`;
}

// ---------------------------------------------------------------------------------------------

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
}

function objectOr(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}

function optionalString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
