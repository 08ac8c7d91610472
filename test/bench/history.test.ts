/**
 * The vendored slice of the Rust book's history (bench/history/rust-book/) gives back, replayed,
 * every commit's pages as the book's repository has them, and its encoding round-trips any change.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyCommit, changesOf, digestOf, loadHistory, replay, sha256, type Pages } from "../../bench/history/history.js";

describe("the Rust book slice", () => {
  const history = loadHistory("rust-book");

  it("replays every commit to its pages, ending at the pages of the last one", () => {
    const states = [...replay(history)];
    expect(states).toHaveLength(history.commits.length + 1);
    const last = states.at(-1)!.pages;
    expect(Object.fromEntries(Object.entries(last).map(([p, text]) => [p, sha256(text)]))).toEqual(history.final);
    expect(Object.keys(history.final)).toHaveLength(10);
  });

  it("gives back pages as the book's repository has them at intermediate commits (sha256 of git cat-file)", () => {
    // Computed from the book's own repository: git cat-file blob <commit>:<page> | sha256sum
    const known: [string | null, string, string][] = [
      [null, "src/ch03-05-control-flow.md", "10dcfd3c5aac3a9b674d27c9cae53666161c5918091d541069cd37fd37e3c45d"],
      ["e4b326f346d0", "src/ch04-01-what-is-ownership.md", "8be3329bd95c4ad9511a88f2367a35109a91fd9364201a7436e5ff43330edfc6"],
      ["a5e0c5b2c5f9", "src/ch04-00-understanding-ownership.md", "c928725db99b50317a78423e90e790868e7efa4ffb87c62062b71ad6f3b5e59f"],
      ["d83137d9ace5", "src/ch03-02-data-types.md", "9ca87edff97836984901ad9eef13eb4508f13d94056feb44fc5721f29e1d48b4"],
    ];
    const at = new Map([...replay(history)].map((s) => [s.commit?.id ?? null, s.pages]));
    for (const [commit, page, digest] of known) expect(sha256(at.get(commit)![page]!), `${page} at ${commit ?? "the base"}`).toBe(digest);
  });

  it("stops at a commit whose data was damaged", () => {
    const damaged = structuredClone(history);
    const change = damaged.commits[40]!.changes[0]!;
    if (change.patch !== undefined) change.patch = change.patch.replace(/^\+(.*)$/m, "+$1 (edited)");
    else change.content += " ";
    expect(() => [...replay(damaged)]).toThrow(`replaying commit ${damaged.commits[40]!.id} does not give its pages back`);
  });
});

describe("the encoding of a commit", () => {
  const line = fc.oneof(fc.constantFrom("", "# Title", "Some text.", "```rust", "```", "fn main() {}"), fc.string({ maxLength: 12 }));
  const text = fc.array(line, { maxLength: 20 }).chain((lines) => fc.constantFrom(lines.join("\n"), lines.join("\n") + "\n"));
  const pages = fc.dictionary(fc.constantFrom("src/a.md", "src/b.md", "src/c.md", "src/d.md"), text) as fc.Arbitrary<Pages>;
  /** Pages and the same pages edited: lines changed, added or removed, pages added, removed or renamed. */
  const edited = pages.chain((before) =>
    fc.record({
      before: fc.constant(before),
      after: fc.oneof(
        pages,
        fc.dictionary(fc.constantFrom("src/a.md", "src/e.md"), text).map((extra) => ({ ...before, ...extra }) as Pages),
        fc.constantFrom(...Object.keys(before), "none").map((p) => {
          const after = { ...before };
          if (p in after) {
            after[`src/renamed-${p.slice(4)}`] = after[p]!.replace("Some", "Any");
            delete after[p];
          }
          return after;
        }),
      ),
    }),
  );

  it("turns the pages before into the pages after", () => {
    fc.assert(
      fc.property(edited, ({ before, after }) => {
        const changes = changesOf(before, after);
        const replayed = applyCommit(before, { id: "c", date: "", subject: "", changes, digest: digestOf(after) });
        expect(replayed).toEqual(after);
        // Only what changed is stored.
        expect(changes.length <= Object.keys({ ...before, ...after }).length).toBe(true);
        if (digestOf(before) === digestOf(after)) expect(changes).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
