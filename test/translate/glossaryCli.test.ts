// The installed command line over a site with a glossary per language: fixing one term's
// translation re-runs only the sections holding that term in that language, and `pairflow explain`
// names the term.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";
import { pairflow } from "../cli/built.js";

/** A translator that needs no model: the piece upper-cased, then the glossary lines it was given. */
const TRANSLATE = `let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const piece = /<<<\\n([\\s\\S]*?)>>>/.exec(s)[1];
  const terms = (/# Glossary\\n\\n[^\\n]*\\n\\n((?:- [^\\n]*\\n?)*)/.exec(s) || [, ""])[1].trim();
  process.stdout.write(piece.toUpperCase() + (terms ? "<!-- " + terms.replace(/\\n/g, "; ") + " -->\\n" : ""));
});
`;

describe("pairflow with a glossary per language", { timeout: scaled(120_000) }, () => {
  it("re-runs only the sections holding a fixed term, in its language, and explain names the term", () => {
    const dir = tempRepo({
      "workflow.yml": `name: site
generator: command
action_pairs:
  translate:
    foreach:
      files: docs/*.md
      split: markdown
      values: [fr, de]
      as: lang
      glossary: glossary/{lang}.yml
    output: "i18n/{lang}/{name}"
    generator_config:
      run: node translate.mjs
`,
      "prompts.yml": 'translate:\n  task: "Translate into {lang}:\\n<<<\\n{piece}>>>"\n',
      "translate.mjs": TRANSLATE,
      "glossary/fr.yml": "widget: bidule\npull request: demande de fusion\n",
      "glossary/de.yml": "widget: Dings\n",
      "docs/intro.md": "# Intro\n\nA Widget.\n\n## Review\n\nOpen a pull request.\n\n## Plain\n\nNothing.\n",
    });
    const first = pairflow(["run"], { cwd: dir });
    expect(first.status, first.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toBe(
      "# INTRO\n\nA WIDGET.\n\n<!-- - widget: bidule -->\n## REVIEW\n\nOPEN A PULL REQUEST.\n\n<!-- - pull request: demande de fusion -->\n## PLAIN\n\nNOTHING.\n",
    );

    writeFiles(dir, { "glossary/fr.yml": "widget: machin\npull request: demande de fusion\n" });
    const plan = pairflow(["plan", "--json"], { cwd: dir });
    expect(plan.status, plan.stderr).toBe(0);
    const running = (JSON.parse(plan.stdout) as { pairs: { id: string; action: string }[] }).pairs.filter((p) => p.action === "run").map((p) => p.id);
    expect(running).toEqual(["translate[fr:docs/intro.md#intro]", "translate[fr:docs/intro.md]"]);

    const explain = pairflow(["explain", "translate[fr:docs/intro.md#intro]"], { cwd: dir });
    expect(explain.status, explain.stderr).toBe(0);
    expect(explain.stdout).toContain("glossary.widget");

    const run = pairflow(["run"], { cwd: dir });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "i18n/fr/intro.md"), "utf8")).toContain("<!-- - widget: machin -->");
    expect(readFileSync(path.join(dir, "i18n/de/intro.md"), "utf8")).toContain("<!-- - widget: Dings -->");
  });
});
