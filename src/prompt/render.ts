// The reference framework assembles a generator prompt as role, then constraints, then the
// ambient context, then each accepted dependency artifact under its pair id, then the rejected
// attempts (each feedback put through feedback_wrapper), and it always puts the task last.
// This renderer keeps that order and meaning; it adds the workflow specification to the context.

import type { PromptEntry } from "../model/workflow.js";

export interface RenderInput {
  /** The pair's prompts entry. */
  prompt: PromptEntry | undefined;
  /** Workflow-level context. */
  specification?: string;
  constraints?: string;
  /** Accepted upstream artifacts, in any order: they are rendered by pair id. */
  dependencies: { id: string; content: string }[];
  /** Earlier rejected attempts of this run, oldest first. */
  history: { feedback: string }[];
  /**
   * A person's edit of the pair's previous output, carried forward when its sources changed
   * (`carry_edits: true`): a section of its own, before the task. Absent, nothing changes: the
   * prompts of every pair that carries no edit render as before.
   */
  revision?: string;
}

/**
 * The version of the layout renderPrompt produces. It is part of the reference of every pair whose
 * prompt goes to a generator, so raise it whenever the same input would render differently
 * (sections, their titles or order, fences, DEFAULT_FEEDBACK_WRAPPER, the order of dependencies):
 * artifacts made from the old prompts are then not reused. test/prompt/render.test.ts pins it.
 */
export const PROMPT_LAYOUT = 1;

/** The token a feedback_wrapper carries; only this exact text is replaced. */
export const FEEDBACK_TOKEN = "{feedback}";

/** Used when the pair's prompt gives no feedback_wrapper. */
export const DEFAULT_FEEDBACK_WRAPPER = "Your previous attempt was rejected:\n{feedback}\n\nAddress this and try again.";

/**
 * Renders the prompt a generator receives. Sections, in order: Role, Constraints, Context
 * (specification, then workflow constraints), Dependencies (one fenced block per artifact,
 * labelled by pair id, ordered by pair id so that the order of `requires` changes nothing), History (one entry per rejected attempt), Revision, Glossary, Task. A section with
 * nothing to say is left out, header included. Pure string work: the same input always
 * gives the same string, with no trailing newline; an input with nothing in it gives "".
 */
export function renderPrompt(input: RenderInput): string {
  return renderPromptParts(input).text;
}

/** A rendered prompt, and where the parts other pairs' prompts may begin with end. */
export interface RenderedPrompt {
  text: string;
  /**
   * prefixEnds[k]: the length of the text's beginning made of Role, Constraints and Context and the
   * first k dependencies (by id), k from 0 to the number of dependencies. What pairs with the same
   * role, constraints and leading dependencies share, and so what a provider's prompt cache can
   * serve them (see sharedPrefixes). Cutting the text there changes nothing of it.
   */
  prefixEnds: number[];
}

/**
 * A rendered prompt as the units it is made of: the text is `units.join("\n\n")`, and every unit
 * begins with a header (`#`), each section and each dependency's block one unit. The beginning
 * prefixEnds[k] cuts is the first prefixUnits[k] units. Counting tokens goes unit by unit, so a
 * unit many prompts hold (the context, a dependency's block) is counted once (src/estimate/tokens.ts).
 */
export interface PromptUnits {
  units: string[];
  prefixUnits: number[];
  /**
   * The units other pairs' prompts hold too, from `shared[0]` up to `shared[1]`: the context and
   * the dependencies' blocks (the same for every pair of a run that reads them).
   */
  shared: [number, number];
}

/** The separator of a prompt's units. */
export const UNIT_SEPARATOR = "\n\n";

export function renderPromptParts(input: RenderInput): RenderedPrompt {
  const { units, prefixUnits } = renderPromptUnits(input);
  // The length of the first n units joined.
  const lengthOf = (n: number) => {
    let length = n > 0 ? (n - 1) * UNIT_SEPARATOR.length : 0;
    for (let i = 0; i < n; i++) length += units[i]!.length;
    return length;
  };
  return { text: units.join(UNIT_SEPARATOR), prefixEnds: prefixUnits.map(lengthOf) };
}

export function renderPromptUnits(input: RenderInput): PromptUnits {
  const prompt = input.prompt ?? {};
  const units: string[] = [];
  const add = (title: string, body: string | undefined): void => {
    if (body !== undefined) units.push(`# ${title}\n\n${body}`);
  };

  add("Role", text(prompt.role));
  add("Constraints", text(prompt.constraints));
  const own = units.length;
  const context = contextUnit(input.specification, input.constraints);
  if (context !== undefined) units.push(context);
  const prefixUnits = [units.length];
  const blocks = dependencyBlocks(input.dependencies);
  if (blocks.length > 0) {
    // The Dependencies section is its header, then one unit per block, in the order of the blocks.
    units.push("# Dependencies");
    for (const block of blocks) {
      units.push(block);
      prefixUnits.push(units.length);
    }
  }
  const shared: [number, number] = [own, units.length];
  add("History", history(input.history, prompt.feedback_wrapper));
  if (input.revision !== undefined) add("Revision", revision(input.revision));
  add("Glossary", glossary(prompt.glossary));
  add("Task", text(prompt.task));

  return { units, prefixUnits, shared };
}

/** The group of a pair whose prompt cache is its own: its generator (the provider) and its model (see sharedPrefixes). */
export const byProviderAndModel = (pair: { generator: string | null; model: string | null }): string => JSON.stringify([pair.generator, pair.model]);

/** What of a pair sharedPrefixes reads: its prompts entry and its dependencies. */
export interface PromptShape {
  id: string;
  prompt: PromptEntry | undefined;
  requires: readonly string[];
}

/**
 * How much of each pair's prompt the prompt of another pair of the same run begins with, from the
 * plan alone: the workflow's context is every pair's, so pairs with the same role and constraints
 * share everything up to the end of the context, and further each leading dependency (by id) they
 * have in common, whose content is the same for all of them in one run. For each pair that shares
 * a non-empty beginning with at least one other: the number of dependencies in the longest such
 * beginning (0: up to the end of the context). A provider's prompt cache can serve that part of
 * every request but the first, which is what marking it cacheable is worth. A provider caches per
 * model: with `group` (say, generator and model), only pairs of one group share, so a beginning
 * no later request of the same provider and model reads is not marked, and no write is paid for it.
 */
export function sharedPrefixes<P extends PromptShape>(
  pairs: Iterable<P>,
  context: { specification?: string; constraints?: string },
  group: (pair: P) => string = () => "",
): Map<string, number> {
  const contextText = contextSection(context.specification, context.constraints);
  // A trie of beginnings: the group, role and constraints, then the dependencies one by one.
  interface Node {
    count: number;
    next: Map<string, Node>;
  }
  const root = new Map<string, Node>();
  const step = (level: Map<string, Node>, key: string): Node => {
    let node = level.get(key);
    if (node === undefined) level.set(key, (node = { count: 0, next: new Map() }));
    node.count++;
    return node;
  };
  // Texts numbered once: a key is a few numbers, not a copy of a role's text per pair.
  const numbers = new Map<string | undefined, number>();
  const numberOf = (value: string | undefined) => {
    let n = numbers.get(value);
    if (n === undefined) numbers.set(value, (n = numbers.size));
    return n;
  };
  const walked: { id: string; path: Node[]; empty: boolean }[] = [];
  for (const pair of pairs) {
    const role = text(pair.prompt?.role);
    const constraints = text(pair.prompt?.constraints);
    // By id, as the prompt orders them.
    const deps = [...pair.requires].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let node = step(root, `${numberOf(group(pair))} ${numberOf(role)} ${numberOf(constraints)}`);
    const path = [node];
    for (const dep of deps) path.push((node = step(node.next, dep)));
    walked.push({ id: pair.id, path, empty: role === undefined && constraints === undefined && contextText === undefined });
  }
  const shared = new Map<string, number>();
  for (const { id, path, empty } of walked) {
    let depth = path.length - 1;
    while (depth >= 0 && path[depth]!.count < 2) depth--;
    if (depth > 0 || (depth === 0 && !empty)) shared.set(id, depth);
  }
  return shared;
}

/** The words that introduce a person's edit, and the edit, fenced. */
export const REVISION_INTRO = "A person revised the previous output like this; keep their changes where they still apply:";

function revision(edit: string): string {
  const fence = fenceFor(edit);
  return `${REVISION_INTRO}\n\n${fence}\n${edit}${edit.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** The words that introduce the glossary entries of a piece's terms (`foreach: {glossary}`). */
export const GLOSSARY_INTRO = "Translate these terms as given:";

/** A piece's glossary entries, one `- term: translation` a line; absent when it has none, so no other prompt changes. */
function glossary(entries: Record<string, string> | undefined): string | undefined {
  if (entries === undefined || Object.keys(entries).length === 0) return undefined;
  return `${GLOSSARY_INTRO}\n\n${Object.entries(entries)
    .map(([term, translation]) => `- ${term}: ${translation}`)
    .join("\n")}`;
}

/** Replaces every literal `{feedback}` in `wrapper`; other braces are left as they are. */
export function wrapFeedback(wrapper: string, feedback: string): string {
  // split/join, not String.replace: a `$` in the feedback must not act as a replacement pattern.
  return wrapper.split(FEEDBACK_TOKEN).join(feedback);
}

/**
 * A backtick fence longer than any run of backticks in `content` (at least three), so no
 * line of the content can close it early.
 */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const run of content.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** The text with surrounding blank lines and trailing whitespace removed; undefined when nothing is left. */
function text(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
  return trimmed === "" ? undefined : trimmed;
}

function contextSection(specification: string | undefined, constraints: string | undefined): string | undefined {
  const spec = text(specification);
  const cons = text(constraints);
  const parts: string[] = [];
  if (spec !== undefined) parts.push(`## Specification\n\n${spec}`);
  if (cons !== undefined) parts.push(`## Workflow constraints\n\n${cons}`);
  return parts.length === 0 ? undefined : parts.join("\n\n");
}

/**
 * The Context section. Every pair of a workflow has the same one: the last is kept, so a run or an
 * estimate of many pairs makes one string (whose token count is then found at once), not one a pair.
 */
function contextUnit(specification: string | undefined, constraints: string | undefined): string | undefined {
  if (lastContext === undefined || lastContext.specification !== specification || lastContext.constraints !== constraints) {
    const body = contextSection(specification, constraints);
    lastContext = { specification, constraints, unit: body === undefined ? undefined : `# Context\n\n${body}` };
  }
  return lastContext.unit;
}

let lastContext: { specification: string | undefined; constraints: string | undefined; unit: string | undefined } | undefined;

/** One fenced block per dependency. */
function dependencyBlocks(deps: RenderInput["dependencies"]): string[] {
  // By id, in code-unit order as canonical JSON sorts keys: the reference sorts dependencies too.
  return [...deps].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(({ id, content }) => blockOf(id, content));
}

/**
 * A dependency's block. Every dependent of a pair renders the same one: the last made for each
 * pair is kept (up to a bound on their length), so its dependents share one string, which the
 * estimate then finds among those it counted already without comparing its characters.
 */
function blockOf(id: string, content: string): string {
  const known = blocks.get(id);
  if (known !== undefined && known.content === content) return known.block;
  const fence = fenceFor(content);
  const body = content === "" || content.endsWith("\n") ? content : `${content}\n`;
  const block = `## ${id}\n\n${fence}\n${body}${fence}`;
  if (blockChars + block.length > BLOCK_CHARS) {
    blocks.clear();
    blockChars = 0;
  }
  blocks.set(id, { content, block });
  blockChars += block.length;
  return block;
}

const blocks = new Map<string, { content: string; block: string }>();
let blockChars = 0;
const BLOCK_CHARS = 1 << 22;

function history(attempts: RenderInput["history"], wrapper: string | undefined): string | undefined {
  if (attempts.length === 0) return undefined;
  const template = wrapper !== undefined && wrapper.trim() !== "" ? wrapper : DEFAULT_FEEDBACK_WRAPPER;
  return attempts
    .map(({ feedback }, i) => {
      const body = text(wrapFeedback(template, feedback));
      return body === undefined ? `## Attempt ${i + 1}` : `## Attempt ${i + 1}\n\n${body}`;
    })
    .join("\n\n");
}
