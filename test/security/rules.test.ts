/**
 * The pure rules behind test/security/paths.test.ts, over generated input: where an output may
 * never go, a path as a glob that matches exactly it, a pair id as a file name of bounded length, and
 * what a command printed as a terminal shows it.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { escapeGlob, reservedOutput } from "../../src/config/paths.js";
import { dependencyFileName } from "../../src/generators/command.js";
import { isHashedKey, KEY_BYTES, pairKey } from "../../src/refs/keys.js";
import { visible } from "../../src/report/visible.js";
import { LocalStore } from "../../src/store/local.js";

const SEED = Number(process.env.PAIRFLOW_FUZZ_SEED ?? 25);
const ROOT = "/repo";
const LOCK = "/repo/flows/workflow.lock.json";

/** A name made of letters, dots and dashes: anything a path component can be. */
const name = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((n) => n !== "." && n !== "..");
const randomCase = (text: string) =>
  fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((up) => [...text].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(""));

describe("reservedOutput", () => {
  it("refuses any path with a .git component, at any depth and in any case", () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 4 }), randomCase(".git"), fc.array(name, { maxLength: 4 }), (before, git, after) => {
        const file = path.join(ROOT, ...before, git, ...after);
        expect(reservedOutput(file, { root: ROOT, lockFile: LOCK })).toMatch(/inside a \.git directory/);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("refuses the lock file and every file pairflow keeps beside it, and anything in a state directory", () => {
    fc.assert(
      fc.property(name, fc.array(name, { maxLength: 3 }), (suffix, under) => {
        expect(reservedOutput(LOCK, { root: ROOT, lockFile: LOCK })).toMatch(/lock file/);
        expect(reservedOutput(`/repo/flows/.workflow.lock.json.${suffix}`, { root: ROOT, lockFile: LOCK })).toMatch(/run mutex/);
        expect(reservedOutput(path.join(ROOT, ".pairflow", ...under), { root: ROOT, lockFile: LOCK })).toMatch(/state directory \(\.pairflow\)/);
        expect(reservedOutput(path.join("/elsewhere/state", ...under), { root: ROOT, lockFile: LOCK, stateDirs: ["/elsewhere/state"] })).toMatch(
          /state directory/,
        );
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it("allows every other path", () => {
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), (parts) => {
        fc.pre(!parts.some((p) => p.toLowerCase() === ".git") && parts[0]!.toLowerCase() !== ".pairflow");
        fc.pre(!(parts.length === 2 && parts[0]!.toLowerCase() === "flows" && parts[1]!.toLowerCase().startsWith(".workflow.lock.json.")));
        fc.pre(path.join(...parts).toLowerCase() !== "flows/workflow.lock.json");
        expect(reservedOutput(path.join(ROOT, ...parts), { root: ROOT, lockFile: LOCK })).toBeUndefined();
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe("escapeGlob", () => {
  const hostile = fc.constantFrom(..."\\*?[]{}()!@+|^$, é#%-a.".split(""));
  // fast-glob strips a leading "./" or ".\\" from every path it reports, so a path that starts with
  // ".\\" can be matched by no glob at all: left out.
  const name = fc
    .array(hostile, { minLength: 1, maxLength: 16 })
    .map((chars) => chars.join(""))
    .filter((n) => n !== "." && n !== ".." && !n.startsWith(".\\"));

  it("matches exactly the file named, among others with hostile names, in a directory with a hostile name", () => {
    fc.assert(
      fc.property(name, fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), (dirName, names) => {
        const dir = mkdtempSync(path.join(tmpdir(), "pairflow-glob-"));
        mkdirSync(path.join(dir, dirName));
        for (const n of names) writeFileSync(path.join(dir, dirName, n), "x");
        for (const n of names) {
          expect(fg.sync(`${escapeGlob(dirName)}/${escapeGlob(n)}`, { cwd: dir, dot: true })).toEqual([`${dirName}/${n}`]);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe("store keys of bounded length", () => {
  const before = (id: string) =>
    /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(id)
      ? id
      : id.replace(/[^A-Za-z0-9_.-]/gu, (c) => encodeURIComponent(c).replace(/[!'()*]/g, (x) => "%" + x.charCodeAt(0).toString(16).toUpperCase()));
  const item = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.string({ unit: "grapheme", minLength: 100, maxLength: 300 }),
    fc.constant("é".repeat(120)),
  );
  const id = item.map((text) => `t[docs/${text}]`);

  it("keeps every key that fits as it was, so existing stores still hit, and bounds the rest", () => {
    fc.assert(
      fc.property(id, (pair) => {
        const key = pairKey(pair);
        expect(Buffer.byteLength(key)).toBeLessThanOrEqual(KEY_BYTES);
        expect(key).not.toContain("/");
        if (before(pair).length <= KEY_BYTES) {
          expect(key).toBe(before(pair));
          expect(decodeURIComponent(key)).toBe(pair);
        } else {
          expect(isHashedKey(key)).toBe(true);
          expect(key.startsWith(before(pair).slice(0, 60))).toBe(true);
        }
        expect(Buffer.byteLength(dependencyFileName(pair))).toBeLessThanOrEqual(KEY_BYTES);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("gives distinct ids distinct keys", () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 2, maxLength: 20 }), (ids) => {
        expect(new Set(ids.map(pairKey)).size).toBe(ids.length);
        expect(new Set(ids.map(dependencyFileName)).size).toBe(ids.length);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it("a record under a shortened key is read back only for its own whole id", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pairflow-store-"));
    const store = new LocalStore(dir);
    const long = `t[docs/${"é".repeat(120)}.md]`;
    const configRef = "c".repeat(64);
    const contentHash = store.putContent("text\n");
    store.putRecord({ pair: long, configRef, status: "accepted", contentHash, components: {}, at: "2026-01-01T00:00:00.000Z" });
    expect(store.record(long, configRef)?.pair).toBe(long);
    // Another id with the same readable start: its own key, no record.
    expect(store.record(`t[docs/${"é".repeat(121)}.md]`, configRef)).toBeUndefined();
    expect(readdirSync(path.join(dir, "pairs"))).toEqual([pairKey(long)]);
  });
});

describe("visible", () => {
  // Control characters, and the bidi and other format characters, separators and lone surrogates that show as nothing.
  const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
  it("leaves no control or invisible character but newline and tab, and changes nothing else", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        const shown = visible(text);
        expect(shown).not.toMatch(controls);
        // Undoing the escapes gives the text back, once any "\x" it held itself is told apart.
        if (!text.includes("\\x") && !text.includes("\\u")) {
          const undone = shown.replace(/\\x([0-9a-f]{2})|\\u\{([0-9a-f]+)\}|\\u([0-9a-f]{4})/g, (_, x?: string, u?: string, v?: string) =>
            String.fromCodePoint(parseInt(x ?? u ?? v!, 16)),
          );
          expect(undone).toBe(text);
        }
        if (!controls.test(text)) expect(shown).toBe(text);
      }),
      { seed: SEED, numRuns: 1000 },
    );
    expect(visible("\x1b]0;pwned\x07 \x1b[2K\rok\n\tnext\x9b")).toBe("\\x1b]0;pwned\\x07 \\x1b[2K\\x0dok\n\tnext\\x9b");
    expect(visible("if (\u202eadmin\u2066) {\u200b")).toBe("if (\\u202eadmin\\u2066) {\\u200b");
  });
});
