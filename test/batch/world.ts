/**
 * The 200-pair workflow of the batch tests: a nightly translation of 100 items by Claude and a
 * summary of each translation by GPT, every prompt beginning with the same 3,000-token
 * specification. Every ninth translation is rejected at first, so its retry rides in the next
 * wave's batch with the summaries of the others.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { BatchService } from "../helpers/batchProviders.js";

export const ITEMS = Array.from({ length: 100 }, (_, i) => `v${String(i + 1).padStart(3, "0")}`);
export const KEY = "sk-loopback-nightly";

/** 3,000 words (the loopback services count a word as a token): the glossary every prompt begins with. */
export const SPEC = Array.from({ length: 600 }, (_, i) => `Term ${i} renders as t${(i * 7919) % 1000}.`).join(" ");

export function files(service: Pick<BatchService, "openaiUrl" | "anthropicUrl">): Record<string, string> {
  const generator = (url: string) => `{base_url: "${url}", api_key_env: LOOPBACK_KEY, retries: 1}`;
  return {
    "workflow.yml": [
      "name: nightly",
      `specification: "${SPEC}"`,
      "action_pairs:",
      "  translate:",
      `    foreach: {values: [${ITEMS.join(", ")}]}`,
      "    generator: anthropic",
      "    model: claude-sonnet-4-5",
      `    generator_config: ${generator(service.anthropicUrl)}`,
      "    output: out/t/{value}.txt",
      "    guard: regex",
      '    guard_config: {pattern: "^answer"}',
      "  summary:",
      `    foreach: {values: [${ITEMS.join(", ")}]}`,
      '    requires: ["translate[{item}]"]',
      "    generator: openai",
      "    model: gpt-4o-mini",
      `    generator_config: ${generator(service.openaiUrl)}`,
      "    output: out/s/{value}.txt",
      "    guard: contains",
      "    guard_config: {text: after}",
      "",
    ].join("\n"),
    "prompts.yml": [
      "translate: {role: You translate glossary entries., task: 'Translate {value}.'}",
      "summary: {role: You summarise translations., task: 'Summarise {value}.'}",
      "",
    ].join("\n"),
  };
}

/** The model: answers its task, with what it read upstream; every ninth translation is bad at first. */
export function answer(request: { provider: string; prompt: string }): string {
  const task = /# Task\n\n([^\n]*)/.exec(request.prompt)?.[1] ?? "";
  const item = Number(/v(\d+)/.exec(task)?.[1] ?? 0);
  if (request.provider === "anthropic" && item % 9 === 0 && !request.prompt.includes("# History")) return `bad ${task}\n`;
  const upstream = [...request.prompt.matchAll(/answer to: ([^\n`]*)/g)].map((m) => m[1]).join(" + ");
  return `answer to: ${task}${upstream ? ` (after ${upstream})` : ""}\n`;
}

/** Every output file, by path. */
export function outputs(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ["t", "s"]) {
    const at = path.join(dir, "out", sub);
    for (const name of readdirSync(at)) out[`${sub}/${name}`] = readFileSync(path.join(at, name), "utf8");
  }
  return out;
}

/** Prompts put in batches more than once. */
export function submittedTwice(service: BatchService): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const s of service.submitted) {
    const key = `${s.provider}\0${s.prompt}`;
    if (seen.has(key)) twice.push(/# Task\n\n([^\n]*)/.exec(s.prompt)?.[1] ?? s.prompt.slice(-80));
    seen.add(key);
  }
  return twice;
}
