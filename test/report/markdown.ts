/** Reading Markdown reports back. */

/** The causes under a heading: its paragraphs that start with a cause in bold, up to the next heading. */
export function paragraphs(markdown: string, heading: string): string[] {
  const after = markdown.slice(markdown.indexOf(heading) + heading.length);
  const section = after.split(/\n#{2,4} /)[0]!;
  return section
    .split("\n\n")
    .filter((p) => /^(✖ )?\*\*/.test(p.trim()))
    .map((p) => p.trim());
}
