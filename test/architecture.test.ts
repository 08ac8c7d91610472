// The dependency rules of src/, checked on the import statements themselves so that a change
// which breaks a layer fails here with the file and line to look at.
//
// A folder is the first path segment under src/ (src/plan/plan.ts is in `plan`). Imports are read
// with the TypeScript parser: static imports and re-exports (type-only ones included), import(),
// require(), and `import("x")` in type positions. An import counts as type-only when it is
// `import type`/`export type`, when every name it brings in is marked `type` (with
// verbatimModuleSyntax that still loads the module, but uses nothing of it but types), or when it
// is an `import("x")` type.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type * as TypeScript from "typescript";
import { describe, expect, it } from "vitest";

/** Folders that hold the rules of the tool: no I/O, no environment, no platform SDKs. */
const CORE = ["model", "config", "graph", "refs", "plan", "prompt", "estimate", "diff", "schedule"];
/** Folders that face the outside world and call the application layer. */
const SHELLS = ["cli", "action"];
/** The application layer: what the shells call. */
const APP = "app";
/** Modules a core folder may not import, with or without the `node:` prefix, subpaths included. */
const IO_MODULES = ["fs", "child_process", "net", "http", "https", "os", "undici"];
const IO_SCOPES = ["@actions/", "@octokit/"];
/** Text a core folder may not contain outside comments. */
const AMBIENT = [
  { what: "process.env", pattern: /(?<![\w$])process\s*(?:\?\.|\.)\s*env\b|(?<![\w$])process\s*\[\s*["'`]env["'`]\s*\]/g },
  { what: "process.cwd(", pattern: /(?<![\w$])process\s*(?:\?\.|\.)\s*cwd\s*\(|(?<![\w$])process\s*\[\s*["'`]cwd["'`]\s*\]\s*\(/g },
];

// typescript.js is CommonJS: require() loads it in a third of the time import takes, which
// first scans all 9 MB of it for named exports.
const ts = createRequire(import.meta.url)("typescript") as typeof TypeScript;

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");

interface Import {
  /** The importing file, relative to src/. */
  file: string;
  line: number;
  /** The specifier as written, or undefined when it is computed and cannot be followed. */
  spec: string | undefined;
  /** For a relative specifier, the file it names, relative to src/ ("../package.json" when outside). */
  target: string | undefined;
  /** The folder of src/ the target is in, if it is in src/. */
  folder: string | undefined;
  typeOnly: boolean;
}

interface Source {
  file: string;
  folder: string;
  sourceFile: TypeScript.SourceFile;
  imports: Import[];
}

/** The folder of a path relative to src/; files directly in src/ are in ".". */
function folderOf(file: string): string | undefined {
  const parts = file.split("/");
  if (parts[0] === "..") return undefined;
  return parts.length === 1 ? "." : parts[0];
}

const TS_FOR_JS: Record<string, string> = { ".js": ".ts", ".jsx": ".tsx", ".mjs": ".mts", ".cjs": ".cts" };

/** The file a relative specifier names, given the files that exist (NodeNext: "./x.js" is ./x.ts). */
function resolveRelative(from: string, spec: string, known: ReadonlySet<string>): string {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const ext = path.posix.extname(base);
  const candidates = [TS_FOR_JS[ext] ? base.slice(0, -ext.length) + TS_FOR_JS[ext] : base, base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => known.has(c)) ?? candidates[0]!;
}

function importClauseIsTypeOnly(clause: TypeScript.ImportClause | undefined): boolean {
  if (!clause) return false; // `import "x"` runs the module
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function exportIsTypeOnly(node: TypeScript.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Parses one file of src/ and lists what it imports. */
function analyze(file: string, text: string, known: ReadonlySet<string>): Source {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const imports: Import[] = [];
  const add = (at: TypeScript.Node, specifier: TypeScript.Node | undefined, typeOnly: boolean): void => {
    const line = sourceFile.getLineAndCharacterOfPosition(at.getStart(sourceFile)).line + 1;
    const spec = specifier && ts.isStringLiteralLike(specifier) ? specifier.text : undefined;
    const target = spec?.startsWith(".") ? resolveRelative(file, spec, known) : undefined;
    imports.push({ file, line, spec, target, folder: target === undefined ? undefined : folderOf(target), typeOnly });
  };
  const visit = (node: TypeScript.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, importClauseIsTypeOnly(node.importClause));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node, node.moduleSpecifier, exportIsTypeOnly(node));
    else if (ts.isImportEqualsDeclaration(node)) {
      const ref = node.moduleReference;
      if (ts.isExternalModuleReference(ref)) add(node, ref.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      add(node, ts.isLiteralTypeNode(arg) ? arg.literal : undefined, true);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) add(node, node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { file, folder: folderOf(file)!, sourceFile, imports };
}

/** The file's text with every comment blanked out (line breaks kept, so offsets and lines still match). */
function codeWithoutComments(sourceFile: TypeScript.SourceFile): string {
  const text = sourceFile.text;
  const comments: TypeScript.CommentRange[] = [];
  const visit = (node: TypeScript.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(sourceFile);
    // A token: comments sit in the trivia before it, on the previous token's line ("trailing")
    // and on the lines after that ("leading"); the end-of-file token takes the last ones.
    if (children.length === 0) comments.push(...(ts.getTrailingCommentRanges(text, node.pos) ?? []), ...(ts.getLeadingCommentRanges(text, node.pos) ?? []));
    for (const child of children) visit(child);
  };
  visit(sourceFile);
  let out = "";
  let at = 0;
  for (const c of comments.sort((a, b) => a.pos - b.pos)) {
    if (c.pos < at) continue;
    out += text.slice(at, c.pos) + text.slice(c.pos, c.end).replace(/[^\r\n]/g, " ");
    at = c.end;
  }
  return out + text.slice(at);
}

function isIoModule(spec: string): boolean {
  const name = spec.startsWith("node:") ? spec.slice("node:".length) : spec;
  return IO_MODULES.some((m) => name === m || name.startsWith(`${m}/`)) || IO_SCOPES.some((scope) => name.startsWith(scope));
}

function readSources(): Source[] {
  if (!existsSync(SRC)) return [];
  const files = (readdirSync(SRC, { recursive: true, encoding: "utf8" }) as string[])
    .map((f) => f.split(path.sep).join("/"))
    .filter((f) => /\.(ts|tsx|mts|cts)$/.test(f))
    .sort();
  const known = new Set(files);
  return files.map((f) => analyze(f, readFileSync(path.join(SRC, f), "utf8"), known));
}

const where = (i: Import): string => `src/${i.file}:${i.line}`;
const what = (i: Import): string => (i.target === undefined ? String(i.spec) : `src/${i.target}`) + (i.typeOnly ? " (type-only)" : "");

/** Fails with one line per violation, so the report reads as a to-do list. */
function expectNone(rule: string, violations: string[]): void {
  if (violations.length > 0) expect.fail(`${rule}\n${violations.length} violation(s):\n  ${violations.join("\n  ")}`);
}

/** Strongly connected components of a directed graph (Tarjan). */
function components(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

/** Every elementary cycle, each listed once from its smallest node, up to `limit`. */
function elementaryCycles(graph: ReadonlyMap<string, ReadonlySet<string>>, limit = 50): { cycles: string[][]; complete: boolean } {
  const cycles: string[][] = [];
  let complete = true;
  for (const component of components(graph)) {
    if (component.length < 2) continue; // a folder importing itself is no cycle between folders
    for (const [i, start] of component.entries()) {
      const allowed = new Set(component.slice(i));
      const route = [start];
      const walk = (v: string): void => {
        for (const w of [...(graph.get(v) ?? [])].sort()) {
          if (w === start) {
            if (cycles.length >= limit) complete = false;
            else cycles.push([...route, start]);
          } else if (allowed.has(w) && !route.includes(w)) {
            route.push(w);
            walk(w);
            route.pop();
          }
        }
      };
      walk(start);
    }
  }
  return { cycles, complete };
}

/** The edges between folders, each with the imports that make it. */
function folderEdges(sources: readonly Source[]): Map<string, Map<string, Import[]>> {
  const edges = new Map<string, Map<string, Import[]>>();
  for (const s of sources) {
    for (const i of s.imports) {
      if (i.folder === undefined || i.folder === s.folder) continue;
      const out = edges.get(s.folder) ?? new Map<string, Import[]>();
      edges.set(s.folder, out);
      out.set(i.folder, [...(out.get(i.folder) ?? []), i]);
    }
  }
  return edges;
}

function cycleReport(sources: readonly Source[]): string[] {
  const edges = folderEdges(sources);
  const graph = new Map([...edges].map(([from, to]) => [from, new Set(to.keys())]));
  const { cycles, complete } = elementaryCycles(graph);
  const report = cycles.map((cycle) => {
    const steps = cycle.slice(1).map((to, k) => {
      const from = cycle[k]!;
      const imports = edges.get(from)!.get(to)!;
      const example = imports.find((i) => !i.typeOnly) ?? imports[0]!;
      const more = imports.length > 1 ? `, and ${imports.length - 1} more import(s)` : "";
      return `\n      ${from} -> ${to}: ${where(example)} -> ${what(example)}${more}`;
    });
    return `${cycle.join(" -> ")}${steps.join("")}`;
  });
  if (!complete) report.push("(more cycles not listed; break these first)");
  return report;
}

const sources = readSources();
const inFolders = (folders: readonly string[]): Source[] => sources.filter((s) => folders.includes(s.folder));

describe("architecture of src/", () => {
  it("reads the sources and can follow every import", () => {
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.flatMap((s) => s.imports).length).toBeGreaterThan(0);
    // An import whose specifier is computed would slip past every rule below.
    expectNone(
      "Every import in src/ names its module with a string literal, so these rules can follow it.",
      sources.flatMap((s) => s.imports.filter((i) => i.spec === undefined).map((i) => `${where(i)}: computed specifier`)),
    );
  });

  it("a. has no import cycle between folders (type-only imports count)", () => {
    expectNone("Folders of src/ import each other in a cycle; move code so that one edge of each cycle goes away:", cycleReport(sources));
  });

  it("b. keeps I/O, the environment and platform SDKs out of the core folders", () => {
    const violations: string[] = [];
    for (const s of inFolders(CORE)) {
      for (const i of s.imports.filter((i) => i.spec !== undefined && isIoModule(i.spec))) violations.push(`${where(i)}: imports ${what(i)}`);
      const code = codeWithoutComments(s.sourceFile);
      for (const { what: name, pattern } of AMBIENT) {
        for (const m of code.matchAll(pattern)) {
          const line = s.sourceFile.getLineAndCharacterOfPosition(m.index).line;
          violations.push(`src/${s.file}:${line + 1}: uses ${name}  | ${s.sourceFile.text.split(/\r?\n/)[line]!.trim()}`);
        }
      }
    }
    expectNone(`The core folders (${CORE.join(", ")}) take their inputs as arguments; they may not do I/O or read the process environment:`, violations);
  });

  it("c. model imports from no other folder of src/", () => {
    expectNone(
      "src/model/ is the bottom layer; it may import only itself:",
      inFolders(["model"])
        .flatMap((s) => s.imports)
        .filter((i) => i.target !== undefined && i.folder !== "model")
        .map((i) => `${where(i)} -> ${what(i)}`),
    );
  });

  it("c. model imports only types from packages", () => {
    expectNone(
      "src/model/ holds types and plain values; from packages it may import only types:",
      inFolders(["model"])
        .flatMap((s) => s.imports)
        .filter((i) => i.target === undefined && !i.typeOnly)
        .map((i) => `${where(i)} -> ${what(i)}`),
    );
  });

  it("d. action uses planning rules and budget logic only through app (types excepted)", () => {
    const direct = (i: Import): boolean => i.folder === "plan" || i.target === "estimate/budget.ts" || (i.target?.startsWith("estimate/budget/") ?? false);
    expectNone(
      "src/action/ may import only types from src/plan/ and src/estimate/budget; call the application layer (src/app/) instead:",
      inFolders(["action"])
        .flatMap((s) => s.imports)
        .filter((i) => direct(i) && !i.typeOnly)
        .map((i) => `${where(i)} -> ${what(i)}`),
    );
  });

  it("e. only app and the shells import app", () => {
    const callers = [APP, ...SHELLS];
    expectNone(
      `Only ${callers.map((f) => `src/${f}/`).join(", ")} may import from src/${APP}/:`,
      sources
        .filter((s) => !callers.includes(s.folder))
        .flatMap((s) => s.imports)
        .filter((i) => i.folder === APP)
        .map((i) => `${where(i)} -> ${what(i)}`),
    );
  });

  it("e. no shell imports another shell", () => {
    expectNone(
      `The shells (${SHELLS.join(", ")}) may not import from each other:`,
      inFolders(SHELLS)
        .flatMap((s) => s.imports.filter((i) => i.folder !== undefined && i.folder !== s.folder && SHELLS.includes(i.folder)))
        .map((i) => `${where(i)} -> ${what(i)}`),
    );
  });
});

describe("the architecture checker", () => {
  const known = new Set(["a/x.ts", "a/index.ts", "b/y.ts", "c/index.ts"]);
  const importsOf = (text: string): Array<[string | undefined, string | undefined, boolean]> =>
    analyze("a/x.ts", text, known).imports.map((i) => [i.spec, i.folder, i.typeOnly]);

  it("tells type-only imports from the rest and follows every form of import", () => {
    const text = [
      `import type { T } from "../b/y.js";`,
      `import { type T, type U } from "../b/y.js";`,
      `import { type T, v } from "../b/y.js";`,
      `import "../b/y.js";`,
      `import {} from "../b/y.js";`,
      `export type { T } from "../b/y.js";`,
      `export * from "../c";`,
      `type M = typeof import("node:fs");`,
      `const m = await import("node:child_process");`,
      `const r = require("../../package.json");`,
      `import x = require("./index.js");`,
    ].join("\n");
    expect(importsOf(text)).toEqual([
      ["../b/y.js", "b", true],
      ["../b/y.js", "b", true],
      ["../b/y.js", "b", false],
      ["../b/y.js", "b", false],
      ["../b/y.js", "b", false],
      ["../b/y.js", "b", true],
      ["../c", "c", false],
      ["node:fs", undefined, true],
      ["node:child_process", undefined, false],
      ["../../package.json", undefined, false],
      ["./index.js", "a", false],
    ]);
  });

  it("matches I/O modules with or without node: and with subpaths", () => {
    expect(["fs", "node:fs/promises", "os", "node:os", "@actions/core", "@octokit/rest", "undici", "net"].every(isIoModule)).toBe(true);
    expect(["node:path", "node:crypto", "yaml", "fsevents", "@action/x", "osx"].some(isIoModule)).toBe(false);
  });

  it("ignores comments but not strings when looking for the environment", () => {
    const source = analyze(
      "a/x.ts",
      [
        "// process.env.A",
        "/* process.cwd() */ const s = '// not a comment: process.env.B';",
        "const t = `${1 /* process.env.C */} // process.cwd() in a template`;",
        "const re = /\\/\\/ process.env.D/;",
        "/** process.env.E */",
        "export const e = process.env.F ?? process.cwd();",
      ].join("\n"),
      known,
    ).sourceFile;
    const code = codeWithoutComments(source);
    expect(code.split("\n").length).toBe(6);
    const found = AMBIENT.flatMap(({ pattern }) => [...code.matchAll(pattern)].map((m) => code.slice(m.index, m.index + 14)));
    expect(found.sort()).toEqual(["process.env.B'", "process.cwd() ", "process.env.D/", "process.env.F ", "process.cwd();"].sort());
  });

  it("lists each cycle once, from its smallest folder", () => {
    const graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["a", "c"])],
      ["c", new Set(["a", "d"])],
      ["d", new Set<string>()],
    ]);
    expect(elementaryCycles(graph).cycles).toEqual([
      ["a", "b", "a"],
      ["a", "b", "c", "a"],
    ]);
  });
});
