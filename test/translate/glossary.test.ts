// Glossaries by term: a piece's prompt and reference hold only the entries whose terms occur in it
// (whole words, case-insensitive), so a glossary edit re-runs exactly the pieces containing the
// term in that glossary's language, and a plan names the term.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import path from "node:path";
import { entriesIn, occurs, parseGlossary } from "../../src/config/glossary.js";
import { loadWorkflow } from "../../src/workspace/load.js";
import { ConfigError, type ConfigIssue } from "../../src/model/errors.js";
import { planOf } from "../helpers/state.js";
import { tempRepo, writeFiles } from "../helpers/fixtures.js";
import { PROMPTS, prompts, step, workflowText } from "./world.js";

const word = fc.stringMatching(/^[A-Za-z][a-z]{1,7}$/);
const separator = fc.constantFrom(" ", ". ", ", ", "\n", " (", ") ", ": ", "! ");

describe("whether a term occurs in a text", () => {
  it("finds a term standing as a word, in any case", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), word, fc.array(word, { maxLength: 6 }), separator, separator, (before, term, after, s1, s2) => {
        const cased = [...term].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join("");
        const text = `${before.join(" ")}${s1}${cased}${s2}${after.join(" ")}`;
        expect(entriesIn(parseGlossary(`${term}: X\n`), text)).toEqual({ [term]: "X" });
      }),
    );
  });

  it("does not find a term that is only part of a longer word", () => {
    fc.assert(
      fc.property(word, fc.stringMatching(/^[a-z0-9_]{1,3}$/), fc.boolean(), (term, extra, atStart) => {
        const lower = term.toLowerCase();
        fc.pre(!extra.includes(lower));
        const text = `see ${atStart ? extra + term : term + extra} here`;
        expect(occurs(text.toLowerCase(), lower)).toBe(false);
        expect(entriesIn(parseGlossary(`${term}: X\n`), text)).toBeUndefined();
      }),
    );
  });

  it("matches as the rule says: whole words, several of them, punctuation inside terms, letters beyond ASCII", () => {
    const glossary = parseGlossary('API: API\n"pull request": demande de fusion\nC++: C++\nÉtat: state\nrap: rap\n');
    expect(entriesIn(glossary, "Open a Pull Request against the api.")).toEqual({ API: "API", "pull request": "demande de fusion" });
    expect(entriesIn(glossary, "APIs are rapid; pull requests too")).toBeUndefined();
    expect(entriesIn(glossary, "Written in c++ and ÉTAT")).toEqual({ "C++": "C++", État: "state" });
    expect(entriesIn(glossary, "étatique")).toBeUndefined();
  });

  it("reads YAML and JSON, and says what to write when a glossary is not term: translation", () => {
    expect(parseGlossary('{"Widget": "Gadget"}').entries).toEqual({ Widget: "Gadget" });
    expect(() => parseGlossary("- a\n- b\n")).toThrow(/not a mapping of terms to translations; write one "term: translation" a line/);
    expect(() => parseGlossary("Widget:\n  - a\n")).toThrow(/gives "Widget" no text as its translation/);
  });
});

const site = (languages: string[]) => workflowText(languages).replace("      as: lang\n", "      as: lang\n      glossary: glossary/{lang}.yml\n");

/** Sections, each holding some of the terms. */
const PAGES = {
  "docs/intro.md": "# Intro\n\nA widget and a Gadget.\n\n## Install\n\nInstall the widget.\n\n## Limits\n\nNo terms here.\n",
  "docs/api.md": "# API\n\nThe api has gadgets.\n\n## Keys\n\nKeys open the API and the widget.\n",
};
/** Which terms each section holds, whole word: "gadgets" is not "gadget". */
const HOLDS: Record<string, string[]> = {
  "docs/intro.md#intro": ["Gadget", "Widget"],
  "docs/intro.md#install": ["Widget"],
  "docs/intro.md#limits": [],
  "docs/api.md#api": ["API"],
  "docs/api.md#keys": ["API", "Widget"],
};
const TERMS = ["API", "Gadget", "Widget"];
const glossaryText = (translations: Record<string, string>) =>
  Object.entries(translations)
    .map(([t, x]) => `${t}: ${x}\n`)
    .join("");

function translated(dir: string, languages: string[]): void {
  writeFiles(dir, Object.fromEntries(languages.map((l) => [`glossary/${l}.yml`, glossaryText(Object.fromEntries(TERMS.map((t) => [t, `${t}-${l}`])))])));
}

describe("a glossary by term", () => {
  it("gives each section's prompt only the entries of its terms", async () => {
    const dir = tempRepo({ "workflow.yml": site(["fr"]), "prompts.yml": PROMPTS, ...PAGES });
    translated(dir, ["fr"]);
    await step(dir);
    expect(prompts.get("translate[fr:docs/intro.md#install]")).toContain("# Glossary\n\nTranslate these terms as given:\n\n- Widget: Widget-fr\n\n# Task");
    expect(prompts.get("translate[fr:docs/api.md#keys]")).toContain("- API: API-fr\n- Widget: Widget-fr\n");
    expect(prompts.get("translate[fr:docs/intro.md#limits]")).not.toContain("# Glossary");
  });

  it("re-runs exactly the sections holding a term edited, added or removed, in that language only", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TERMS, "Keys", "Nothing"),
        fc.constantFrom("edit", "remove", "add"),
        fc.constantFrom("fr", "de"),
        async (term, change, lang) => {
          const dir = tempRepo({ "workflow.yml": site(["fr", "de"]), "prompts.yml": PROMPTS, ...PAGES });
          translated(dir, ["fr", "de"]);
          await step(dir);
          const entries = Object.fromEntries(TERMS.map((t) => [t, `${t}-${lang}`]));
          const known = TERMS.includes(term);
          if (change === "remove") delete entries[term];
          else if (change === "edit" || !known) entries[term] = `${term}-${lang}-2`;
          else fc.pre(false); // adding a term already there is an edit
          writeFiles(dir, { [`glossary/${lang}.yml`]: glossaryText(entries) });
          const holds = (section: string) => (HOLDS[section] ?? []).includes(term) || (term === "Keys" && section === "docs/api.md#keys");
          const expected = Object.keys(HOLDS)
            .filter(holds)
            .filter(() => known || change !== "remove")
            .map((s) => `translate[${lang}:${s}]`)
            .sort();
          const after = await step(dir);
          expect(after.called).toEqual(expected);
          expect(after.after).toEqual([]);
        },
      ),
      { numRuns: 12 },
    );
  });

  it("a plan names the term that changed", async () => {
    const dir = tempRepo({ "workflow.yml": site(["fr"]), "prompts.yml": PROMPTS, ...PAGES });
    translated(dir, ["fr"]);
    await step(dir);
    writeFiles(dir, { "glossary/fr.yml": glossaryText({ API: "API-fr", Gadget: "Bidule", Widget: "Widget-fr" }) });
    const { plan } = await planOf(dir, { cwd: dir });
    const intro = plan.pairs.find((p) => p.id === "translate[fr:docs/intro.md#intro]")!;
    expect(intro.action).toBe("run");
    expect(JSON.stringify(intro.reasons)).toContain("prompt.glossary.Gadget");
    expect(plan.pairs.filter((p) => p.action === "run" && p.id.includes("#")).map((p) => p.id)).toEqual(["translate[fr:docs/intro.md#intro]"]);
  });

  it("rejects a glossary that is missing, outside the repository or not term: translation, at its line", () => {
    const issuesOf = (dir: string): string[] => {
      try {
        loadWorkflow(dir, dir);
      } catch (err) {
        if (err instanceof ConfigError) return err.issues.map((i: ConfigIssue) => `${path.basename(i.file)}:${i.line}: ${i.message}`);
        throw err;
      }
      throw new Error("expected the workflow to be rejected");
    };
    const missing = tempRepo({ "workflow.yml": site(["fr"]), "prompts.yml": PROMPTS, ...PAGES });
    expect(issuesOf(missing)).toEqual([
      expect.stringMatching(
        /^workflow\.yml:10: cannot read the glossary glossary\/fr\.yml \(it does not exist\); create it \(term: translation, one a line\) or fix the path$/,
      ),
    ]);
    writeFiles(missing, { "glossary/fr.yml": "- Widget\n" });
    expect(issuesOf(missing)).toEqual([expect.stringMatching(/^workflow\.yml:10: the glossary glossary\/fr\.yml is not a mapping of terms to translations/)]);
    const outside = tempRepo({ "workflow.yml": site(["fr"]).replace("glossary/{lang}.yml", "../{lang}.yml"), "prompts.yml": PROMPTS, ...PAGES });
    expect(issuesOf(outside)).toEqual([
      expect.stringMatching(/^workflow\.yml:10: "\.\.\/fr\.yml" is outside the repository .*; give a glossary file inside it/),
    ]);
    const values = tempRepo({
      "workflow.yml": "name: t\ngenerator: translator\naction_pairs:\n  t:\n    foreach:\n      values: [fr]\n      glossary: g.yml\n    output: out/{value}\n",
      "g.yml": "a: b\n",
    });
    expect(issuesOf(values)).toEqual([expect.stringMatching(/^workflow\.yml:7: gives each file or piece the glossary entries .*; use it with foreach files$/)]);
  });
});
