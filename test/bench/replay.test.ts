/**
 * The replay bench (bench/replay.ts): on the first commits of the Rust book's real history,
 * pairflow buys exactly the ideal's calls and tokens, page by page; a variant pairflow does not
 * take yet is skipped with the reason; and the stand-in translation is line by line, so that an
 * edit to a page changes only its own lines of the translation.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayHistory, sectionsOf, translate, VARIANTS, type Variant } from "../../bench/replay.js";

describe("replaying the Rust book's history", () => {
  it("buys one translate call per changed page and one summary call per commit, with the ideal's tokens", async () => {
    const { references, results } = await replayHistory({ commits: 12, variants: [VARIANTS[0]!] });
    const result = results[0]!;
    if (!("bought" in result)) throw new Error(`the whole-files variant was skipped: ${result.skipped}`);
    expect(result.bought).toHaveLength(13);
    // The base: every page translated, then the summary.
    expect(result.bought[0]!.translate.calls).toBe(10);
    expect(result.bought[0]!.summary.calls).toBe(1);
    result.bought.forEach((bought, i) => {
      const ideal = references[i]!;
      const at = ideal.commit?.id ?? "the base";
      expect(bought.translate.calls, `translate calls at ${at}`).toBe(ideal.ideal.calls);
      expect(bought.translate.input, `translate input tokens at ${at}`).toBe(ideal.ideal.input);
      expect(bought.summary.calls, `summary calls at ${at}`).toBe(ideal.summary.calls);
      expect(bought.summary.input, `summary input tokens at ${at}`).toBe(ideal.summary.input);
      expect(bought.translate.input).toBeGreaterThan(0);
    });
  });

  it("skips a variant whose workflow pairflow rejects for the key it needs, and fails on any other rejection", async () => {
    const base = VARIANTS[0]!;
    const unknown: Variant = {
      ...base,
      name: "unknown key",
      workflow: base.workflow.replace("generator: standin\n", "generator: standin\nno_such_key: true\n"),
      needs: "no_such_key",
    };
    const { results } = await replayHistory({ commits: 1, variants: [unknown] });
    expect(results[0]).toMatchObject({ skipped: expect.stringContaining('unknown key "no_such_key"') });

    const broken: Variant = { ...unknown, needs: "other_key" };
    await expect(replayHistory({ commits: 1, variants: [broken] })).rejects.toThrow(/no_such_key/);
  });
});

describe("the stand-in", () => {
  const line = fc.oneof(
    fc.constantFrom("", "# The title", "The value of a variable is not a string.", "```", "let x = 5; // the code"),
    fc.string({ maxLength: 20 }),
  );
  const lines = fc.array(
    line.filter((l) => !l.includes("\n")),
    { minLength: 1, maxLength: 15 },
  );

  it("changes only the lines of the translation whose page lines changed", () => {
    fc.assert(
      fc.property(lines, fc.nat(), line, (page, at, edit) => {
        fc.pre(!edit.includes("\n") && !/^\s*```/.test(edit) && !page.some((l) => /^\s*```/.test(l)));
        const i = at % page.length;
        const edited = page.map((l, j) => (j === i ? edit : l));
        const before = translate(page.join("\n")).split("\n");
        const after = translate(edited.join("\n")).split("\n");
        expect(after).toHaveLength(before.length);
        after.forEach((l, j) => {
          if (j !== i) expect(l).toBe(before[j]);
        });
      }),
    );
  });

  it("splits a page into sections that join back into the page, each but the first starting at a heading", () => {
    fc.assert(
      fc.property(lines, (page) => {
        const text = page.join("\n");
        const sections = sectionsOf(text);
        expect(sections.join("\n")).toBe(text);
        for (const s of sections.slice(1)) expect(s).toMatch(/^#{1,6}\s/);
      }),
    );
  });
});
