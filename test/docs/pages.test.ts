/**
 * The docs as a reader finds them: a README read in two minutes that links every page, links that
 * lead somewhere, and an extractor (test/docs/extract.ts) that catches an example gone stale.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/fixtures.js";
import { blocks, commands, jsonMismatch, missingLine, session } from "./extract.js";

const read = (file: string) => readFileSync(path.join(REPO, file), "utf8");
const DOCS = readdirSync(path.join(REPO, "docs"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/${f}`);
const PAGES = ["README.md", "CONTRIBUTING.md", ...DOCS];

/** The anchors GitHub gives a page's headings. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = blocks(markdown).reduce((t, b) => t.replace(b.text, ""), markdown);
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every relative link of a page, outside its code: [text](target). */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe("the README", () => {
  it("is at most 200 lines and opens with the two commands a newcomer runs", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    expect(commands(blocks(readme)[0]!.text)).toEqual([
      "node dist/cli.js run examples/tdd-stack    # run the example workflow offline: needs only Node 20+, nothing to install",
      "npm ci && npm test                         # install the locked dependencies and run the tests",
    ]);
  });

  it("links every page of docs/", () => {
    const linked = new Set(links(read("README.md")).map((t) => t.split("#")[0]));
    expect(DOCS.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe("links between the docs", () => {
  it("lead to a file that exists, and to a heading it has", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of links(read(page))) {
        const [file, anchor] = target.split("#");
        const resolved = file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file!));
        if (!existsSync(path.join(REPO, resolved))) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(read(resolved)).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("the examples' extractor", () => {
  const page = [
    "text",
    "<!-- before: pairflow run -->",
    "```text",
    "$ pairflow plan examples/tdd-stack",
    "Estimate for 3 pairs to run: 6,301 tokens, cost unknown",
    "…",
    "```",
    "<!-- fragment: not parseable, an excerpt -->",
    "```json",
    '{ "a": … }',
    "```",
    "<!-- generated:help -->",
    "```text",
    "$ pairflow --help",
    "```",
    "<!-- /generated:help -->",
    "  ```sh",
    "  pairflow prompt g_impl examples/tdd-stack --attempt 2 \\",
    '    --feedback "pop"   # a retry',
    "  ```",
    "",
  ].join("\n");

  it("takes each block with its markers, and leaves generated parts out", () => {
    const found = blocks(page);
    expect(found.map((b) => [b.line, b.lang])).toEqual([
      [3, "text"],
      [9, "json"],
      [17, "sh"],
    ]);
    expect(found[0]!.markers).toEqual({ before: ["pairflow run"] });
    expect(found[1]!.markers.fragment).toBe("not parseable, an excerpt");
    expect(commands(found[2]!.text)).toEqual(['pairflow prompt g_impl examples/tdd-stack --attempt 2 \\\n  --feedback "pop"   # a retry']);
  });

  it("finds an output the text shows but the command no longer prints, and passes what differs only in hashes, numbers and times", () => {
    const shown = session(blocks(page)[0]!.text)!;
    expect(shown.command).toBe("pairflow plan examples/tdd-stack");
    const printed = "Plan for ...\n\nEstimate for 3 pairs to run: 6,301 tokens, $0.00\n  pair  model\n";
    expect(missingLine(shown.output, printed)).toBe("Estimate for 3 pairs to run: 6,301 tokens, cost unknown");
    expect(missingLine(shown.output, printed.replace("$0.00", "cost unknown").replace("6,301", "12"))).toBeUndefined();
    expect(
      missingLine(
        ["  skip  g_test    d1ff3e60d000  unchanged", "done in 0.6s  (run 20261122T005054238Z-9154)"],
        "skip g_test 0123abcd9999 unchanged\ndone in 1.3s (run 20261128T122130032Z-2c0f)",
      ),
    ).toBeUndefined();
    expect(missingLine(["b", "a"], "a\nb")).toBe("a");
  });

  it("finds a JSON key, value or list element the example shows and the command does not print", () => {
    const printed = {
      version: 1,
      runId: "20261128T122130032Z-2c0f",
      pairs: [
        { id: "a", status: "reused" },
        { id: "b", status: "executed", note: null },
      ],
      message: "unknown key; expected one of: x, y",
    };
    expect(
      jsonMismatch({ version: 1, runId: "20261122T005054238Z-9154", pairs: [{ id: "b", status: "executed" }], message: "unknown key; expected ..." }, printed),
    ).toBeUndefined();
    expect(jsonMismatch({ pairs: [{ id: "a", status: "executed" }] }, printed)).toBe('$.pairs[0].status: "executed", not "reused"');
    expect(jsonMismatch({ totals: {} }, printed)).toBe("$.totals: not printed");
    expect(jsonMismatch({ version: "1" }, printed)).toBe('$.version: "1", not 1');
    expect(jsonMismatch({ pairs: [{ note: "<text>" }] }, printed)).toMatch(/^\$\.pairs\[0\]\.note/);
  });
});
