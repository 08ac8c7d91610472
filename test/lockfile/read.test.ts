/**
 * A lock file read back is the lock file written: every entry's components, whatever their names
 * (names an object inherits, `__proto__`), in their order, and written again byte for byte. And
 * whatever the text, reading it is reading it as JSON: cutting the components mappings out of the
 * text first (parseLock does, to keep them undecoded) never reads a file differently.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, type ConfigIssue } from "../../src/model/errors.js";
import { componentsOf, type LockFile } from "../../src/model/records.js";
import { parseLock } from "../../src/lockfile/read.js";
import { serializeLock } from "../../src/lockfile/write.js";

const HASH = "0".repeat(64);
const NAME = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "input:a b.py", "artifact:x", "upstream:x", "", "components", "}", "\\"),
  fc.string(),
);

/** A lock file of these pairs, each with its components in this order (a name may come twice: JSON keeps the last). */
function lockOf(pairs: Record<string, [string, string][]>): LockFile {
  const entry = (components: [string, string][]) => ({
    configRef: HASH,
    contentHash: HASH,
    source: "generated",
    model: null,
    components: JSON.parse(`{${components.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`) as Record<string, string>,
    attempts: 1,
    tokens: { input: 0, output: 0 },
    durationMs: 0,
    acceptedAt: "2026-01-01T00:00:00.000Z",
  });
  return { version: 1, workflow: "w", pairs: Object.fromEntries(Object.entries(pairs).map(([id, c]) => [id, entry(c)])) } as unknown as LockFile;
}

describe("reading the lock file", () => {
  it("gives back every entry's components as written, and writes the same text again", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.array(fc.tuple(NAME, fc.string({ maxLength: 16 })), { maxLength: 8 }), { maxKeys: 5 }),
        (pairs) => {
          const lock = lockOf(pairs);
          const text = serializeLock(lock);
          const read = parseLock(text, "workflow.lock.json");
          expect(serializeLock(read)).toBe(text);
          for (const [id, entry] of Object.entries(lock.pairs)) {
            const components = componentsOf(read.pairs[id]!);
            expect(Object.entries(components)).toEqual(Object.entries(entry.components));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads any text as JSON reads it, whatever is written where the components are", () => {
    // Values a hostile or hand-edited file may hold where pairflow writes a components mapping.
    const replacement = fc.oneof(
      fc.constantFrom("0", "1", "7", "-1", "1.5", "1e0", "null", '"{}"', '"0"', "[]", '{"a":1}', '{"a":{"b":"c"}}', '{ "a": "b" }', '{"a":"b",}', "{"),
      fc.tuple(NAME, fc.string({ maxLength: 8 })).map(([k, v]) => `{${JSON.stringify(k)}:${JSON.stringify(v)}}`),
      // The same key twice in the entry: JSON keeps the last.
      fc.nat(3).map((n) => `{"a":"b"},"components":${n}`),
      fc.nat(3).map((n) => `${n},"components":{"a":"b"}`),
    );
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("components" as const), entry: fc.nat(), value: replacement }),
      // A components key where no entry has one, which a cut must not take for an entry's.
      fc.record({ kind: fc.constant("tokens" as const), entry: fc.nat(), value: replacement }),
      fc.record({ kind: fc.constant("reformat" as const) }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.array(fc.tuple(NAME, fc.string({ maxLength: 8 })), { maxLength: 4 }), {
          minKeys: 1,
          maxKeys: 4,
        }),
        fc.array(mutation, { maxLength: 3 }),
        (pairs, mutations) => {
          let text = serializeLock(lockOf(pairs));
          for (const m of mutations) {
            if (m.kind === "reformat") {
              try {
                text = JSON.stringify(JSON.parse(text), null, 2);
              } catch {
                // Not JSON already: left as it is.
              }
              continue;
            }
            const lines = text.split("\n");
            const at = lines.map((l, i) => (l.includes('"configRef"') ? i : -1)).filter((i) => i >= 0);
            if (at.length === 0) continue;
            const i = at[m.entry % at.length]!;
            lines[i] =
              m.kind === "components"
                ? lines[i]!.replace(/"components": ?\{[^]*?\},( *)"attempts"/, (_, space: string) => `"components":${m.value},${space}"attempts"`)
                : lines[i]!.replace(/"tokens": ?\{/, `"tokens":{"components":${m.value},`);
            text = lines.join("\n");
          }
          let whole: { pairs: Record<string, { components: unknown }> } | undefined;
          try {
            whole = JSON.parse(text) as typeof whole;
          } catch {
            whole = undefined;
          }
          const flat = (c: unknown) => c !== null && typeof c === "object" && !Array.isArray(c) && Object.values(c).every((v) => typeof v === "string");
          if (whole === undefined || !Object.values(whole.pairs).every((e) => flat(e.components))) {
            expect(() => parseLock(text, "workflow.lock.json")).toThrow(ConfigError);
            return;
          }
          const read = parseLock(text, "workflow.lock.json");
          expect(Object.keys(read.pairs)).toEqual(Object.keys(whole.pairs));
          for (const [id, e] of Object.entries(whole.pairs)) {
            expect({ ...read.pairs[id], components: componentsOf(read.pairs[id]!) }).toEqual(e);
            expect(Object.keys(componentsOf(read.pairs[id]!))).toEqual(Object.keys(e.components as object));
          }
          // What is read writes out to a file that reads the same again.
          const again = parseLock(serializeLock(read), "workflow.lock.json");
          for (const id of Object.keys(whole.pairs)) expect(componentsOf(again.pairs[id]!)).toEqual(componentsOf(read.pairs[id]!));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("shows each damaged entry at its place, whatever the layout and the ids", () => {
    const damage = fc.oneof(
      fc.record({ kind: fc.constant("missing" as const), field: fc.constantFrom("configRef", "contentHash", "components", "acceptedAt") }),
      fc.record({
        kind: fc.constant("wrong" as const),
        field: fc.constantFrom("configRef", "source", "attempts", "tokens"),
        value: fc.constantFrom(null, -1.5, "x", [1]),
      }),
      fc.record({ kind: fc.constant("entry" as const), value: fc.constantFrom(null, 3, "entry", [] as unknown[]) }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(fc.constantFrom("__proto__", "constructor", "a.b", "0", "7", 'q"uote', "é"), fc.string({ minLength: 1, maxLength: 6 })),
          fc.option(damage),
          {
            minKeys: 1,
            maxKeys: 6,
          },
        ),
        fc.constantFrom("written", "compact", "indented", "tabs"),
        (entries, layout) => {
          const lock = lockOf(Object.fromEntries(Object.keys(entries).map((id) => [id, [["model", "m"]] as [string, string][]])));
          const value = JSON.parse(serializeLock(lock)) as { pairs: Record<string, Record<string, unknown> | unknown> };
          const damaged = new Map<string, NonNullable<(typeof entries)[string]>>();
          for (const [id, d] of Object.entries(entries)) {
            if (d === null) continue;
            damaged.set(id, d);
            const entry = value.pairs[id] as Record<string, unknown>;
            if (d.kind === "missing") delete entry[d.field];
            else if (d.kind === "wrong") entry[d.field] = d.value;
            else value.pairs[id] = d.value;
          }
          const text =
            layout === "written"
              ? // As serializeLock lays a lock file out: an entry a line.
                `{\n  "version": 1,\n  "workflow": "w",\n  "pairs": {\n${Object.entries(value.pairs)
                  .map(([id, e]) => `    ${JSON.stringify(id)}: ${JSON.stringify(e)}\n`)
                  .join("    ,\n")}  }\n}\n`
              : JSON.stringify(value, null, layout === "compact" ? undefined : layout === "indented" ? 2 : "\t");
          if (damaged.size === 0) return;
          let issues: ConfigIssue[] = [];
          try {
            parseLock(text, "workflow.lock.json");
          } catch (err) {
            issues = (err as ConfigError).issues;
          }
          expect(issues).toHaveLength(damaged.size);
          const starts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index + 1)];
          for (const issue of issues) {
            // The message names the pair as it is; of ids that start alike, the longest is the one named.
            const id = [...damaged.keys()].sort((a, b) => b.length - a.length).find((k) => issue.message.startsWith(`the entry of pair "${k}" `))!;
            const d = damaged.get(id)!;
            const offset = starts[issue.line - 1]! + issue.column - 1;
            // At the entry's value, after its id; for a field of the wrong type, at that field's value.
            const key = d.kind === "wrong" ? d.field : id;
            expect(text.slice(0, offset)).toMatch(new RegExp(`${escapeRegExp(JSON.stringify(key))}\\s*:\\s*$`));
            const at = text.slice(offset).replace(/\s/g, "");
            expect(at.startsWith(d.kind === "missing" ? "{" : JSON.stringify(d.value))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
