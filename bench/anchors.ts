/**
 * Piece ids of `split: markdown` against the anchors GitHub gives the same headings, over every
 * page of every commit of the replayed history. The anchors are computed apart from pairflow: each
 * heading rendered as GFM inline text by marked, its text read back by parse5 (entities decoded,
 * tags dropped), then GitHub's rule and numbering as the split tests check them
 * (test/helpers/githubAnchor.ts).
 */
import { marked } from "marked";
import { parseFragment, type DefaultTreeAdapterMap } from "parse5";
import { splitText } from "../src/config/split.js";
import { loadHistory, replay } from "./history/history.js";
import { anchorOf, numbering } from "../test/helpers/githubAnchor.js";

type Node = DefaultTreeAdapterMap["parentNode"] | DefaultTreeAdapterMap["childNode"];

function textOf(node: Node): string {
  if (node.nodeName === "#text") return (node as DefaultTreeAdapterMap["textNode"]).value;
  return "childNodes" in node ? node.childNodes.map(textOf).join("") : "";
}

/** GitHub's anchor for a heading as written: its GFM inline text, then GitHub's rule. */
function headingAnchor(heading: string): string {
  return anchorOf(textOf(parseFragment(marked.parseInline(heading, { gfm: true, async: false }))));
}

/** The heading a piece opens with (ATX or setext), or undefined for text before the first heading. */
function headingOf(text: string): string | undefined {
  const [first = "", second = ""] = text.split("\n");
  const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(first);
  if (atx) return atx[1] ?? "";
  if (/^ {0,3}(?:=+|-+)[ \t]*$/.test(second) && first.trim() !== "") return first.trim();
  return undefined;
}

/** The ids GitHub would give a page's pieces, in order (pieces before the first heading keep pairflow's id). */
function githubIds(pieces: { id: string; text: string }[]): string[] {
  const take = numbering(pieces.filter((p) => headingOf(p.text) === undefined).map((p) => p.id));
  return pieces.map((p) => {
    const heading = headingOf(p.text);
    return heading === undefined ? p.id : take(headingAnchor(heading));
  });
}

/** Lines to print: sections compared and those whose id differs from GitHub's anchor (a few named). */
export function benchAnchors(): { lines: string[]; differing: number } {
  const history = loadHistory("rust-book");
  const seen = new Set<string>();
  let sections = 0;
  const differing: string[] = [];
  for (const { pages } of replay(history)) {
    for (const [file, text] of Object.entries(pages)) {
      if (!file.endsWith(".md") || seen.has(text)) continue;
      seen.add(text);
      const pieces = splitText(text, { kind: "markdown" });
      const expected = githubIds(pieces);
      pieces.forEach((p, i) => {
        sections++;
        if (p.id !== expected[i]) differing.push(`${file}: ${p.id} (GitHub: ${expected[i]})`);
      });
    }
  }
  const unique = [...new Set(differing)];
  return {
    differing: unique.length,
    lines: [
      `piece ids against GitHub's anchors: ${sections.toLocaleString("en-US")} sections of ${seen.size} distinct page texts over ${history.commits.length} commits, ${unique.length} with another id`,
      ...unique.slice(0, 10).map((d) => `  ${d}`),
    ],
  };
}
