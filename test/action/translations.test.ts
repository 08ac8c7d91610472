/**
 * Output changes: one pull request per language. The built action, run as a runner runs it, on a
 * site translated into three languages from one foreach: for each language the files it wrote and
 * a pull request body within GitHub's limit, naming each changed page's sections and why they ran,
 * who wrote the language's sections, and what is stale.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { PULL_REQUEST_BODY_LIMIT } from "../../src/report/translations.js";
import { expectEveryOutput } from "./outputs.js";
import { runAction } from "./runner.js";

const WORKFLOW = `name: site
generator: command
action_pairs:
  translate:
    foreach:
      files: docs/*.md
      split: markdown
      values: [fr, de, es]
      as: lang
      glossary: glossary/{lang}.yml
    output: "i18n/{lang}/{name}"
    generator_config:
      run: sh tr.sh
`;
const PROMPTS = 'translate:\n  task: "Translate into {lang}:\\n<<<\\n{piece}>>>"\n';
/**
 * A stand-in translator: the section from its prompt (between the first "<<<" line and the last
 * ">>>"), its first heading marked with the language. An awk script, not a Node process per section.
 */
const TRANSLATOR = String.raw`awk 'BEGIN { RS = "\001" }
{
  p = $0
  match(p, /Translate into [^ \t\n\r\f\v]+:/)
  lang = substr(p, RSTART + 15, RLENGTH - 16)
  from = index(p, "<<<\n") + 4
  to = 0
  for (i = index(p, ">>>"); i > 0; i = j ? i + j : 0) { to = i; j = index(substr(p, i + 1), ">>>") }
  n = split(substr(p, from, to - from), line, "\n")
  done = 0
  for (k = 1; k <= n; k++) {
    if (!done && line[k] ~ /^#+ /) { line[k] = line[k] " (" lang ")"; done = 1 }
    printf "%s%s", line[k], (k < n ? "\n" : "")
  }
}' "$PAIRFLOW_PROMPT_FILE"
`;
const INTRO = "# Intro\n\nHello.\n\n## Install\n\nRun the widget.\n\n## Use\n\nUse it.\n";
const GUIDE = "# Guide\n\nRead this.\n\n## Setup\n\nSet it up.\n\n## Widgets\n\nA widget is small.\n";
const FAQ = "# FAQ\n\nAsk.\n\n## Why\n\nBecause.\n";

type Changes = Record<string, { files: string[]; "body-file": string }>;

const changesOf = (outputs: Record<string, string>) => JSON.parse(outputs.changes!) as Changes;
const bodyOf = (changes: Changes, lang: string) => readFileSync(changes[lang]!["body-file"], "utf8");

describe("output changes", () => {
  it("gives each language its files and a pull request body naming each changed page's sections, within GitHub's limit", async () => {
    const workspace = tempRepo({
      "workflow.yml": WORKFLOW,
      "prompts.yml": PROMPTS,
      "tr.sh": TRANSLATOR,
      "docs/intro.md": INTRO,
      "docs/guide.md": GUIDE,
      "docs/faq.md": FAQ,
      "glossary/fr.yml": "widget: bidule\n",
      "glossary/de.yml": "widget: Dings\n",
      "glossary/es.yml": "widget: artilugio\n",
    });
    const first = await runAction({ workspace, with: { cache: "false", sandbox: "off" } });
    expect(first.code, first.stdout).toBe(0);
    expectEveryOutput(first.outputs);
    const changes = changesOf(first.outputs);
    expect(Object.keys(changes).sort()).toEqual(["de", "es", "fr"]);
    for (const lang of ["fr", "de", "es"]) {
      expect(changes[lang]!.files).toEqual([`i18n/${lang}/faq.md`, `i18n/${lang}/guide.md`, `i18n/${lang}/intro.md`]);
      const body = bodyOf(changes, lang);
      expect(body.length).toBeLessThanOrEqual(PULL_REQUEST_BODY_LIMIT);
      expect(body).toContain(`## Translations: \`${lang}\``);
      expect(body).toContain("3 pages changed, 8 sections translated.");
      for (const [page, sections] of [
        ["intro", ["intro", "install", "use"]],
        ["guide", ["guide", "setup", "widgets"]],
        ["faq", ["faq", "why"]],
      ] as const) {
        expect(body).toContain(`### \`docs/${page}.md\` → \`i18n/${lang}/${page}.md\``);
        const block = body.slice(body.indexOf(`### \`docs/${page}.md\``)).split("\n### ")[0]!;
        for (const s of sections) expect(block).toContain(`- \`#${s}\`: new section`);
      }
      expect(body).toMatch(/\| machine-written \| 8 \| 3 \|/);
    }

    // A person fixes a French section; the English of that section and another change, and a German term.
    const fixed = readFileSync(path.join(workspace, "i18n/fr/guide.md"), "utf8").replace("Set it up.\n", "Installez-le.\n");
    writeFiles(workspace, {
      "i18n/fr/guide.md": fixed,
      "docs/guide.md": GUIDE.replace("Set it up.", "Set it up first."),
      "docs/intro.md": INTRO.replace("Use it.", "Use it well."),
      "glossary/de.yml": "widget: Ding\n",
    });
    const second = await runAction({ workspace, with: { cache: "false", sandbox: "off" } });
    expect(second.code, second.stdout).toBe(0);
    const after = changesOf(second.outputs);
    expect(after.fr!.files).toEqual(["i18n/fr/intro.md"]);
    expect(after.es!.files).toEqual(["i18n/es/guide.md", "i18n/es/intro.md"]);
    expect(after.de!.files).toEqual(["i18n/de/guide.md", "i18n/de/intro.md"]);
    const fr = bodyOf(after, "fr");
    expect(fr).toContain("- `#use`: its source section changed");
    expect(fr).not.toContain("`#setup`: its");
    expect(fr).toMatch(/\| edited by hand \| 1 \| 1 \|/);
    expect(fr).toMatch(/\| stale \(a person's text kept; its source changed since\) \| 1 \| 1 \|/);
    expect(fr).toContain("- `docs/guide.md` `#setup`: edited by hand; review it against its source");
    expect(readFileSync(path.join(workspace, "i18n/fr/guide.md"), "utf8")).toBe(fixed);
    const de = bodyOf(after, "de");
    // The term is in the install section and the widgets section: they run for it, in German only.
    expect(de).toContain("- `#install`: glossary: `widget` changed");
    expect(de).toContain("- `#widgets`: glossary: `widget` changed");
    expect(de).toContain("- `#setup`: its source section changed");
    expect(bodyOf(after, "es")).not.toContain("glossary");
    for (const lang of ["fr", "de", "es"]) expect(bodyOf(after, lang).length).toBeLessThanOrEqual(PULL_REQUEST_BODY_LIMIT);
  }, 120_000);

  it("with only: translate[fr], as the example's job of one language runs, gives that language alone", async () => {
    const workspace = tempRepo({
      "workflow.yml": WORKFLOW,
      "prompts.yml": PROMPTS,
      "tr.sh": TRANSLATOR,
      "docs/intro.md": INTRO,
      "glossary/fr.yml": "widget: bidule\n",
      "glossary/de.yml": "widget: Dings\n",
      "glossary/es.yml": "widget: artilugio\n",
    });
    const result = await runAction({ workspace, with: { cache: "false", sandbox: "off", only: "translate[fr]" } });
    expect(result.code, result.stdout).toBe(0);
    const changes = changesOf(result.outputs);
    expect(Object.keys(changes)).toEqual(["fr"]);
    expect(changes.fr!.files).toEqual(["i18n/fr/intro.md"]);
    expect(bodyOf(changes, "fr")).toContain("1 page changed, 3 sections translated.");
  }, 60_000);

  it("is {} for a workflow without values", async () => {
    const workspace = tempRepo({
      "workflow.yml": "name: plain\ngenerator: command\naction_pairs:\n  a:\n    output: a.txt\n    generator_config: {run: echo hi}\n",
    });
    const result = await runAction({ workspace, with: { cache: "false", sandbox: "off" } });
    expect(result.code, result.stdout).toBe(0);
    expect(result.outputs.changes).toBe("{}");
  });
});
