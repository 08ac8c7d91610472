/**
 * A lock file read back is the lock file written: every entry's components, whatever their names
 * (names an object inherits, `__proto__`), in their order, and written again byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LockFile } from "../../src/model/records.js";
import { parseLock } from "../../src/lockfile/read.js";
import { serializeLock } from "../../src/lockfile/write.js";

const HASH = "0".repeat(64);
const NAME = fc.oneof(fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "input:a b.py", "artifact:x", "upstream:x", ""), fc.string());

describe("reading the lock file", () => {
  it("gives back every entry's components as written, and writes the same text again", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.array(fc.tuple(NAME, fc.string({ maxLength: 16 })), { maxLength: 8 }), { maxKeys: 5 }),
        (pairs) => {
          const lock = {
            version: 1,
            workflow: "w",
            pairs: Object.fromEntries(
              Object.entries(pairs).map(([id, components]) => [
                id,
                {
                  configRef: HASH,
                  contentHash: HASH,
                  source: "generated",
                  model: null,
                  components: JSON.parse(`{${components.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`) as Record<string, string>,
                  attempts: 1,
                  tokens: { input: 0, output: 0 },
                  durationMs: 0,
                  acceptedAt: "2026-01-01T00:00:00.000Z",
                },
              ]),
            ),
          } as unknown as LockFile;
          const text = serializeLock(lock);
          const read = parseLock(text, "workflow.lock.json");
          expect(serializeLock(read)).toBe(text);
          for (const [id, entry] of Object.entries(lock.pairs)) {
            const components = read.pairs[id]!.components;
            expect(Object.entries(components)).toEqual(Object.entries(entry.components));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
