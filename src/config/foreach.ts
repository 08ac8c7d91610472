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
import { isUtf8Name, shownName } from "../model/fileName.js";
import { PyFloat, type CanonicalValue } from "../model/values.js";
import { dict, own } from "../model/dict.js";
import type { GuardRef, Pair, PromptEntry, SplitSpec } from "../model/workflow.js";
import { ASSEMBLE, splitText } from "./split.js";
import { escapeGlob, isInside } from "./paths.js";
import { entriesIn, parseGlossary, type Glossary } from "./glossary.js";

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
const NAMES: readonly string[] = [...FILE_NAMES, "value", "item", ...PIECE_NAMES];
/** `{name}` and its escape `{{name}}`; only names an item has a value for are placeholders, other braces stay as written. */
const PLACEHOLDER = /\{\{([a-z_][a-z0-9_]*)\}\}|\{([a-z_][a-z0-9_]*)\}/g;
/** What `as` may name: a word of lower-case letters, digits and `_`, not one of the names pairflow gives. */
const VALUE_NAME = /^[a-z][a-z0-9_]*$/;

/** A placeholder's value by its name. */
type Values = Readonly<Record<string, string>>;

interface Item {
  /** The file (relative to the workflow's directory) or the value, `value:file` for both; for a piece, `…#piece`. */
  key: string;
  /** Over files: the file, relative to the workflow's directory. */
  path?: string;
  /** Over files and values together: the value. */
  value?: string;
  values: Values;
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
  const specs = new Map<string, Spec>();
  /** The templates over the pieces of their files, and how they split them. */
  const splits = new Map<string, SplitSpec>();
  for (const pair of pairs.values()) {
    const spec = foreachOf(raw[pair.id]);
    if (spec === undefined) continue;
    specs.set(pair.id, spec);
    items.set(pair.id, itemsOf(pair, spec, ctx));
    if (spec.split === undefined) continue;
    if (spec.files === undefined) ctx.error(["action_pairs", pair.id, "foreach", "split"], "split cuts files into pieces; use it with foreach files");
    else splits.set(pair.id, spec.split);
    if (isObject(raw[pair.id]) && (raw[pair.id] as Record<string, unknown>).adopt_existing === true)
      ctx.error(
        ["action_pairs", pair.id, "adopt_existing"],
        `adopts whole output files, and this pair's foreach splits its files into sections; adopt existing files once, section by section, with pairflow adopt '${pair.id}', and remove adopt_existing`,
      );
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
    const glossary = glossaryOf(pair, specs.get(pair.id)!, ctx);
    // An output every value would share is said once, not as every pair of instances writing one file.
    const outputOk = checkPlaceholders(pair, specs.get(pair.id)!, split !== undefined, ctx);
    if (split === undefined) {
      const instances = list.map((item) => glossary(instanceOf(pair, item, ok ? resolveRequires(pair, item, instancesOf, ctx) : []), item));
      if (outputOk) checkOutputs(pair, instances, ctx);
      for (const instance of instances) out.set(instance.id, instance);
      continue;
    }
    // Over the pieces of each file: one instance a piece, and the file's instance that puts their
    // results back together into the output.
    const assembled = assembledGuard(own(raw, pair.id));
    const assemblies: Pair[] = [];
    for (const item of list) {
      const requires = ok ? resolveRequires(pair, item, instancesOf, ctx) : [];
      const pieces = piecesOf(pair, item, split, ctx).map((piece) => glossary(instanceOf(pair, piece, requires), piece));
      for (const piece of pieces) out.set(piece.id, piece);
      const assembly = assemblyOf(pair, item, pieces, split, assembled);
      assemblies.push(assembly);
      out.set(assembly.id, assembly);
    }
    if (outputOk) checkOutputs(pair, assemblies, ctx);
  }
  return out;
}

/**
 * What gives an instance the entries of its glossary (`foreach: {glossary}`) whose terms occur in
 * its piece, or its file: in its prompt, and so in its reference. Each glossary file is read once,
 * and a problem with it said once, at the `glossary` key.
 */
function glossaryOf(pair: Pair, spec: Spec, ctx: ForeachContext): (instance: Pair, item: Item) => Pair {
  if (spec.glossary === undefined) return (instance) => instance;
  const at: Key[] = ["action_pairs", pair.id, "foreach", "glossary"];
  if (spec.files === undefined) {
    ctx.error(at, "gives each file or piece the glossary entries whose terms occur in it; use it with foreach files");
    return (instance) => instance;
  }
  const read = ctx.read;
  if (read === undefined) {
    ctx.error(at, "files cannot be read here; a glossary needs a loader that can read them");
    return (instance) => instance;
  }
  const glossaries = new Map<string, Glossary | undefined>();
  const load = (file: string): Glossary | undefined => {
    if (glossaries.has(file)) return glossaries.get(file);
    let glossary: Glossary | undefined;
    if (!isInside(ctx.root, path.resolve(ctx.dir, file))) {
      ctx.error(at, `"${file}" is outside the repository (${ctx.root}); give a glossary file inside it, relative to the workflow file`);
    } else {
      let text: string | undefined;
      try {
        text = read(file);
      } catch (err) {
        const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : (err as Error).message;
        ctx.error(at, `cannot read the glossary ${file} (${why}); create it (term: translation, one a line) or fix the path`);
      }
      try {
        if (text !== undefined) glossary = parseGlossary(text);
      } catch (err) {
        ctx.error(at, `the glossary ${file} ${(err as Error).message}`);
      }
    }
    glossaries.set(file, glossary);
    return glossary;
  };
  return (instance, item) => {
    const glossary = load(substitute(spec.glossary!, item.values));
    if (glossary === undefined) return instance;
    const text = item.piece !== undefined ? item.piece.text : item.path !== undefined ? readOr(read, item.path) : "";
    const entries = entriesIn(glossary, text);
    return entries === undefined ? instance : { ...instance, prompt: { ...instance.prompt, glossary: entries } };
  };
}

/** A file's text, or "" when it cannot be read (the plan then says so, as it reads every input). */
function readOr(read: (file: string) => string, file: string): string {
  try {
    return read(file);
  } catch {
    return "";
  }
}

/** The pieces of a file item as items of their own: `file#piece`, with the piece's placeholders. */
function piecesOf(pair: Pair, item: Item, split: SplitSpec, ctx: ForeachContext): Item[] {
  if (ctx.read === undefined) {
    ctx.error(["action_pairs", pair.id, "foreach", "split"], "files cannot be read here; split needs a loader that can read them");
    return [];
  }
  let pieces;
  try {
    pieces = splitText(ctx.read(item.path!), split);
  } catch (err) {
    ctx.error(["action_pairs", pair.id, "foreach", "split"], `cannot split ${item.path!}: ${(err as Error).message}`);
    return [];
  }
  // A piece's instance has no file among its inputs: its text is its reference.
  return pieces.map((p) => ({
    key: pieceKey(item.key, p.id),
    ...(item.value !== undefined ? { value: item.value } : {}),
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
  config.file = item.path!;
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
    inputs: structure ? [escapeGlob(item.path!)] : [],
    prompt: undefined,
    template: template.id,
    item: item.key,
    ...(item.value !== undefined ? { value: item.value } : {}),
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
  /** The name of the values' own placeholder (`as: lang` gives `{lang}`). */
  as?: string;
  /** The glossary file (term: translation), with placeholders: `glossary/{lang}.yml`. */
  glossary?: string;
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
  const as = typeof spec.as === "string" ? spec.as : undefined;
  const glossary = typeof spec.glossary === "string" ? spec.glossary : undefined;
  return { files, values, split, ...(as !== undefined ? { as } : {}), ...(glossary !== undefined ? { glossary } : {}) };
}

function isFileForeach(raw: unknown): boolean {
  return foreachOf(raw)?.files !== undefined;
}

function itemsOf(pair: Pair, spec: Spec, ctx: ForeachContext): Item[] {
  const at: Key[] = ["action_pairs", pair.id, "foreach"];
  if (spec.files === undefined && spec.values === undefined) {
    ctx.error(at, 'give foreach "files" (globs of files, relative to the workflow file), "values" (a list of texts), or both for every file with every value');
    return [];
  }
  if (!valuesOk(spec, at, ctx)) return [];
  const named = (value: string): Values => (spec.as !== undefined ? { [spec.as]: value } : {});
  if (spec.values !== undefined && spec.values.length === 0) ctx.warn([...at, "values"], `lists no values, so pair "${pair.id}" has no instances`);
  if (spec.files === undefined) {
    return spec.values!.map((value) => ({
      key: value,
      values: { file: "", dir: "", name: "", stem: "", ext: "", value, item: value, piece: "", piece_id: "", title: "", headings: "", ...named(value) },
    }));
  }
  const files = filesOf(pair, spec, ctx);
  if (spec.values === undefined) return files.map(fileItem);
  // Every file with every value: `fr:docs/a.md`, by value as listed, then by file.
  return spec.values.flatMap((value) =>
    files.map((file) => {
      const item = fileItem(file);
      const key = productKey(value, file);
      return { ...item, key, value, values: { ...item.values, value, item: key, ...named(value) } };
    }),
  );
}

/** The key of the item of a file with a value (foreach over files and values together): `fr:docs/a.md`. */
export function productKey(value: string, file: string): string {
  return `${value}:${file}`;
}

/** `as` names a placeholder of its own, with values; over files and values, no value holds the ":" that parts an item. */
function valuesOk(spec: Spec, at: Key[], ctx: ForeachContext): boolean {
  let ok = true;
  if (spec.as !== undefined) {
    if (spec.values === undefined) {
      ctx.error([...at, "as"], `names the placeholder of the values, and this foreach has none; add "values" (e.g. values: [fr, de]) or remove "as"`);
      ok = false;
    } else if (!VALUE_NAME.test(spec.as) || NAMES.includes(spec.as)) {
      ctx.error(
        [...at, "as"],
        `"${spec.as}" cannot name a placeholder: use lower-case letters, digits and _ (starting with a letter), and none of ${NAMES.map((n) => `{${n}}`).join(", ")}`,
      );
      ok = false;
    }
  }
  if (spec.files !== undefined && spec.values !== undefined) {
    spec.values.forEach((value, i) => {
      if (!value.includes(":")) return;
      ctx.error([...at, "values", i], `"${value}" holds ":", which parts a value from a file in an instance's id (fr:docs/a.md); write it without ":"`);
      ok = false;
    });
  }
  return ok;
}

/** The files a foreach's globs match, sorted, each inside the repository. */
function filesOf(pair: Pair, spec: Spec, ctx: ForeachContext): string[] {
  const at: Key[] = ["action_pairs", pair.id, "foreach"];
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
  // An item's name is written into commands, prompts and output paths as text: one that is not
  // UTF-8 has no such spelling (src/model/fileName.ts).
  for (const file of files.filter((f) => !isUtf8Name(f))) {
    ctx.warn([...at, "files"], `leaves out "${shownName(file)}": its name is not UTF-8, so it cannot be an item; rename it`);
  }
  return files.filter(isUtf8Name).sort();
}

function fileItem(file: string): Item {
  const dir = path.posix.dirname(file);
  const name = path.posix.basename(file);
  const ext = path.posix.extname(name);
  const stem = ext === "" ? name : name.slice(0, -ext.length);
  return { key: file, path: file, values: { file, dir, name, stem, ext, value: "", item: file, piece: "", piece_id: "", title: "", headings: "" } };
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
    if (list[0]?.path !== undefined)
      items.set(
        id,
        list.filter((item) => !written.has(path.resolve(ctx.dir, item.path!))),
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
    ...(item.value !== undefined ? { value: item.value } : {}),
    ...(item.path !== undefined ? { itemFile: true } : {}),
    ...(item.piece ? { piece: item.piece } : {}),
    requires,
    guardConfig: config(template.guardConfig, item),
    generatorConfig: config(template.generatorConfig, item),
    inputs: [...(item.path !== undefined ? [escapeGlob(item.path)] : []), ...template.inputs.map(glob)],
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

export function substitute(text: string, values: Values, encode: (s: string) => string = (s) => s): string {
  if (!text.includes("{")) return text;
  return text.replace(PLACEHOLDER, (whole: string, escaped: string | undefined, name: string | undefined) =>
    escaped !== undefined ? (Object.hasOwn(values, escaped) ? `{${escaped}}` : whole) : Object.hasOwn(values, name!) ? encode(values[name!]!) : whole,
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
 * False when the output over files and values is one file for every value (said here once).
 */
function checkPlaceholders(pair: Pair, spec: Spec, split: boolean, ctx: ForeachContext): boolean {
  const file = spec.files !== undefined;
  const values = spec.values !== undefined;
  const wrong: string[] = [...(values ? [] : ["value"]), ...(file ? [] : FILE_NAMES), ...(split ? [] : PIECE_NAMES)];
  const known = new Set([...NAMES, ...(spec.as !== undefined ? [spec.as] : [])]);
  const isPlaceholder = (name: string | undefined): name is string => name !== undefined && known.has(name);
  const at: Key[] = ["action_pairs", pair.id];
  const look = (keyPath: Key[], value: unknown, run = false, prompt = false) => {
    const error = (message: string) => (prompt ? ctx.promptError([pair.id, ...keyPath], message) : ctx.error(keyPath, message));
    if (typeof value === "string") {
      for (const m of value.matchAll(PLACEHOLDER)) {
        const name = m[2];
        if (!isPlaceholder(name)) continue;
        if (wrong.includes(name)) {
          error(
            (PIECE_NAMES as readonly string[]).includes(name)
              ? `{${name}} is a piece of a file, and this pair's foreach does not split its files; add split (markdown, json, yaml or {regex: ...}) to foreach`
              : file
                ? `{${name}} is the value of a foreach over values, and this pair's foreach is over files only; add values to foreach (values: [fr, de]) to take every file with every value, or use {file}, {dir}, {name}, {stem}, {ext} or {item}`
                : `{${name}} is a part of a file's path, and this pair's foreach is over values only; add files to foreach to take every file with every value, or use {value} or {item}`,
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
  if (pair.output !== undefined && ![...pair.output.matchAll(PLACEHOLDER)].some((m) => isPlaceholder(m[2]))) {
    ctx.error([...at, "output"], `every instance would write "${pair.output}"; put a placeholder in it (e.g. {stem} or {value}) so each writes its own file`);
  } else if (file && values && pair.output !== undefined && !outputTellsValues(pair.output, spec)) {
    ctx.error(
      [...at, "output"],
      `"${pair.output}" is the same file for every value; put {value}${spec.as !== undefined ? ` or {${spec.as}}` : ""} (or {item}) in it so each value writes its own`,
    );
    return false;
  }
  return true;
}

/** Whether an output template over files and values names the value (or the whole item). */
function outputTellsValues(output: string, spec: Spec): boolean {
  const names = new Set(["value", "item", ...(spec.as !== undefined ? [spec.as] : [])]);
  return [...output.matchAll(PLACEHOLDER)].some((m) => m[2] !== undefined && names.has(m[2]));
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
