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
              writePage(dir, page, `# New ${o.n}\n\nversion ${++counter}\n`);
              present.add(page);
              changed.add(page);
            } else if (list.length > 0) {
              const page = list[o.pick % list.length]!;
              if (o.kind === "delete") {
                deletePage(dir, page);
                present.delete(page);
                changed.delete(page);
              } else {
                appendPage(dir, page, `edit ${++counter}\n`);
                changed.add(page);
              }
            }
          }
          const gone = [...before].filter((p) => !present.has(p));
          const expected = changed.size > 0 || gone.length > 0 ? downstreamOf(...changed) : [];
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
