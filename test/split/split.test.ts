/**
 * Splitting files into pieces: every piece comes back in place (the pieces of a page join into the
 * page), ids are stable and readable, and an edit to one piece changes no other piece's id or text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assemble, slugOf, splitText, type SplitSpec } from "../../src/config/split.js";

/** Markdown pages made of sections, fenced code (with # lines inside), front matter and stray text. */
const lineArb = fc.oneof(
  fc.constantFrom("Some text.", "", "More words here, and a [link](x).", "  indented", "#hashtag is not a heading", "```", "~~~"),
  fc.string({ maxLength: 30, unit: "grapheme-ascii" }).map((s) => s.replace(/\n/g, " ")),
);
const sectionArb = fc.record({
  level: fc.integer({ min: 1, max: 3 }),
  heading: fc.constantFrom("Install", "Usage", "Install", "Notes: *more*", "Ünïcode title", "Usage", "FAQ?"),
  body: fc.array(lineArb, { maxLength: 6 }),
  code: fc.boolean(),
});
const pageArb = fc
  .record({
    front: fc.boolean(),
    preamble: fc.array(lineArb, { maxLength: 3 }),
    sections: fc.array(sectionArb, { maxLength: 8 }),
    finalNewline: fc.boolean(),
  })
  .map(({ front, preamble, sections, finalNewline }) => {
    const lines = [...(front ? ["---", "title: x", "---"] : []), ...preamble];
    for (const s of sections) {
      lines.push(`${"#".repeat(s.level)} ${s.heading}`, ...s.body);
      if (s.code) lines.push("```sh", "# not a heading", "echo hi", "```");
    }
    const text = lines.join("\n");
    return finalNewline ? `${text}\n` : text;
  });

describe("split: markdown", () => {
  it("gives pieces that join back into the page, with distinct ids", () => {
    fc.assert(
      fc.property(pageArb, fc.option(fc.integer({ min: 20, max: 400 }), { nil: undefined }), (page, maxChars) => {
        const spec: SplitSpec = { kind: "markdown", maxChars };
        const pieces = splitText(page, spec);
        expect(pieces.map((p) => p.text).join("")).toBe(page);
        expect(new Set(pieces.map((p) => p.id)).size).toBe(pieces.length);
        expect(
          assemble(
            spec,
            page,
            pieces.map((p) => p.text),
          ),
        ).toBe(pieces.map((p) => (p.text.endsWith("\n") || p.text === "" ? p.text : `${p.text}\n`)).join(""));
      }),
    );
  });

  it("names sections by their headings, numbering repeats, and never splits inside fenced code", () => {
    const page = "---\nt: 1\n---\n\nIntro.\n# Guide\n## Install\nA\n```\n# not\n```\n## Install\nB\n## Use it *well*\n";
    const pieces = splitText(page, { kind: "markdown" });
    expect(pieces.map((p) => p.id)).toEqual(["front-matter", "preamble", "guide", "install", "install-1", "use-it-well"]);
    expect(pieces[3]!.text).toBe("## Install\nA\n```\n# not\n```\n");
    expect(pieces[3]!.headings).toEqual(["Guide", "Install"]);
    expect(pieces[3]!.title).toBe("Guide");
  });

  it("changes only the edited section's text, and no id, when one section is edited", () => {
    fc.assert(
      fc.property(pageArb, fc.nat(), (page, pick) => {
        const before = splitText(page, { kind: "markdown" });
        if (before.length === 0) return;
        const n = pick % before.length;
        // A line added after the piece's first line: inside its section, its front matter or its code.
        // (In a section, after its heading line: lines before it are the blank lines it took from the preamble.)
        const edit = (text: string) => {
          const lines = text.split("\n");
          const at = lines.findIndex((l) => /^ {0,3}#/.test(l));
          lines.splice((at === -1 ? 0 : at) + 1, 0, "edited text");
          return lines.join("\n");
        };
        const edited = before.map((p, i) => (i === n ? edit(p.text) : p.text)).join("");
        const after = splitText(edited, { kind: "markdown" });
        expect(after.map((p) => p.id)).toEqual(before.map((p) => p.id));
        expect(after.filter((p, i) => p.text !== before[i]!.text).map((p) => p.id)).toEqual([before[n]!.id]);
      }),
    );
  });

  it("numbers a repeated id only to a free one, as GitHub numbers anchors", () => {
    const ids = (page: string) => splitText(page, { kind: "markdown" }).map((p) => p.id);
    expect(ids("## Setup\na\n## Setup\nb\n## Setup 1\nc\n")).toEqual(["setup", "setup-1", "setup-1-1"]);
    expect(ids("## Setup 1\na\n## Setup\nb\n## Setup\nc\n")).toEqual(["setup-1", "setup", "setup-2"]);
    expect(ids("Intro.\n## Preamble\na\n")).toEqual(["preamble", "preamble-1"]);
    expect(ids("\n## Preamble\na\n")).toEqual(["preamble"]);
    expect(ids("---\nt: 1\n---\n## Front matter\n")).toEqual(["front-matter", "front-matter-1"]);
    expect(splitText("a\n## x\n## x\n## x 1\n", { kind: "regex", regex: "^## " }).map((p) => p.id)).toEqual(["preamble", "x", "x-1", "x-1-1"]);
  });

  it("gives every piece its own id and every byte of the page to exactly one piece, whatever the headings repeat", () => {
    const headingArb = fc.constantFrom("Setup", "Setup 1", "Setup-1", "setup 1 1", "Setup 2", "Preamble", "Front matter", "Section", "!!!", "X ~abc");
    const specArb = fc.constantFrom<SplitSpec>(
      { kind: "markdown" },
      { kind: "markdown", maxChars: 24 },
      { kind: "markdown", maxChars: 200 },
      { kind: "regex", regex: "^#+ " },
      { kind: "regex", regex: "^#+ ", maxChars: 24 },
    );
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.constantFrom("", "\n", "Intro text.\n"),
        fc.array(fc.record({ heading: headingArb, level: fc.integer({ min: 1, max: 3 }), body: fc.constantFrom("", "Text.\n", "Same line\nSame line\n") })),
        specArb,
        (front, preamble, sections, spec) => {
          const page = (front ? "---\nt: 1\n---\n" : "") + preamble + sections.map((x) => `${"#".repeat(x.level)} ${x.heading}\n${x.body}`).join("");
          const pieces = splitText(page, spec);
          expect(new Set(pieces.map((p) => p.id)).size).toBe(pieces.length);
          expect(pieces.map((p) => p.text).join("")).toBe(page);
          expect(
            assemble(
              spec,
              page,
              pieces.map((p) => p.text),
            ),
          ).toBe(page.endsWith("\n") || page === "" ? page : `${page}\n`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads fences and headings as CommonMark does", () => {
    const ids = (page: string) => splitText(page, { kind: "markdown" }).map((p) => p.id);
    // A closing fence has no info string: "```js" inside a "```md" block is code.
    expect(ids("# A\n```md\n```js\n# comment\n```\n# B\n")).toEqual(["a", "b"]);
    expect(ids("# A\n````md\n```js\n# comment\n```\n````\n# B\n")).toEqual(["a", "b"]);
    // Tildes do not close backticks; a closing fence may be longer and end with blanks.
    expect(ids("# A\n```\n~~~\n# comment\n`````  \n# B\n")).toEqual(["a", "b"]);
    // A line of backticks with a backtick after them opens no fence.
    expect(ids("# A\n``` x ` y\n# B\n")).toEqual(["a", "b"]);
    // Seven # are no heading; a closing run of # is not part of the text, a # inside a word is.
    expect(ids("# A\n####### seven\n#######\n## C# ##\n#hashtag\n    # indented\n")).toEqual(["a", "c"]);
  });

  it("never starts a piece inside a fenced block, whatever lines that do not close it hold", () => {
    const blockArb = fc
      .record({ char: fc.constantFrom("`", "~"), length: fc.integer({ min: 3, max: 5 }), info: fc.constantFrom("", "md", "js") })
      .chain((open) =>
        fc.record({
          open: fc.constant(open),
          lines: fc.array(
            fc.oneof(
              fc.constantFrom("# comment", "## also", "text", ""),
              // Fences that do not close it: the other character, fewer of them, or an info string.
              fc.integer({ min: 3, max: 6 }).map((n) => (open.char === "`" ? "~" : "`").repeat(n)),
              fc.integer({ min: 3, max: 6 }).map((n) => `${open.char.repeat(Math.min(n, open.length - 1))}`),
              fc.integer({ min: 3, max: 6 }).map((n) => `${open.char.repeat(n)}js`),
            ),
            { maxLength: 5 },
          ),
        }),
      );
    fc.assert(
      fc.property(fc.array(fc.record({ heading: fc.constantFrom("Alpha", "Beta", "Gamma"), block: fc.option(blockArb) }), { maxLength: 6 }), (sections) => {
        const page = sections
          .map(({ heading, block }) => {
            const fence = block && block.open.char.repeat(block.open.length);
            return `## ${heading}\n` + (block ? `${fence}${block.open.info}\n${block.lines.map((l) => `${l}\n`).join("")}${fence}\n` : "");
          })
          .join("");
        const pieces = splitText(page, { kind: "markdown" });
        expect(pieces.map((p) => p.headings.at(-1))).toEqual(sections.map((x) => x.heading));
        expect(pieces.map((p) => p.text).join("")).toBe(page);
      }),
      { numRuns: 500 },
    );
  });

  it("slugs headings as GitHub anchors do", () => {
    const anchors: [string, string][] = [
      ["Hello, World!", "hello-world"],
      ["`code` and *em*", "code-and-em"],
      ["Eager Watchers \\*", "eager-watchers-"],
      ['Once <sup class="badge" /> new', "once--new"],
      ["my_var", "my_var"],
      ["__init__", "init"],
      ["_Emphasis_ and **strong**", "emphasis-and-strong"],
      ["Use `a_b` with \\_c", "use-a_b-with-_c"],
      ["[Link text](https://example.com/a_b#c) here", "link-text-here"],
      ["[Reference][ref] link", "reference-link"],
      ["What's new in v2.0?", "whats-new-in-v20"],
      ["Step 1 — Configure", "step-1--configure"],
      ["C++ & C#", "c--c"],
      ["FAQ / Troubleshooting", "faq--troubleshooting"],
      ["A &amp; B", "a--b"],
      ["--force flag", "--force-flag"],
      ["API: `createClient()`", "api-createclient"],
      ["Ünïcode title", "ünïcode-title"],
      ["日本語の見出し", "日本語の見出し"],
      ['<a name="x"></a>Anchored', "anchored"],
    ];
    for (const [heading, anchor] of anchors) expect([heading, slugOf(heading)]).toEqual([heading, anchor]);
    expect(slugOf("!!!")).toBe("section");
  });

  it("gives anchors of letters, marks, digits, connectors, - and _ only, lower case, for any heading", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "B", "_", "*", "\\", "`", "<", ">", "[", "]", "(", ")", "!", "&", ";", " ", "-", "é", "1", "#") }),
        (heading) => {
          const slug = slugOf(heading);
          expect(slug).toMatch(/^[\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}-]+$/u);
          expect(slug).toBe(slug.toLowerCase());
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("split: markdown on text a pull request controls", () => {
  it("reads heading lines built to make a parser backtrack, whole (bench/split.ts times them)", () => {
    // Each of these kept the earlier heading expression (or a naive scan) busy for minutes to hours:
    // a regression hangs this test until its timeout.
    const lines = [
      "#" + " ".repeat(20_000) + "\rx",
      "#" + " \t".repeat(10_000) + "\n\n",
      "# x" + " ".repeat(20_000) + "###\r\r",
      "# " + "[".repeat(20_000) + "(".repeat(20_000),
      "# " + "`".repeat(5_000) + " " + Array.from({ length: 150 }, (_, i) => "`".repeat(i + 1)).join(" a "),
      "# " + "<!--".repeat(10_000),
      "# " + "<a ".repeat(10_000),
      "# " + "&".repeat(20_000),
      "# " + "_a ".repeat(10_000),
      "# " + "[a](".repeat(5_000) + ")".repeat(5_000),
    ];
    for (const line of lines) {
      const pieces = splitText(`${line}\nText.\n`, { kind: "markdown" });
      expect(pieces.map((p) => p.text).join("")).toBe(`${line}\nText.\n`);
    }
  });

  it("splits a page of 60,000 sections, each with an id of its own (bench/split.ts times the growth)", () => {
    const page = Array.from({ length: 60_000 }, (_, i) => `## Section ${i % 7 === 0 ? "again" : i}\n\nText ${i}.\n\n`).join("");
    const pieces = splitText(page, { kind: "markdown" });
    expect(pieces).toHaveLength(60_000);
    expect(new Set(pieces.map((p) => p.id)).size).toBe(60_000);
    expect(pieces.map((p) => p.text).join("")).toBe(page);
  });
});

describe("split: json and yaml", () => {
  it("takes every text leaf by its key path, and puts results back in the file's structure", () => {
    const json = '{\n  "greeting": {"hello": "Hello", "bye": "Bye"},\n  "count": 3,\n  "a.b": "dotted"\n}\n';
    const pieces = splitText(json, { kind: "json" });
    expect(pieces.map((p) => [p.id, p.text])).toEqual([
      ["greeting.hello", "Hello"],
      ["greeting.bye", "Bye"],
      ["a\\.b", "dotted"],
    ]);
    expect(JSON.parse(assemble({ kind: "json" }, json, ["Bonjour\n", "Au revoir", "pointé"]))).toEqual({
      greeting: { hello: "Bonjour", bye: "Au revoir" },
      count: 3,
      "a.b": "pointé",
    });
    const yaml = "# menu\ngreeting:\n  hello: Hello  # kept\n  bye: Bye\nitems: [One, Two]\n";
    expect(splitText(yaml, { kind: "yaml" }).map((p) => p.id)).toEqual(["greeting.hello", "greeting.bye", "items.0", "items.1"]);
    const out = assemble({ kind: "yaml" }, yaml, ["Bonjour", "Au revoir", "Un", "Deux"]);
    expect(out).toContain("# menu");
    expect(out).toContain("hello: Bonjour # kept");
  });
});
