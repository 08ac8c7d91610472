// What a command reads is followed as its interpreters would: each case is a repository, a command
// line run from the workflow's directory (the repository root here), and exactly the files the
// pair's reference then holds; the files that are in the repository but not reached prove that the
// walk goes only where the interpreter would.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWorkflow } from "../../src/workspace/load.js";
import { InputHasher } from "../../src/workspace/inputs.js";
import { PairFileHasher } from "../../src/workspace/pairFiles.js";
import { MAX_DEPTH, MAX_FILES } from "../../src/workspace/reads/follow.js";
import { tempRepo } from "../helpers/fixtures.js";
import { acceptAll, planOf } from "../helpers/state.js";

function workflow(run: string, env: Record<string, string> = {}, guard?: string): string {
  const lines = [
    "name: reads",
    "action_pairs:",
    "  p:",
    "    generator: command",
    "    generator_config:",
    `      run: ${JSON.stringify(run)}`,
    `      env: ${JSON.stringify(env)}`,
  ];
  if (guard !== undefined) lines.push("    guard: command", "    guard_config:", `      run: ${JSON.stringify(guard)}`);
  return lines.join("\n") + "\n";
}

function reached(files: Record<string, string>, run: string, env: Record<string, string> = {}): { generator: string[]; warnings: string[] } {
  const dir = tempRepo({ "prompts.yml": "p: {task: t}\n", "workflow.yml": workflow(run, env), ...files });
  const { workflow: wf } = loadWorkflow(dir);
  const warnings: string[] = [];
  const hasher = new PairFileHasher(wf, new InputHasher(wf), { warn: (m) => warnings.push(m) });
  return { generator: Object.keys(hasher.hashes(wf.pairs.get("p")!).generator), warnings };
}

describe("a command's files, followed", () => {
  it.each<[string, Record<string, string>, string, Record<string, string>, string[]]>([
    [
      "ESM imports, re-exports and literal dynamic imports; CommonJS requires; package main",
      {
        "gen.mjs":
          'import h from "./lib/helper.mjs";\nimport _ from "lodash";\nconst { c } = require("./lib/c.cjs");\nawait import("./lib/lazy.js");\nawait import("./lib/" + name);\n',
        "lib/helper.mjs": 'export * from "./deep";\nexport { x } from "../pkg";\n',
        "lib/deep.js": "export const d = 1;\n",
        "lib/c.cjs": "module.exports = require(`./d.json`);\n",
        "lib/d.json": "{}\n",
        "lib/lazy.js": "// lazy\n",
        "lib/unused.js": "// imported by nothing\n",
        "pkg/package.json": '{"main": "main.js"}\n',
        "pkg/main.js": "export const x = 1;\n",
        "node_modules/lodash/index.js": "module.exports = {};\n",
      },
      "node gen.mjs",
      {},
      ["gen.mjs", "lib/c.cjs", "lib/d.json", "lib/deep.js", "lib/helper.mjs", "lib/lazy.js", "pkg/main.js", "pkg/package.json"],
    ],
    [
      "TypeScript: ./x.js names x.ts; tsx runs it",
      {
        "gen.ts": 'import { a } from "./a.js";\nimport type { T } from "./types";\n',
        "a.ts": "export const a: number = 1;\n",
        "types.ts": "export type T = 1;\n",
      },
      "npx tsx gen.ts",
      {},
      ["a.ts", "gen.ts", "types.ts"],
    ],
    [
      "cd moves where later words resolve, in a subshell only there",
      { "sub/s.sh": "cat data.csv\n", "sub/data.csv": "a\n", "s.sh": "# the root's\n", "data.csv": "root\n", "top.txt": "x\n" },
      "(cd sub && sh s.sh); cat top.txt; cd sub; cat data.csv",
      {},
      ["sub/data.csv", "sub/s.sh", "top.txt"],
    ],
    [
      "a script's sourced files resolve where the shell is; $(dirname \"$0\") is the script's directory",
      {
        "tools/check.sh": '. ./lib.sh\n. "$(dirname "$0")/own.sh"\nsource ${0%/*}/../common.sh\n',
        "lib.sh": "X=1\n",
        "tools/lib.sh": "# not this one: the shell runs in the workflow's directory\n",
        "tools/own.sh": "Y=2\n",
        "common.sh": "Z=3\n",
      },
      "sh tools/check.sh",
      {},
      ["common.sh", "lib.sh", "tools/check.sh", "tools/own.sh"],
    ],
    [
      "the script's directory in backquotes, as `$(...)` gives it; other backquoted commands stay unknown",
      {
        "tools/check.sh": '. "`dirname "$0"`/lib.sh"\n. `dirname $0`/own.sh\nD=`cd "$(dirname "$0")" && pwd`\n. "$D/d.sh"\n. "`pwd`/lib.sh"\n',
        "lib.sh": "# the workflow's directory: no backquoted `pwd` is known\n",
        "tools/lib.sh": "X=1\n",
        "tools/own.sh": "Y=2\n",
        "tools/d.sh": "Z=3\n",
      },
      "sh tools/check.sh",
      {},
      ["tools/check.sh", "tools/d.sh", "tools/lib.sh", "tools/own.sh"],
    ],
    [
      "variables from env: and assignments; sh -c, bash -c; here-documents and output redirections are no files",
      {
        "data/in.csv": "1\n",
        "run.sh": 'DATA=data/in.csv\ncat "$DATA" > out.log\ncat <<EOF\nnot.sh\nEOF\nbash -c "node $SCRIPT"\n',
        "gen.mjs": "// gen\n",
        "not.sh": "# only in a here-document\n",
        "out.log": "written\n",
      },
      "sh run.sh",
      { SCRIPT: "gen.mjs" },
      ["data/in.csv", "gen.mjs", "run.sh"],
    ],
    [
      "python: the script's directory, packages and their __init__, submodules from `from x import y`, relative imports",
      {
        "py/main.py":
          "import helper\nfrom pkg import mod, name as n\nimport os, json\ntry:\n    from pkg.sub import deep\nexcept ImportError: import fallback\ns = 'import nothing'\n",
        "py/helper.py": "from . import sibling  # a relative import in a module of the script's directory\n",
        "py/sibling.py": "",
        "py/pkg/__init__.py": "",
        "py/pkg/mod.py": "from .. import up\n",
        "py/up.py": "",
        "py/pkg/sub/__init__.py": "",
        "py/pkg/sub/deep.py": "",
        "py/fallback.py": "",
        "py/nothing.py": "",
        "pkg/mod.py": "# not on the path\n",
      },
      "python3 -u py/main.py --flag",
      {},
      [
        "py/fallback.py",
        "py/helper.py",
        "py/main.py",
        "py/pkg/__init__.py",
        "py/pkg/mod.py",
        "py/pkg/sub/__init__.py",
        "py/pkg/sub/deep.py",
        "py/sibling.py",
        "py/up.py",
      ],
    ],
    [
      "python -m and -c look in the current directory and PYTHONPATH from env:",
      { "tools/app/__init__.py": "", "tools/app/__main__.py": "import shared\n", "libs/shared.py": "", "cli.py": "import shared\n", "tools/cli.py": "" },
      `(cd tools && python -m app); python3 -c "import cli"`,
      { PYTHONPATH: "libs:../libs" },
      ["cli.py", "libs/shared.py", "tools/app/__init__.py", "tools/app/__main__.py"],
    ],
    [
      "npm test and npm run: package.json and the scripts it names, pre and post included, a cycle followed once",
      {
        "package.json": JSON.stringify({
          scripts: { pretest: "node setup.mjs", test: "node --test tests/a.test.mjs && npm run lint", lint: "npm test", build: "node build.mjs" },
        }),
        "setup.mjs": "",
        "tests/a.test.mjs": 'import "../src/a.mjs";\n',
        "src/a.mjs": "",
        "build.mjs": "// not run by the test script\n",
      },
      "npm test",
      {},
      ["package.json", "setup.mjs", "src/a.mjs", "tests/a.test.mjs"],
    ],
    [
      "a script run by its #! line, in its language whatever its name",
      { "bin/gen": "#!/usr/bin/env node\nrequire('./helper');\n", "bin/helper.js": "" },
      "./bin/gen",
      {},
      ["bin/gen", "bin/helper.js"],
    ],
  ])("%s", (_, files, run, env, expected) => {
    const { generator, warnings } = reached(files, run, env);
    expect(generator).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it("never takes pairflow's own files for what a command reads: outputs, the lock file and what sits beside it", async () => {
    const dir = tempRepo({
      "prompts.yml": "p: {task: t}\n",
      "workflow.yml": workflow("cat $(echo .workflow.lock.json.mutex) .workflow.lock.json.journal workflow.lock.json out/p.txt data.txt").replace(
        "  p:\n",
        "  p:\n    output: out/p.txt\n",
      ),
      ".workflow.lock.json.mutex": "{}",
      ".workflow.lock.json.journal": "",
      "workflow.lock.json": '{"version": 1, "workflow": "reads", "pairs": {}}',
      "out/p.txt": "",
      "data.txt": "",
    });
    expect((await planOf(dir)).plan.byId.get("p")!.own.files).toEqual({ generator: { "data.txt": expect.any(String) } });
  });

  it("a source that cannot be read to the end is named in a warning, with what was read before kept", () => {
    const { generator, warnings } = reached({ "gen.jsx": 'import "./a.js";\nconst x = <p>it\'s</p>;\n', "a.js": "" }, "node gen.jsx");
    expect(generator).toEqual(["a.js", "gen.jsx"]);
    expect(warnings).toEqual([expect.stringMatching(/^gen\.jsx could not be read to the end for the files it loads \(.*\); .* list it under `files`$/)]);
  });

  it(`stops at ${MAX_DEPTH} steps and at ${MAX_FILES} files, with a warning naming the pair`, () => {
    const chain: Record<string, string> = {};
    for (let i = 0; i < MAX_DEPTH + 5; i++) chain[`c${i}.mjs`] = `import "./c${i + 1}.mjs";\n`;
    const deep = reached(chain, "node c0.mjs");
    expect(deep.generator).toHaveLength(MAX_DEPTH);
    expect(deep.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^p: following what its generator command reads stopped ${MAX_DEPTH} steps from the command line .*generator_config\\.files$`),
      ),
    ]);

    // Said once, however many pairs' commands reach the same files.
    const twice = tempRepo({
      ...chain,
      "prompts.yml": "p: {task: t}\nq: {task: t}\n",
      "workflow.yml":
        "name: w\ngenerator: command\naction_pairs:\n  p: {generator_config: {run: node c0.mjs --a}}\n  q: {generator_config: {run: node c0.mjs --b}}\n",
    });
    const warned: string[] = [];
    const { workflow: wf } = loadWorkflow(twice);
    const hasher = new PairFileHasher(wf, new InputHasher(wf), { warn: (m) => warned.push(m) });
    for (const pair of wf.pairs.values()) expect(Object.keys(hasher.hashes(pair).generator)).toHaveLength(MAX_DEPTH);
    expect(warned).toEqual([expect.stringMatching(/^p: following what its generator command reads stopped/)]);

    const wide: Record<string, string> = { "gen.mjs": Array.from({ length: MAX_FILES + 20 }, (_, i) => `import "./m/${i}.mjs";`).join("\n") };
    for (let i = 0; i < MAX_FILES + 20; i++) wide[`m/${i}.mjs`] = "";
    const broad = reached(wide, "node gen.mjs");
    expect(broad.generator).toHaveLength(MAX_FILES);
    expect(broad.warnings).toEqual([expect.stringMatching(new RegExp(`^p: following what its generator command reads stopped at ${MAX_FILES} files`))]);
  });

  it("a guard's own files are its components, and a change to one re-runs the pair naming it", async () => {
    const dir = tempRepo({
      "prompts.yml": "p: {task: t}\n",
      "workflow.yml": workflow("echo out", {}, "sh check.sh"),
      "check.sh": ". ./lib.sh\n",
      "lib.sh": "exit 0\n",
    });
    await acceptAll(dir);
    expect((await planOf(dir)).plan.byId.get("p")!.action).toBe("skip");
    writeFileSync(path.join(dir, "lib.sh"), "exit 1\n");
    const p = (await planOf(dir)).plan.byId.get("p")!;
    expect([p.action, p.reasons]).toEqual(["run", [{ kind: "guard", detail: "lib.sh changed", component: { kind: "guard_file", name: "lib.sh" } }]]);
  });
});
