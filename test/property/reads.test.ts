// Property: a change to any file re-runs exactly the pairs whose commands reach it. Random trees
// of node, python and sh files load each other (ESM imports, requires, dynamic imports, relative
// Python imports, sourced and executed shell scripts, in every direction between directories);
// pairs start at random files, some from another directory through `cd`. After one random file
// is edited, the pairs the plan runs are exactly those from which this test's own walk of the
// edges it wrote reaches the file.
import { appendFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { acceptAll, planOf } from "../helpers/state.js";

type Language = "js" | "py" | "sh";
const DIRS = ["", "a/", "a/b/", "c/"];
const EXT: Record<Language, string> = { js: ".mjs", py: ".py", sh: ".sh" };
const COMMENT: Record<Language, string> = { js: "// edited\n", py: "# edited\n", sh: "# edited\n" };

interface Tree {
  files: { language: Language; dir: string }[];
  /** Edges by file index: what each file loads. */
  edges: [number, number, number][];
  /** Each pair: the file its command starts at, and whether it first cds into that file's directory. */
  pairs: [number, boolean][];
  edit: number;
}

const tree = fc
  .record({
    files: fc.array(fc.record({ language: fc.constantFrom<Language>("js", "py", "sh"), dir: fc.constantFrom(...DIRS) }), { minLength: 2, maxLength: 10 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 20 }),
    pairs: fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 5 }),
    edit: fc.nat(),
  })
  .map(({ files, edges, pairs, edit }): Tree => {
    const n = files.length;
    // A file loads only what its language can load: JS loads JS, Python loads Python, a shell script anything.
    const kept = edges
      .map(([from, to, form]): [number, number, number] => [from % n, to % n, form])
      .filter(([from, to]) => from !== to && (files[from]!.language === "sh" || files[from]!.language === files[to]!.language));
    return { files, edges: kept, pairs: pairs.map(([start, cd]) => [start % n, cd]), edit: edit % n };
  });

const name = (tree: Tree, i: number) => `${tree.files[i]!.dir}m${i}${EXT[tree.files[i]!.language]}`;

/** A relative path from one file's directory to another file, as `./x` or `../x`. */
function relative(tree: Tree, from: number, to: number): string {
  const rel = path.posix.relative(path.posix.dirname(name(tree, from)), name(tree, to));
  return rel.startsWith(".") ? rel : `./${rel}`;
}

/** `from ..pkg import mN`: a Python import of `to` relative to the package `from` is in. */
function pythonImport(tree: Tree, from: number, to: number): string {
  const fromDir = tree.files[from]!.dir.split("/").filter(Boolean);
  const toDir = tree.files[to]!.dir.split("/").filter(Boolean);
  let common = 0;
  while (common < fromDir.length && common < toDir.length && fromDir[common] === toDir[common]) common++;
  const dots = ".".repeat(1 + fromDir.length - common);
  return `from ${dots}${toDir.slice(common).join(".")} import m${to}`;
}

function source(tree: Tree, i: number): string {
  const lines = [`${COMMENT[tree.files[i]!.language].replace("edited", `file ${i}`)}`];
  for (const [from, to, form] of tree.edges) {
    if (from !== i) continue;
    const language = tree.files[to]!.language;
    switch (tree.files[i]!.language) {
      case "js": {
        const spec = relative(tree, i, to);
        lines.push([`import "${spec}";`, `require("${spec}");`, `await import("${spec}");`, `export * from "${spec}";`][form % 4]!);
        break;
      }
      case "py":
        lines.push(form % 2 === 0 ? pythonImport(tree, i, to) : `if True:\n    ${pythonImport(tree, i, to)}`);
        break;
      case "sh": {
        // From the script's own directory, however the command got there.
        const at = form % 2 === 0 ? `"$(dirname "$0")/${relative(tree, i, to)}"` : `\${0%/*}/${relative(tree, i, to)}`;
        const run = language === "js" ? "node" : language === "py" ? "python3" : form % 3 === 0 ? "." : "sh";
        lines.push(`${run} ${at}`);
        break;
      }
    }
  }
  return lines.join("\n") + "\n";
}

function command(tree: Tree, [start, cd]: [number, boolean]): string {
  const file = name(tree, start);
  const run = { js: "node", py: "python3", sh: "sh" }[tree.files[start]!.language];
  const dir = path.posix.dirname(file);
  return cd && dir !== "." ? `cd ${dir} && ${run} ${path.posix.basename(file)}` : `${run} ${file}`;
}

/** The test's own walk: every file reachable from `start` over the edges it wrote. */
function reaches(tree: Tree, start: number, target: number): boolean {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === target) return true;
    for (const [from, to] of tree.edges) {
      if (from !== at || seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return false;
}

describe("what a command reads, followed through random trees of scripts", () => {
  it("an edit re-runs exactly the pairs whose commands reach the edited file", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (t) => {
        const files: Record<string, string> = { "prompts.yml": t.pairs.map((_, p) => `p${p}: {task: t}\n`).join("") };
        files["workflow.yml"] =
          "name: tree\naction_pairs:\n" +
          t.pairs.map((pair, p) => `  p${p}:\n    generator: command\n    generator_config: {run: ${JSON.stringify(command(t, pair))}}\n`).join("");
        t.files.forEach((_, i) => (files[name(t, i)] = source(t, i)));
        const dir = tempRepo(files);
        await acceptAll(dir);
        appendFileSync(path.join(dir, name(t, t.edit)), COMMENT[t.files[t.edit]!.language]);
        const { plan } = await planOf(dir);
        const ran = plan.pairs.filter((p) => p.action === "run").map((p) => p.id);
        const expected = t.pairs.flatMap((pair, p) => (reaches(t, pair[0], t.edit) ? [`p${p}`] : []));
        expect(ran).toEqual(expected);
        for (const id of ran) expect(plan.byId.get(id)!.reasons).toMatchObject([{ kind: "generator", detail: `${name(t, t.edit)} changed` }]);
      }),
      { numRuns: 40 },
    );
  });
});
