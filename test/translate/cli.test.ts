// The installed command line over a site in several languages from one declaration: the first run
// translates every section of every page into each language, `--only` takes one language, and a
// language added later runs only its sections.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "../cli/built.js";

/** A translator that needs no model: the piece between the markers, upper-cased, after its language. */
const TRANSLATE = `let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const piece = /<<<\\n([\\s\\S]*?)>>>/.exec(s)[1];
  process.stdout.write("[" + process.argv[2] + "] " + piece.toUpperCase());
});
`;

const workflow = (languages: string[]) => `name: site
generator: command
action_pairs:
  translate:
    foreach:
      files: docs/*.md
      split: markdown
      values: [${languages.join(", ")}]
      as: lang
    output: "i18n/{lang}/{name}"
    generator_config:
      run: node translate.mjs {lang}
`;

describe("pairflow over files and languages", { timeout: scaled(120_000) }, () => {
  it("runs every section in every language, one language with --only, and a new language alone", () => {
    const dir = tempRepo({
      "workflow.yml": workflow(["fr", "de"]),
      "prompts.yml": 'translate:\n  task: "Translate into {lang}:\\n<<<\\n{piece}>>>"\n',
      "translate.mjs": TRANSLATE,
      "docs/intro.md": "# Intro\n\nHello.\n\n## Install\n\nRun it.\n",
    });
    const first = pairflow(["run", "--json"], { cwd: dir });
    expect(first.status, first.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "i18n/de/intro.md"), "utf8")).toBe("[de] # INTRO\n\nHELLO.\n\n[de] ## INSTALL\n\nRUN IT.\n");
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe("[fr] # INTRO\n\nHELLO.\n\n[fr] ## INSTALL\n\nRUN IT.\n");

    const executed = (stdout: string) =>
      (JSON.parse(stdout) as { pairs: { id: string; status: string }[] }).pairs
        .filter((p) => p.status === "executed")
        .map((p) => p.id)
        .sort();
    const only = pairflow(["run", "--json", "--only", "translate[fr]"], { cwd: dir });
    expect(only.status, only.stderr).toBe(0);
    expect(executed(only.stdout)).toEqual(["translate[fr:docs/intro.md#install]", "translate[fr:docs/intro.md#intro]", "translate[fr:docs/intro.md]"]);

    writeFiles(dir, { "workflow.yml": workflow(["fr", "de", "es"]) });
    const plan = pairflow(["plan"], { cwd: dir });
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toContain("translate[es:docs/intro.md#install]");
    const added = pairflow(["run", "--json"], { cwd: dir });
    expect(added.status, added.stderr).toBe(0);
    expect(executed(added.stdout)).toEqual(["translate[es:docs/intro.md#install]", "translate[es:docs/intro.md#intro]", "translate[es:docs/intro.md]"]);
    expect(readFileSync(path.join(dir, "i18n/es/intro.md"), "utf8")).toBe("[es] # INTRO\n\nHELLO.\n\n[es] ## INSTALL\n\nRUN IT.\n");
  });
});
