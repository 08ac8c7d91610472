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
 * labelled by pair id, ordered by pair id so that the order of `requires` changes nothing), History (one entry per rejected attempt), Task. A section with
 * nothing to say is left out, header included. Pure string work: the same input always
 * gives the same string, with no trailing newline; an input with nothing in it gives "".
 */
export function renderPrompt(input: RenderInput): string {
  const prompt = input.prompt ?? {};
  const sections: string[] = [];

  const add = (title: string, body: string | undefined): void => {
    if (body !== undefined) sections.push(`# ${title}\n\n${body}`);
  };

  add("Role", text(prompt.role));
  add("Constraints", text(prompt.constraints));
  add("Context", context(input.specification, input.constraints));
  add("Dependencies", dependencies(input.dependencies));
  add("History", history(input.history, prompt.feedback_wrapper));
  if (input.revision !== undefined) add("Revision", revision(input.revision));
  add("Task", text(prompt.task));

  return sections.join("\n\n");
}

/** The words that introduce a person's edit, and the edit, fenced. */
export const REVISION_INTRO = "A person revised the previous output like this; keep their changes where they still apply:";

function revision(edit: string): string {
  const fence = fenceFor(edit);
  return `${REVISION_INTRO}\n\n${fence}\n${edit}${edit.endsWith("\n") ? "" : "\n"}${fence}`;
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

function context(specification: string | undefined, constraints: string | undefined): string | undefined {
  const spec = text(specification);
  const cons = text(constraints);
  const parts: string[] = [];
  if (spec !== undefined) parts.push(`## Specification\n\n${spec}`);
  if (cons !== undefined) parts.push(`## Workflow constraints\n\n${cons}`);
  return parts.length === 0 ? undefined : parts.join("\n\n");
}

function dependencies(deps: RenderInput["dependencies"]): string | undefined {
  if (deps.length === 0) return undefined;
  // By id, in code-unit order as canonical JSON sorts keys: the reference sorts dependencies too.
  return [...deps]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ id, content }) => {
      const fence = fenceFor(content);
      const body = content === "" || content.endsWith("\n") ? content : `${content}\n`;
      return `## ${id}\n\n${fence}\n${body}${fence}`;
    })
    .join("\n\n");
}

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
