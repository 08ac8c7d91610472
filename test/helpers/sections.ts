/** A stand-in generator and workflow for tests of split pages: each section upper-cased, no model. */
import type { Generator } from "../../src/model/ports.js";

/** Upper-cases the section between `<<<` and `>>>` of its prompt (or the whole prompt), noting in `asked` each pair it was called for. */
export function upperSections(asked: string[] = []): Generator {
  return async ({ pairId, prompt }) => {
    asked.push(pairId);
    return { content: (/<<<\n([\s\S]*?)>>>/.exec(prompt)?.[1] ?? prompt).toUpperCase() };
  };
}

/** Every page of docs/ split into its sections, each given to `upper`, put together in out/. */
export const SPLIT_PAGES = `name: pages
generator: upper
action_pairs:
  translate:
    foreach: {files: "docs/*.md", split: markdown}
    output: "out/{name}"
`;

/** The prompt of SPLIT_PAGES: the section between `<<<` and `>>>`. */
export const SPLIT_PROMPTS = 'translate:\n  task: "Translate:\\n<<<\\n{piece}>>>"\n';
