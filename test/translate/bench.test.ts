/**
 * The translation bench (bench/translate.ts) on the first commits of the Rust book's history: three
 * languages from one foreach, glossary terms added, changed and removed, people's pages adopted and
 * a section fixed by hand, then a fourth language. What `npm run bench` reports, asserted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { entriesOf, replayTranslations } from "../../bench/translate.js";
import { entriesIn, parseGlossary } from "../../src/config/glossary.js";

describe("translating a real docs history into three languages", () => {
  it("buys at most 1.3x the ideal's input, overwrites no person's section, adopts with no call, and adds a language alone", async () => {
    const r = await replayTranslations({ commits: 8 });
    expect(r.glossaryEdits).toHaveLength(3);
    expect(r.handEdits).toBe(2);
    expect(r.adopted.sections).toBeGreaterThan(0);
    expect(r.ideal.calls).toBeGreaterThan(0);
    expect(r.bought.input / r.ideal.input).toBeLessThanOrEqual(1.3);
    expect(r.wrong).toEqual([]);
    expect(r.overwritten).toEqual([]);
    expect(r.adopted.calls).toBe(0);
    expect(r.fourth.others).toEqual([]);
    expect(r.fourth.calls).toBe(r.fourth.sections);
  }, 120_000);
});

describe("the bench's glossary matcher", () => {
  it("finds the entries pairflow gives a piece (docs/foreach.md's rule, written independently)", () => {
    const word = fc.constantFrom("api", "API", "pull request", "heap", "rapid", "_x", "é", "(", " ", "'s", "\n", "APIs", "Heap.");
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), (words) => {
        const text = words.join("");
        const glossary = { api: "interface", "pull request": "demande", heap: "tas" };
        expect(entriesOf(glossary, text)).toEqual({ ...(entriesIn(parseGlossary(JSON.stringify(glossary)), text) ?? {}) });
      }),
    );
  });
});
