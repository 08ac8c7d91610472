/**
 * `foreach`: a pair written once that stands for one pair per file of a glob or per value of a
 * list (docs/foreach.md). Expansion happens while loading, so that everything after it (graph,
 * plan, run, lock file, reports) sees only ordinary pairs.
 *
 * Each instance is the template with its placeholders ({file}, {dir}, {name}, {stem}, {ext},
 * {value}, {item}) replaced, its id is `template[item]`, and an instance over a file has that file
 * as its first input, so editing it changes that instance's configRef and no other.
 *
 * Pure: files are listed only through the glob given by the caller.
 */
import path from "node:path";
import fg from "fast-glob";
import { PyFloat, type CanonicalValue } from "../model/values.js";
import { dict, own } from "../model/dict.js";
import type { GuardRef, Pair, PromptEntry, SplitSpec } from "../model/workflow.js";
import { ASSEMBLE, splitText } from "./split.js";
import { escapeGlob, isInside } from "./paths.js";

type Key = string | number;

/** Lists files: paths matched by the globs (exclusions start with "!"), relative to cwd, "/"-separated. */
export type Glob = (patterns: readonly string[], cwd: string) => string[];

export interface ForeachContext {
  /** The workflow file's directory: globs and outputs are relative to it. */
  dir: string;
  root: string;
  /** Absolute path of the workflow file (its lock file is never an item). */
  workflowPath: string;
  glob: Glob | undefined;
  /** A file's text (relative to dir), for `split`; throws saying why it cannot be read. */
  read?: (file: string) => string;
  error(keyPath: readonly Key[], message: string, onKey?: boolean): void;
  warn(keyPath: readonly Key[], message: string, onKey?: boolean): void;
  /** A problem in the pair's entry of the prompts file, at keyPath there. */
  promptError(keyPath: readonly Key[], message: string): void;
}

/** A requires entry naming the instance of another foreach pair with this instance's item. */
export const SAME_ITEM = "[{item}]";

const FILE_NAMES = ["file", "dir", "name", "stem", "ext"] as const;
/** The piece's text, its id, the file's title and the headings the piece is under (`split`). */
const PIECE_NAMES = ["piece", "piece_id", "title", "headings"] as const;
const NAMES = [...FILE_NAMES, "value", "item", ...PIECE_NAMES] as const;
type Name = (typeof NAMES)[number];
/** `{name}` and its escape `{{name}}`, for the placeholder names only: other braces stay as written. */
const PLACEHOLDER = new RegExp(`\\{\\{(${NAMES.join("|")})\\}\\}|\\{(${NAMES.join("|")})\\}`, "g");
/** Whether a text holds a placeholder (not only an escaped one). */
const ANY_PLACEHOLDER = new RegExp(`(?<!\\{)\\{(${NAMES.join("|")})\\}`);

interface Item {
  /** The file (relative to the workflow's directory) or the value; for a piece, `file#piece`. */
  key: string;
  file: boolean;
  values: Record<Name, string>;
  /** For a piece of a file (`split`). */
  piece?: { file: string; id: string; text: string };
}

/**
 * The pairs with every foreach pair replaced, in place, by its instances; requires naming a
 * foreach pair (all its instances) or `pair[{item}]` (the one with the same item) are resolved.
 * Problems go to ctx.error and ctx.warn, at the template's keys.
 */
export function expandForeach(pairs: ReadonlyMap<string, Pair>, raw: Readonly<Record<string, unknown>>, given: ForeachContext): Map<string, Pair> {
  const seen = new Set<string>();
  const once = (report: (keyPath: readonly Key[], message: string, onKey?: boolean) => void) => (keyPath: readonly Key[], message: string, onKey?: boolean) => {
    const id = `${keyPath.join("\0")}\0${message}`;
    if (!seen.has(id)) report(keyPath, message, onKey);
    seen.add(id);
  };
  // Instances share their template's keys: each problem is reported once.
  const ctx: ForeachContext = { ...given, error: once(given.error), warn: once(given.warn), promptError: once(given.promptError) };
  const items = new Map<string, Item[]>();
  /** The templates over the pieces of their files, and how they split them. */
  const splits = new Map<string, SplitSpec>();
  for (const pair of pairs.values()) {
    const spec = foreachOf(raw[pair.id]);
    if (spec === undefined) continue;
    items.set(pair.id, itemsOf(pair, spec, ctx));
    if (spec.split === undefined) continue;
    if (spec.files === undefined) ctx.error(["action_pairs", pair.id, "foreach", "split"], "split cuts files into pieces; use it with foreach files");
    else splits.set(pair.id, spec.split);
  }
  if (items.size === 0) return new Map(pairs);
  leaveOutWritten(pairs, items, ctx);
  for (const [id, list] of items) {
    if (list.length === 0 && isFileForeach(raw[id])) ctx.warn(["action_pairs", id, "foreach", "files"], `matches no files, so pair "${id}" has no instances`);
  }

  const instancesOf = new Map<string, Map<string, string>>();
  for (const [id, list] of items) instancesOf.set(id, new Map(list.map((item) => [item.key, instanceId(id, item.key)])));

  const out = new Map<string, Pair>();
  for (const pair of pairs.values()) {
    const list = items.get(pair.id);
    const ok = checkRequires(pair, list !== undefined, instancesOf, ctx);
    if (list === undefined) {
      const requires = ok ? resolveRequires(pair, undefined, instancesOf, ctx) : pair.requires;
      out.set(pair.id, requires === pair.requires ? pair : { ...pair, requires });
      continue;
    }
    const split = splits.get(pair.id);
    checkPlaceholders(pair, isFileForeach(raw[pair.id]), split !== undefined, ctx);
    if (split === undefined) {
      const instances = list.map((item) => instanceOf(pair, item, ok ? resolveRequires(pair, item, instancesOf, ctx) : []));
      checkOutputs(pair, instances, ctx);
      for (const instance of instances) out.set(instance.id, instance);
      continue;
    }
    // Over the pieces of each file: one instance a piece, and the file's instance that puts their
    // results back together into the output.
    const assembled = assembledGuard(own(raw, pair.id));
    const assemblies: Pair[] = [];
    for (const item of list) {
      const requires = ok ? resolveRequires(pair, item, instancesOf, ctx) : [];
      const pieces = piecesOf(pair, item, split, ctx).map((piece) => instanceOf(pair, piece, requires));
      for (const piece of pieces) out.set(piece.id, piece);
      const assembly = assemblyOf(pair, item, pieces, split, assembled);
      assemblies.push(assembly);
      out.set(assembly.id, assembly);
    }
    checkOutputs(pair, assemblies, ctx);
  }
  return out;
}

/** The pieces of a file item as items of their own: `file#piece`, with the piece's placeholders. */
function piecesOf(pair: Pair, item: Item, split: SplitSpec, ctx: ForeachContext): Item[] {
  if (ctx.read === undefined) {
    ctx.error(["action_pairs", pair.id, "foreach", "split"], "files cannot be read here; split needs a loader that can read them");
    return [];
  }
  let pieces;
  try {
    pieces = splitText(ctx.read(item.key), split);
  } catch (err) {
    ctx.error(["action_pairs", pair.id, "foreach", "split"], `cannot split ${item.key}: ${(err as Error).message}`);
    return [];
  }
  return pieces.map((p) => ({
    key: pieceKey(item.key, p.id),
    file: false,
    values: { ...item.values, item: pieceKey(item.key, p.id), piece: p.text, piece_id: p.id, title: p.title, headings: p.headings.join(" > ") },
    piece: { file: item.key, id: p.id, text: p.text },
  }));
}

/** `assembled_guard` as written: the guard of a split pair's put-together output. */
function assembledGuard(raw: unknown): GuardRef | undefined {
  const value = isObject(raw) ? raw.assembled_guard : undefined;
  if (!isObject(value) || typeof value.guard !== "string") return undefined;
  return { guard: value.guard, guard_config: (isObject(value.guard_config) ? value.guard_config : {}) as Record<string, CanonicalValue> };
}

/**
 * The instance that puts a file's pieces back together, in the file's order, into the template's
 * output: pairflow's own `assemble` generator (no model), judged by `assembled_guard` if there is
 * one. The order is part of its settings, so moving sections re-assembles the file (and re-runs
 * no piece). A catalogue's structure comes from the file itself, which is then its input.
 */
function assemblyOf(template: Pair, item: Item, pieces: readonly Pair[], split: SplitSpec, guard: GuardRef | undefined): Pair {
  const structure = split.kind === "json" || split.kind === "yaml";
  const text = (s: string) => substitute(s, item.values);
  const config = dict<CanonicalValue>();
  config.split = split.kind;
  if (split.regex !== undefined) config.regex = split.regex;
  config.file = item.key;
  config.order = pieces.map((p) => p.piece!.id);
  const assembly: Pair = {
    id: instanceId(template.id, item.key),
    requires: pieces.map((p) => p.id),
    guard: guard?.guard ?? null,
    guardConfig: guard?.guard_config ?? {},
    generator: ASSEMBLE,
    generatorConfig: config,
    model: null,
    rmax: template.rmax,
    inputs: structure ? [escapeGlob(item.key)] : [],
    prompt: undefined,
    template: template.id,
    item: item.key,
    ...(structure ? { itemFile: true } : {}),
    assembly: { split, file: item.key },
  };
  if (template.maxOutputBytes !== undefined) assembly.maxOutputBytes = template.maxOutputBytes;
  if (template.carryEdits) assembly.carryEdits = true;
  if (template.description !== undefined) assembly.description = text(template.description);
  if (template.output !== undefined) assembly.output = text(template.output);
  return assembly;
}

/** The id of the instance of template for item. */
export function instanceId(template: string, item: string): string {
  return `${template}[${item}]`;
}

interface Spec {
  /** The globs; a single glob written as text is the string itself. */
  files?: string[] | string;
  values?: string[];
  split?: SplitSpec;
}

function foreachOf(raw: unknown): Spec | undefined {
  if (!isObject(raw) || !("foreach" in raw)) return undefined;
  const spec = raw.foreach;
  if (!isObject(spec)) return {};
  const files = typeof spec.files === "string" ? spec.files : Array.isArray(spec.files) ? spec.files.filter((f) => typeof f === "string") : undefined;
  const values = Array.isArray(spec.values) ? spec.values.filter((v) => typeof v === "string") : undefined;
  const maxChars = typeof spec.max_chars === "number" ? spec.max_chars : undefined;
  const split: SplitSpec | undefined =
    spec.split === "markdown" || spec.split === "json" || spec.split === "yaml"
      ? { kind: spec.split, ...(maxChars !== undefined ? { maxChars } : {}) }
      : isObject(spec.split) && typeof spec.split.regex === "string"
        ? { kind: "regex", regex: spec.split.regex, ...(maxChars !== undefined ? { maxChars } : {}) }
        : undefined;
  return { files, values, split };
}

function isFileForeach(raw: unknown): boolean {
  return foreachOf(raw)?.files !== undefined;
}

function itemsOf(pair: Pair, spec: Spec, ctx: ForeachContext): Item[] {
  const at: Key[] = ["action_pairs", pair.id, "foreach"];
  if ((spec.files === undefined) === (spec.values === undefined)) {
    ctx.error(at, 'give foreach either "files" (globs of files, relative to the workflow file) or "values" (a list of texts), and only one of them');
    return [];
  }
  if (spec.values !== undefined) {
    if (spec.values.length === 0) ctx.warn([...at, "values"], `lists no values, so pair "${pair.id}" has no instances`);
    return spec.values.map((value) => ({
      key: value,
      file: false,
      values: { file: "", dir: "", name: "", stem: "", ext: "", value, item: value, piece: "", piece_id: "", title: "", headings: "" },
    }));
  }
  const patterns = typeof spec.files === "string" ? [spec.files] : spec.files!;
  let ok = true;
  patterns.forEach((pattern, i) => {
    const where = typeof spec.files === "string" ? [...at, "files"] : [...at, "files", i];
    if (pattern.startsWith("!")) return;
    if (reachesOutside(pattern, ctx.dir, ctx.root)) {
      ctx.error(
        where,
        `"${pattern}" reaches outside the repository (${ctx.root}); foreach files are globs relative to the workflow file, inside the repository`,
      );
      ok = false;
    }
  });
  if (!ok) return [];
  if (patterns.every((p) => p.startsWith("!"))) {
    ctx.error([...at, "files"], "lists only exclusions (patterns starting with !); add a glob of the files to take");
    return [];
  }
  if (ctx.glob === undefined) {
    ctx.error(at, "files cannot be listed here; foreach over files needs a loader that can list them");
    return [];
  }
  const files = ctx.glob(patterns, ctx.dir).filter((file) => isInside(ctx.root, path.resolve(ctx.dir, file)));
  files.sort();
  return files.map(fileItem);
}

function fileItem(file: string): Item {
  const dir = path.posix.dirname(file);
  const name = path.posix.basename(file);
  const ext = path.posix.extname(name);
  const stem = ext === "" ? name : name.slice(0, -ext.length);
  return { key: file, file: true, values: { file, dir, name, stem, ext, value: "", item: file, piece: "", piece_id: "", title: "", headings: "" } };
}

/** The key of a piece's instance: its file and its id, `docs/a.md#install`. */
export function pieceKey(file: string, id: string): string {
  return `${file}#${id}`;
}

/** A glob whose fixed part (before its first wildcard) is outside root, or an absolute one. */
function reachesOutside(pattern: string, dir: string, root: string): boolean {
  const segments = pattern.split("/");
  const firstGlob = segments.findIndex((seg) => fg.isDynamicPattern(seg));
  const fixed = (firstGlob === -1 ? segments : segments.slice(0, firstGlob)).join("/");
  return path.isAbsolute(pattern) || !isInside(root, path.resolve(dir, fixed));
}

/**
 * Files pairflow writes are never items: the lock file, every ordinary pair's output, and every
 * output an instance would have for any file matched (so `docs/*.md` writing `docs/{stem}.fr.md`
 * never takes its own translations). The rule reads only the workflow and the matches, never
 * which outputs exist yet, so a plan and the run after it agree.
 */
function leaveOutWritten(pairs: ReadonlyMap<string, Pair>, items: Map<string, Item[]>, ctx: ForeachContext): void {
  const ext = path.extname(ctx.workflowPath);
  // As src/lockfile/lockfile.ts names it: workflow.yml -> workflow.lock.json beside it.
  const written = new Set([path.join(path.dirname(ctx.workflowPath), `${path.basename(ctx.workflowPath, ext)}.lock.json`)]);
  for (const pair of pairs.values()) {
    if (pair.output === undefined) continue;
    const list = items.get(pair.id);
    if (list === undefined) written.add(path.resolve(ctx.dir, pair.output));
    else for (const item of list) written.add(path.resolve(ctx.dir, substitute(pair.output, item.values)));
  }
  for (const [id, list] of items) {
    if (list[0]?.file)
      items.set(
        id,
        list.filter((item) => !written.has(path.resolve(ctx.dir, item.key))),
      );
  }
}

/**
 * Problems of the pair's requires that do not depend on the item, each reported once: `pair[{item}]`
 * where this pair has no foreach or that pair has none, a foreach pair requiring itself.
 */
function checkRequires(pair: Pair, foreach: boolean, instancesOf: ReadonlyMap<string, unknown>, ctx: ForeachContext): boolean {
  let ok = true;
  pair.requires.forEach((dep, i) => {
    const at: Key[] = ["action_pairs", pair.id, "requires", i];
    const other = dep.endsWith(SAME_ITEM) ? dep.slice(0, -SAME_ITEM.length) : undefined;
    let problem: string | undefined;
    if (other === undefined) {
      if (foreach && dep === pair.id) problem = `"${dep}" requires itself; remove it from its own requires`;
    } else if (!foreach) problem = `"${dep}" names the instance with this pair's item, and this pair has no foreach; require "${other}" for all its instances`;
    else if (other === pair.id) problem = `"${dep}" is this pair itself; remove it`;
    else if (!instancesOf.has(other)) problem = `"${dep}": "${other}" is not a foreach pair; require "${other}" itself`;
    if (problem === undefined) return;
    ctx.error(at, problem);
    ok = false;
  });
  return ok;
}

/**
 * The pair's requires with foreach pairs resolved (checkRequires has passed): a foreach pair's id
 * stands for all its instances, `other[{item}]` for the instance of `other` with this instance's item.
 */
function resolveRequires(pair: Pair, item: Item | undefined, instancesOf: ReadonlyMap<string, ReadonlyMap<string, string>>, ctx: ForeachContext): string[] {
  if (!pair.requires.some((r) => instancesOf.has(r) || r.endsWith(SAME_ITEM))) return pair.requires;
  const out: string[] = [];
  pair.requires.forEach((dep, i) => {
    if (item !== undefined && dep.endsWith(SAME_ITEM)) {
      const other = dep.slice(0, -SAME_ITEM.length);
      const id = instancesOf.get(other)?.get(item.key);
      if (id !== undefined) out.push(id);
      else
        ctx.error(
          ["action_pairs", pair.id, "requires", i],
          `"${other}" has no instance for "${item.key}", which "${pair.id}" has; give both the same foreach, or require "${other}" for all its instances`,
        );
      return;
    }
    out.push(...(instancesOf.get(dep)?.values() ?? [dep]));
  });
  return [...new Set(out)];
}

/** Instances writing one file: each needs its own. */
function checkOutputs(template: Pair, instances: readonly Pair[], ctx: ForeachContext): void {
  const first = new Map<string, string>();
  for (const instance of instances) {
    if (instance.output === undefined) continue;
    const target = path.resolve(ctx.dir, instance.output);
    const other = first.get(target);
    if (other === undefined) {
      first.set(target, instance.item!);
      continue;
    }
    ctx.error(
      ["action_pairs", template.id, "output"],
      `"${template.output}" gives "${other}" and "${instance.item!}" the same output, ${instance.output}; use placeholders that tell them apart (e.g. {dir} and {stem})`,
    );
    return;
  }
}

function instanceOf(template: Pair, item: Item, requires: string[]): Pair {
  const text = (s: string) => substitute(s, item.values);
  const glob = (s: string) => substitute(s, item.values, escapeGlob);
  const instance: Pair = {
    ...template,
    id: instanceId(template.id, item.key),
    template: template.id,
    item: item.key,
    ...(item.file ? { itemFile: true } : {}),
    ...(item.piece ? { piece: item.piece } : {}),
    requires,
    guardConfig: config(template.guardConfig, item),
    generatorConfig: config(template.generatorConfig, item),
    inputs: [...(item.file ? [escapeGlob(item.key)] : []), ...template.inputs.map(glob)],
  };
  if (template.description !== undefined) instance.description = text(template.description);
  // A piece writes no file of its own: the file's instance writes the pieces put together.
  if (item.piece) delete instance.output;
  else if (template.output !== undefined) instance.output = text(template.output);
  if (template.guards !== undefined) instance.guards = template.guards.map((g) => ({ guard: g.guard, guard_config: config(g.guard_config, item) }));
  if (template.prompt !== undefined) instance.prompt = deep(template.prompt as CanonicalValue, text) as PromptEntry;
  return instance;
}

/**
 * A generator's or guard's settings with placeholders replaced: in `run` (a shell command) by a
 * shell-quoted word, in `files` (globs) with glob characters escaped, elsewhere as they are.
 */
function config(value: Record<string, CanonicalValue>, item: Item): Record<string, CanonicalValue> {
  const out = dict<CanonicalValue>();
  for (const [key, v] of Object.entries(value)) {
    if (key === "run" && typeof v === "string") out[key] = substitute(v, item.values, shellWord);
    else if (key === "files") out[key] = deep(v, (s) => substitute(s, item.values, escapeGlob));
    else out[key] = deep(v, (s) => substitute(s, item.values));
  }
  return out;
}

function deep(value: CanonicalValue, text: (s: string) => string): CanonicalValue {
  if (typeof value === "string") return text(value);
  if (Array.isArray(value)) return value.map((v) => deep(v, text));
  if (value === null || typeof value !== "object" || value instanceof PyFloat) return value;
  const out = dict<CanonicalValue>();
  for (const [k, v] of Object.entries(value)) out[k] = deep(v, text);
  return out;
}

export function substitute(text: string, values: Record<Name, string>, encode: (s: string) => string = (s) => s): string {
  if (!text.includes("{")) return text;
  return text.replace(PLACEHOLDER, (_, escaped: string | undefined, name: string | undefined) =>
    escaped !== undefined ? `{${escaped}}` : encode(values[name as Name]),
  );
}

/** text as one shell word: as it is when it needs no quoting, else in single quotes. */
function shellWord(text: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Placeholders the template cannot fill ({value} over files, {file} and its parts over values), and
 * placeholders inside quotes in a `run` command, where the quoting pairflow adds would not protect them.
 */
function checkPlaceholders(pair: Pair, file: boolean, split: boolean, ctx: ForeachContext): void {
  const wrong: string[] = [...(file ? ["value"] : FILE_NAMES), ...(split ? [] : PIECE_NAMES)];
  const at: Key[] = ["action_pairs", pair.id];
  const look = (keyPath: Key[], value: unknown, run = false, prompt = false) => {
    const error = (message: string) => (prompt ? ctx.promptError([pair.id, ...keyPath], message) : ctx.error(keyPath, message));
    if (typeof value === "string") {
      for (const m of value.matchAll(PLACEHOLDER)) {
        const name = m[2];
        if (name === undefined) continue;
        if (wrong.includes(name)) {
          error(
            (PIECE_NAMES as readonly string[]).includes(name)
              ? `{${name}} is a piece of a file, and this pair's foreach does not split its files; add split (markdown, json, yaml or {regex: ...}) to foreach`
              : file
                ? `{${name}} is the value of a foreach over values, and this pair's foreach is over files; use {file}, {dir}, {name}, {stem}, {ext} or {item}`
                : `{${name}} is a part of a file's path, and this pair's foreach is over values; use {value} or {item}`,
          );
        } else if (run && insideQuotes(value, m.index)) {
          error(
            `{${name}} is inside quotes in a shell command; pairflow quotes what it puts there itself, so write it without quotes (or pass it in env and use "$NAME")`,
          );
        }
      }
    } else if (Array.isArray(value)) value.forEach((v, i) => look([...keyPath, i], v, false, prompt));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) look([...keyPath, k], v, false, prompt);
  };
  const configs: [string, Record<string, CanonicalValue>][] = [
    ["generator_config", pair.generatorConfig],
    ["guard_config", pair.guardConfig],
  ];
  for (const [name, value] of configs) for (const [k, v] of Object.entries(value)) look([...at, name, k], v, k === "run");
  look([...at, "output"], pair.output);
  look([...at, "description"], pair.description);
  look([...at, "inputs"], pair.inputs);
  (pair.guards ?? []).forEach((g, i) => {
    for (const [k, v] of Object.entries(g.guard_config)) look([...at, "guards", i, "guard_config", k], v, k === "run");
  });
  if (pair.prompt !== undefined) for (const [k, v] of Object.entries(pair.prompt)) look([k], v, false, true);
  if (pair.output !== undefined && !ANY_PLACEHOLDER.test(pair.output)) {
    ctx.error([...at, "output"], `every instance would write "${pair.output}"; put a placeholder in it (e.g. {stem} or {value}) so each writes its own file`);
  }
}

/** Whether offset in a shell command falls inside single or double quotes. */
function insideQuotes(command: string, offset: number): boolean {
  let quote: string | null = null;
  for (let i = 0; i < offset; i++) {
    const c = command[i]!;
    if (quote === null) {
      if (c === "\\") i++;
      else if (c === "'" || c === '"') quote = c;
    } else if (quote === '"' && c === "\\") i++;
    else if (c === quote) quote = null;
  }
  return quote !== null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
}

/**
 * A key path of the expanded workflow at its template's keys, where an instance's problems are
 * shown: `requires` entries by the template's entry they came from, when there is one.
 */
export function templatePath(keyPath: readonly Key[], expanded: ReadonlyMap<string, Pair>, written: ReadonlyMap<string, Pair>): Key[] {
  const instance = keyPath[0] === "action_pairs" && typeof keyPath[1] === "string" ? expanded.get(keyPath[1]) : undefined;
  if (instance?.template === undefined) return [...keyPath];
  const at: Key[] = ["action_pairs", instance.template];
  if (keyPath[2] !== "requires" || typeof keyPath[3] !== "number") return [...at, ...keyPath.slice(2)];
  const index = written.get(instance.template)?.requires.indexOf(instance.requires[keyPath[3]]!) ?? -1;
  return index === -1 ? [...at, "requires"] : [...at, "requires", index];
}
