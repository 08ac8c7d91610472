/**
 * Mermaid diagrams in Markdown, checked with Mermaid's own parser, the one GitHub renders them
 * with. Mermaid sanitizes labels with DOMPurify, which needs a DOM: jsdom provides one.
 */
type Mermaid = typeof import("mermaid").default;
let mermaid: Promise<Mermaid> | undefined;

function load(): Promise<Mermaid> {
  mermaid ??= (async () => {
    // jsdom ships no type declarations; only its window is used.
    const { JSDOM } = (await import("jsdom" as string)) as { JSDOM: new (html: string) => { window: Window & typeof globalThis } };
    const { window } = new JSDOM("<!doctype html><html><body></body></html>");
    Object.assign(globalThis, { window, document: window.document });
    return (await import("mermaid")).default;
  })();
  return mermaid;
}

export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Resolves for a diagram Mermaid accepts as a flowchart; rejects with Mermaid's parse error. */
export async function checkMermaid(text: string): Promise<void> {
  const result = await (await load()).parse(text);
  if (!result || result.diagramType !== "flowchart-v2") throw new Error(`not a flowchart: ${JSON.stringify(result)}`);
}
