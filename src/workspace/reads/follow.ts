/**
 * What a command reads, followed as its interpreters would: the files its command line names
 * (resolved where the shell is when it gets to them: `cd DIR &&` moves it), and from each script
 * what it loads in turn, transitively:
 *
 * - a shell script: the files its commands name, what it sources (`. file`, `source file`), the
 *   scripts it runs, as a command line;
 * - JavaScript and TypeScript: relative `import`, `export ... from`, `import("literal")` and
 *   `require("literal")`, resolved as Node does (extensions and index files probed, package.json's
 *   `main` for a directory);
 * - Python: `import x`, `from x import y` (a submodule `y` included), relative imports, looked up
 *   in the script's directory and the PYTHONPATH the command is given (`env:` or `PYTHONPATH=...`);
 * - `npm test`, `npm run x`, `yarn x`: package.json, and the script it names as a command line.
 *
 * Only files inside the repository are followed: a bare package name (`lodash`, `os`) is an
 * installed package, not the workflow's. Each file's edges are found once per invocation, however
 * many pairs reach it; each command line's closure too. A walk stops at MAX_FILES files or
 * MAX_DEPTH steps from the command line, and says so.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { moduleSpecifiers } from "./javascript.js";
import { pythonImports } from "./python.js";
import { expand, isSeparator, shellTokens, type Token, type Word } from "./shell.js";

export const MAX_FILES = 500;
export const MAX_DEPTH = 32;
/** A larger file is hashed, not read for what it loads. */
const MAX_PARSED_BYTES = 8 * 1024 * 1024;

type Language = "sh" | "js" | "py";

const EXTENSIONS: Record<string, Language> = {
  ".sh": "sh",
  ".bash": "sh",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".jsx": "js",
  ".ts": "js",
  ".mts": "js",
  ".cts": "js",
  ".tsx": "js",
  ".py": "py",
};
/** What Node tries after a specifier without its file's extension, in order. */
const JS_PROBES = [".js", ".mjs", ".cjs", ".json", ".node", ".ts", ".mts", ".cts", ".tsx", ".jsx"];
/** TypeScript's convention: `./x.js` in the source is `./x.ts` on disk. */
const TS_FOR_JS: Record<string, string[]> = { ".js": [".ts", ".tsx"], ".mjs": [".mts"], ".cjs": [".cts"], ".jsx": [".tsx"] };
const SHELLS = new Set(["sh", "bash", "dash", "ash", "ksh", "zsh", "mksh"]);
const NODES = new Set(["node", "nodejs", "tsx", "ts-node", "ts-node-esm", "bun", "deno"]);
const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?$/;
/** Words that run the command after them. */
const PREFIXES = new Set(["exec", "command", "builtin", "nohup", "time", "nice", "ionice", "stdbuf", "timeout", "xargs", "npx", "pnpx", "sudo"]);
const SETTERS = new Set(["export", "readonly", "declare", "typeset", "local"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn"]);

/** Something read: a file (hashed) and, for a script, what it loads; or a text run by a shell or an interpreter. */
type Node =
  | { kind: "file"; key: string; abs: string }
  | { kind: "sh"; key: string; abs: string; cwd: string; vars: Vars }
  | { kind: "js"; key: string; abs: string }
  | { kind: "py"; key: string; abs: string; roots: readonly string[] }
  | { kind: "line"; key: string; text: string; cwd: string; vars: Vars }
  | { kind: "jsText"; key: string; text: string; dir: string }
  | { kind: "pyText"; key: string; text: string; roots: readonly string[] };

type Vars = ReadonlyMap<string, string>;

export interface Reached {
  /** Absolute paths of the files reached, the command line's own words included. */
  files: string[];
  /** Why the walk stopped before the end, if it did. */
  stopped?: string;
}

export interface ReadGraphOptions {
  /** Whether a path is a file pairflow hashes: a regular file inside the repository that it does not write itself. */
  readable(abs: string): boolean;
  /** Told once per file that could not be read to the end for what it loads. */
  warn(message: string): void;
  /** How files are named in messages. */
  display(abs: string): string;
}

export class ReadGraph {
  private readonly edges = new Map<string, Node[]>();
  private readonly reached = new Map<string, Reached>();
  /** Walks by the nodes a line reaches first. */
  private readonly closures = new Map<string, Reached>();
  private readonly kinds = new Map<string, "file" | "dir" | null>();
  private readonly languages = new Map<string, Language | null>();

  constructor(private readonly options: ReadGraphOptions) {}

  /**
   * The files a shell command line run in `cwd` with these variables reaches, bounded. Lines that
   * reach the same files first (`node gen.mjs --pair 1`, `--pair 2`, ...) share one walk, and one
   * Reached: a caller may keep what it makes of it by identity.
   */
  reach(command: string, cwd: string, env: Readonly<Record<string, string>>): Reached {
    const vars = new Map(Object.entries(env));
    const start: Node = { kind: "line", key: `L\0${cwd}\0${varsKey(vars)}\0${command}`, text: command, cwd, vars };
    let found = this.reached.get(start.key);
    if (!found) {
      const first = this.children(start)
        .map((child) => child.key)
        .join("\n");
      found = this.closures.get(first);
      if (!found) {
        found = this.walk(start);
        this.closures.set(first, found);
      }
      this.reached.set(start.key, found);
      // The line's own edges are only needed for the walk above: thousands of distinct lines keep none.
      this.edges.delete(start.key);
    }
    return found;
  }

  private walk(start: Node): Reached {
    const seen = new Set([start.key]);
    const files = new Set<string>();
    let level: Node[] = [start];
    let stopped: string | undefined;
    walk: for (let depth = 1; level.length > 0; depth++) {
      const next: Node[] = [];
      for (const node of level) {
        for (const child of this.children(node)) {
          if (seen.has(child.key)) continue;
          seen.add(child.key);
          if ("abs" in child && !files.has(child.abs)) {
            if (files.size === MAX_FILES) {
              stopped = `at ${MAX_FILES} files`;
              break walk;
            }
            files.add(child.abs);
          }
          if (depth < MAX_DEPTH) next.push(child);
          else if (stopped === undefined && this.children(child).length > 0) stopped = `${MAX_DEPTH} steps from the command line`;
        }
      }
      level = next;
    }
    return stopped === undefined ? { files: [...files] } : { files: [...files], stopped };
  }

  private children(node: Node): Node[] {
    let found = this.edges.get(node.key);
    if (!found) {
      found = [];
      const out = new Edges(found);
      switch (node.kind) {
        case "file":
          break;
        case "line":
          this.shell(shellTokens(node.text), { cwd: node.cwd, vars: new Map(node.vars) }, undefined, out);
          break;
        case "sh": {
          const text = this.source(node.abs);
          if (text !== undefined) this.shell(shellTokens(text), { cwd: node.cwd, vars: new Map(node.vars) }, path.dirname(node.abs), out);
          break;
        }
        case "js":
        case "jsText": {
          const text = node.kind === "js" ? this.source(node.abs) : node.text;
          if (text === undefined) break;
          const { specifiers, error } = moduleSpecifiers(text);
          if (error !== undefined && node.kind === "js") this.cannotRead(node.abs, error);
          const dir = node.kind === "js" ? path.dirname(node.abs) : node.dir;
          for (const spec of specifiers) for (const file of this.resolveJs(spec, dir)) out.add(this.jsNode(file));
          break;
        }
        case "py":
        case "pyText": {
          const text = node.kind === "py" ? this.source(node.abs) : node.text;
          if (text === undefined) break;
          const dir = node.kind === "py" ? path.dirname(node.abs) : node.roots[0]!;
          for (const imp of pythonImports(text)) {
            let bases = node.roots;
            if (imp.level > 0) {
              if (node.kind === "pyText") continue; // a relative import outside a package fails
              bases = [path.resolve(dir, ...Array<string>(imp.level - 1).fill(".."))];
            }
            const { files, dirs } = this.pythonModule(imp.module === "" ? [] : imp.module.split("."), bases);
            for (const name of imp.names) files.push(...this.pythonModule([name], dirs).files);
            for (const file of files) out.add(this.pyNode(file, node.roots));
          }
          break;
        }
      }
      this.edges.set(node.key, found);
    }
    return found;
  }

  // -------------------------------------------------------------------------------------------
  // Shell

  /** Walks the commands of a shell text in order, as the shell runs them; `scriptDir` is the directory of the script it is, if it is one. */
  private shell(tokens: Token[], state: ShellState, scriptDir: string | undefined, out: Edges): void {
    const stack: ShellState[] = [];
    let words: Word[] = [];
    const flush = () => {
      if (words.length > 0) this.command(words, state, scriptDir, out);
      words = [];
    };
    for (const token of tokens) {
      if ("word" in token) words.push(token.word);
      else if (isSeparator(token)) flush();
      else if (token.op === "(") {
        flush();
        stack.push(state);
        state = { cwd: state.cwd, vars: new Map(state.vars) };
      } else if (token.op === ")") {
        flush();
        state = stack.pop() ?? state;
      }
    }
    flush();
  }

  /** One simple command: its assignments, the files its words name, and what it runs. */
  private command(words: Word[], state: ShellState, scriptDir: string | undefined, out: Edges): void {
    for (const word of words) for (const sub of word.substitutions ?? []) this.shell(sub, { cwd: state.cwd, vars: new Map(state.vars) }, scriptDir, out);
    const env = new Map(state.vars);
    const values: (string | undefined)[] = [];
    const argWords: Word[] = [];
    let assigning = true;
    const assignments: [string, string | undefined][] = [];
    for (const word of words) {
      if (word.after !== undefined) {
        // `< file` is read; the targets of `>`, here-document delimiters and descriptors are not files read.
        if (word.after === "<") this.fileWord(expand(word, env, scriptDir), state.cwd, env, out);
        continue;
      }
      const value = expand(word, env, scriptDir);
      if (assigning && word.assignment !== undefined) {
        const assigned = value?.slice(word.assignment.length + 1);
        assignments.push([word.assignment, assigned]);
        setVar(env, word.assignment, assigned);
        this.fileWord(assigned, state.cwd, env, out);
        continue;
      }
      assigning = false;
      values.push(value);
      argWords.push(word);
      if (value !== undefined && !value.startsWith("-")) this.fileWord(value, state.cwd, env, out);
    }
    // Assignments alone set the shell's variables; before a command, only that command's environment.
    if (values.length === 0) for (const [name, value] of assignments) setVar(state.vars, name, value);
    this.runs(values, argWords, state, env, scriptDir, out);
  }

  /** What the command runs, past the words that only run the next one (exec, env, nohup, ...). */
  private runs(values: (string | undefined)[], words: Word[], state: ShellState, env: Map<string, string>, scriptDir: string | undefined, out: Edges): void {
    let k = 0;
    for (;;) {
      const name = base(values[k]);
      if (name === "env") {
        for (k++; k < values.length; k++) {
          const v = values[k];
          if (v === "-u" || v === "--unset" || v === "-C" || v === "--chdir") k++;
          else if (v !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) setVar(env, v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1));
          else if (v === undefined || !v.startsWith("-")) break;
        }
      } else if (name !== undefined && PREFIXES.has(name)) {
        for (k++; k < values.length && values[k]?.startsWith("-"); k++) if (values[k] === "-n" || values[k] === "-s") k++;
        // timeout DURATION COMMAND
        if (name === "timeout" && k < values.length) k++;
      } else break;
    }
    const name = base(values[k]);
    if (name === undefined) return;
    const args = values.slice(k + 1);
    const cwd = state.cwd;
    if (name === "cd" || name === "pushd") {
      const dir = args.find((a) => a === undefined || !a.startsWith("-"));
      // A directory the shell alone knows leaves the walk where it was: its words resolve as before.
      if (dir !== undefined && dir !== "") state.cwd = path.resolve(cwd, dir);
    } else if (SETTERS.has(name)) {
      words.slice(k + 1).forEach((word, i) => {
        if (word.assignment !== undefined) setVar(state.vars, word.assignment, args[i]?.slice(word.assignment.length + 1));
      });
    } else if (name === "unset") {
      for (const a of args) if (a !== undefined) state.vars.delete(a);
    } else if (name === "." || name === "source") {
      const file = args[0];
      if (file === undefined) return;
      // The shell looks a name without a slash up in PATH first; bash then in the current directory.
      const abs = path.resolve(cwd, file);
      if (this.options.readable(abs)) out.add(this.scriptNode("sh", abs, cwd, env));
    } else if (SHELLS.has(name)) {
      for (let i = 0; i < args.length; i++) {
        const a = args[i];
        if (a === undefined) return;
        if (a === "-c") {
          const text = args[i + 1];
          if (text !== undefined) this.shell(shellTokens(text), { cwd, vars: new Map(env) }, scriptDir, out);
          return;
        }
        if (a === "-o" || a === "+o") i++;
        else if (!a.startsWith("-") && !a.startsWith("+")) return this.script("sh", a, cwd, env, out);
      }
    } else if (NODES.has(name)) {
      this.node(args, cwd, env, out);
    } else if (PYTHON.test(name)) {
      this.python(args, cwd, env, out);
    } else if (PACKAGE_MANAGERS.has(name)) {
      this.packageScript(name, args, cwd, env, out);
    }
  }

  /** `npm test`, `npm run gen`, `yarn gen`: the package.json of where it runs, and the script it names (with its pre and post scripts) as a command line. */
  private packageScript(manager: string, args: (string | undefined)[], cwd: string, env: Vars, out: Edges): void {
    const words = args.filter((a) => a === undefined || !a.startsWith("-"));
    const first = words[0];
    let script: string | undefined;
    if (first === "run" || first === "run-script") script = words[1];
    else if (first === "test" || first === "t" || first === "tst") script = "test";
    else if (first === "start") script = "start";
    else if (manager !== "npm" && first !== undefined && !["install", "add", "exec", "dlx", "x"].includes(first)) script = first;
    if (script === undefined) return;
    const manifest = path.join(cwd, "package.json");
    if (!this.options.readable(manifest)) return;
    out.add(fileNode(manifest));
    const scripts = packageScripts(manifest);
    for (const name of [`pre${script}`, script, `post${script}`]) {
      const text = scripts[name];
      if (typeof text === "string") out.add({ kind: "line", key: `L\0${cwd}\0${varsKey(env)}\0${text}`, text, cwd, vars: env });
    }
  }

  private node(args: (string | undefined)[], cwd: string, env: Vars, out: Edges): void {
    let i = args[0] === "run" ? 1 : 0; // deno run, bun run
    for (; i < args.length; i++) {
      const a = args[i];
      if (a === undefined) return;
      if (a === "--") {
        i++;
        break;
      }
      if (!a.startsWith("-")) break;
      const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
      const value = () => inline ?? args[++i];
      if (["-e", "--eval", "-p", "--print"].includes(flag)) {
        const text = value();
        if (text !== undefined) out.add({ kind: "jsText", key: `j\0${cwd}\0${text}`, text, dir: cwd });
        return;
      }
      if (["-r", "--require", "--import", "--loader", "--experimental-loader"].includes(flag)) {
        const spec = value();
        if (spec !== undefined) for (const file of this.resolveJs(spec, cwd)) out.add(this.jsNode(file));
      } else if (flag === "--env-file" || flag === "--env-file-if-exists") {
        this.fileWord(value(), cwd, env, out);
      }
    }
    const script = args[i];
    if (script !== undefined) this.script("js", script, cwd, env, out);
  }

  private python(args: (string | undefined)[], cwd: string, env: Vars, out: Edges): void {
    const roots = (first: string) => [first, ...pythonPath(env, cwd)];
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === undefined) return;
      if (a === "--" || a === "-") return;
      if (!a.startsWith("-")) return this.script("py", a, cwd, env, out);
      if (a.startsWith("--")) continue;
      // A cluster of one-letter options: -m and -c take the rest as their value, -W and -X a value.
      for (let j = 1; j < a.length; j++) {
        const o = a[j]!;
        if (o === "m" || o === "c") {
          const value = j + 1 < a.length ? a.slice(j + 1) : args[i + 1];
          if (value === undefined) return;
          const r = roots(cwd);
          if (o === "c") out.add({ kind: "pyText", key: `p\0${r.join("\0")}\0${value}`, text: value, roots: r });
          else {
            const { files, dirs } = this.pythonModule(value.split("."), r);
            for (const dir of dirs) files.push(...this.pythonModule(["__main__"], [dir]).files);
            for (const file of files) out.add(this.pyNode(file, r));
          }
          return;
        }
        if (o === "W" || o === "X") {
          if (j + 1 === a.length) i++;
          break;
        }
      }
    }
  }

  /** A script an interpreter is given by name: in its language, whatever its name ends with. */
  private script(language: Language, name: string, cwd: string, env: Vars, out: Edges): void {
    const abs = path.resolve(cwd, name);
    if (this.options.readable(abs)) out.add(this.scriptNode(language, abs, cwd, env));
  }

  /** A word that may name a file: when it does, the file, and what it loads if it is a script (by its extension or its #! line). */
  private fileWord(value: string | undefined, cwd: string, env: Vars, out: Edges): void {
    if (value === undefined || value === "") return;
    const abs = path.resolve(cwd, value);
    if (!this.options.readable(abs)) return;
    const language = this.language(abs);
    out.add(language === null ? fileNode(abs) : this.scriptNode(language, abs, cwd, env));
  }

  private scriptNode(language: Language, abs: string, cwd: string, env: Vars): Node {
    if (language === "js") return this.jsNode(abs);
    if (language === "py") return this.pyNode(abs, [path.dirname(abs), ...pythonPath(env, cwd)]);
    return { kind: "sh", key: `S\0${abs}\0${cwd}\0${varsKey(env)}`, abs, cwd, vars: env };
  }

  // -------------------------------------------------------------------------------------------
  // JavaScript

  private jsNode(abs: string): Node {
    const language = EXTENSIONS[path.extname(abs)];
    // A file with no extension Node loads as a script too; data (.json) and native addons are only hashed.
    return language === "js" || path.extname(abs) === "" ? { kind: "js", key: `J\0${abs}`, abs } : fileNode(abs);
  }

  /** The files a specifier loads from `dir`: none for a package name; the package.json and main file for a directory. */
  private resolveJs(spec: string, dir: string): string[] {
    let target: string;
    if (spec.startsWith("file:")) {
      try {
        target = fileURLToPath(spec);
      } catch {
        return [];
      }
    } else if (spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("/") || spec === "." || spec === "..") {
      target = path.resolve(dir, spec.replace(/[?#].*$/, ""));
    } else return [];
    const file = this.probe(target);
    if (file !== undefined) return this.options.readable(file) ? [file] : [];
    if (this.kind(target) !== "dir") return [];
    const found: string[] = [];
    const manifest = path.join(target, "package.json");
    if (this.kind(manifest) === "file") {
      if (this.options.readable(manifest)) found.push(manifest);
      const main = packageMain(manifest);
      const entry = main === undefined ? undefined : this.probe(path.resolve(target, main));
      if (entry !== undefined) return this.options.readable(entry) ? [...found, entry] : found;
    }
    const index = this.probe(path.join(target, "index"));
    if (index !== undefined && this.options.readable(index)) found.push(index);
    return found;
  }

  /** The file a path names, with Node's extension probing and TypeScript's `.js` for `.ts`. */
  private probe(target: string): string | undefined {
    if (this.kind(target) === "file") return target;
    const ext = path.extname(target);
    for (const ts of TS_FOR_JS[ext] ?? []) {
      const swapped = target.slice(0, -ext.length) + ts;
      if (this.kind(swapped) === "file") return swapped;
    }
    for (const probe of JS_PROBES) if (this.kind(target + probe) === "file") return target + probe;
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Python

  private pyNode(abs: string, roots: readonly string[]): Node {
    return { kind: "py", key: `P\0${abs}\0${roots.join("\0")}`, abs, roots };
  }

  /**
   * The files importing a dotted module from these directories runs (every package's __init__.py
   * on the way, and the module), and the directories of the package it names, where `from ...
   * import name` finds submodules. Every directory is searched, not only the first that has it:
   * a file hashed in vain costs nothing, a file missed costs soundness.
   */
  private pythonModule(parts: readonly string[], bases: readonly string[]): { files: string[]; dirs: string[] } {
    const files: string[] = [];
    let dirs = [...bases];
    for (const part of parts) {
      const next: string[] = [];
      for (const dir of dirs) {
        const pkg = path.join(dir, part);
        const init = path.join(pkg, "__init__.py");
        if (this.kind(init) === "file") files.push(init);
        if (this.kind(pkg) === "dir") next.push(pkg);
        const module = pkg + ".py";
        if (this.kind(module) === "file") files.push(module);
      }
      dirs = next;
    }
    return { files: files.filter((f) => this.options.readable(f)), dirs };
  }

  // -------------------------------------------------------------------------------------------
  // Files

  private kind(abs: string): "file" | "dir" | null {
    let kind = this.kinds.get(abs);
    if (kind === undefined) {
      const stat = statSync(abs, { throwIfNoEntry: false });
      kind = stat?.isFile() ? "file" : stat?.isDirectory() ? "dir" : null;
      this.kinds.set(abs, kind);
    }
    return kind;
  }

  /** A file's language by its extension, else by its #! line; null for data. */
  private language(abs: string): Language | null {
    let language = this.languages.get(abs);
    if (language === undefined) {
      language = EXTENSIONS[path.extname(abs)] ?? interpreterOf(firstLine(abs));
      this.languages.set(abs, language);
    }
    return language;
  }

  /** A script's text, or undefined when it is too large to read for what it loads. */
  private source(abs: string): string | undefined {
    try {
      if (statSync(abs).size > MAX_PARSED_BYTES) {
        this.cannotRead(abs, `larger than ${MAX_PARSED_BYTES / 1024 / 1024} MiB`);
        return undefined;
      }
      return readFileSync(abs, "utf8");
    } catch {
      return undefined;
    }
  }

  private cannotRead(abs: string, why: string): void {
    this.options.warn(
      `${this.options.display(abs)} could not be read to the end for the files it loads (${why}); what it loads past that point is not part of the reference: list it under \`files\``,
    );
  }
}

interface ShellState {
  cwd: string;
  vars: Map<string, string>;
}

/** Collects a node's edges once each. */
class Edges {
  private readonly keys = new Set<string>();
  constructor(private readonly into: Node[]) {}
  add(node: Node): void {
    if (this.keys.has(node.key)) return;
    this.keys.add(node.key);
    this.into.push(node);
  }
}

function fileNode(abs: string): Node {
  return { kind: "file", key: `F\0${abs}`, abs };
}

function setVar(vars: Map<string, string>, name: string, value: string | undefined): void {
  if (value === undefined) vars.delete(name);
  else vars.set(name, value);
}

function varsKey(vars: Vars): string {
  return JSON.stringify([...vars].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function base(value: string | undefined): string | undefined {
  return value === undefined ? undefined : path.basename(value);
}

/** The directories of PYTHONPATH, as the command gets it, relative ones from where it runs. */
function pythonPath(env: Vars, cwd: string): string[] {
  return (env.get("PYTHONPATH") ?? "")
    .split(":")
    .filter((p) => p !== "")
    .map((p) => path.resolve(cwd, p));
}

/** package.json's `scripts`; none when it has none or cannot be read. */
function packageScripts(manifest: string): Record<string, unknown> {
  try {
    const scripts = (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: unknown }).scripts;
    return scripts !== null && typeof scripts === "object" && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The file package.json's `main` names, if it names one. */
function packageMain(manifest: string): string | undefined {
  try {
    const main = (JSON.parse(readFileSync(manifest, "utf8")) as { main?: unknown }).main;
    return typeof main === "string" ? main : undefined;
  } catch {
    return undefined;
  }
}

/** The first line of a file, at most 256 bytes of it. */
function firstLine(abs: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(abs, "r");
    const buffer = Buffer.alloc(256);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString("utf8").split("\n")[0]!;
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The language a #! line runs the file in: `#!/bin/sh`, `#!/usr/bin/env python3`, `#!/usr/bin/env -S node --flag`. */
export function interpreterOf(line: string): Language | null {
  if (!line.startsWith("#!")) return null;
  const words = line.slice(2).trim().split(/\s+/);
  let program = path.basename(words[0] ?? "");
  if (program === "env") program = path.basename(words.slice(1).find((w) => !w.startsWith("-")) ?? "");
  if (SHELLS.has(program)) return "sh";
  if (NODES.has(program)) return "js";
  if (PYTHON.test(program)) return "py";
  return null;
}
