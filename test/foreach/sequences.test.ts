import { scaled } from "../helpers/time.js";
// Random sequences of pages added, deleted and edited: after each batch the plan lists exactly the
// instances the changes reach, the run executes exactly what the plan listed, and a second run
// would execute nothing.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { appendPage, deletePage, downstreamOf, pagesRepo, pageName, step, writePage } from "./world.js";

type Op = { kind: "add"; n: number } | { kind: "delete"; pick: number } | { kind: "edit"; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), n: fc.integer({ min: 0, max: 11 }) }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("edit" as const), pick: fc.nat() }),
);

describe("foreach under random adds, deletes and edits", () => {
  it("plans exactly what the changes reach, runs exactly what it plans, and then has nothing left to run", { timeout: scaled(60_000) }, async () => {
    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const dir = pagesRepo(4);
        const present = new Set([0, 1, 2, 3].map(pageName));
        // Each page's text, and every set of pages with their texts a run has accepted an index of.
        const texts = new Map([0, 1, 2, 3].map((i) => [pageName(i), `# Page ${i}\n`]));
        const state = () => JSON.stringify([...present].sort().map((p) => [p, texts.get(p)]));
        const indexed = new Set([state()]);
        const first = await step(dir);
        expect(first.executed).toEqual(first.planned);
        expect(first.after).toEqual([]);
        for (const batch of batches) {
          const before = new Set(present);
          const changed = new Set<string>();
          for (const o of batch) {
            const list = [...present].sort();
            if (o.kind === "add") {
              const page = `docs/new-${o.n}.md`;
              // Fresh text every time: a page added again is never its old self.
              const text = `# New ${o.n}\n\nversion ${++counter}\n`;
              writePage(dir, page, text);
              texts.set(page, text);
              present.add(page);
              changed.add(page);
            } else if (list.length > 0) {
              const page = list[o.pick % list.length]!;
              if (o.kind === "delete") {
                deletePage(dir, page);
                present.delete(page);
                changed.delete(page);
              } else {
                const edit = `edit ${++counter}\n`;
                appendPage(dir, page, edit);
                texts.set(page, texts.get(page)! + edit);
                changed.add(page);
              }
            }
          }
          const gone = [...before].filter((p) => !present.has(p));
          // The index of a set of pages an earlier run indexed is that run's: restored, not run (a
          // deletion can take the pages back to such a set).
          const again = indexed.has(state());
          const expected = changed.size > 0 || gone.length > 0 ? downstreamOf(...changed).filter((id) => id !== "index" || !again) : [];
          indexed.add(state());
          const s = await step(dir);
          expect(s.planned).toEqual(expected);
          expect(s.executed).toEqual(s.planned);
          expect(s.removed).toEqual(gone.flatMap((p) => [`check[${p}]`, `translate[${p}]`]).sort());
          expect(s.after).toEqual([]);
          expect(s.status).toBe("success");
        }
      }),
      { numRuns: 8 },
    );
  });
});
