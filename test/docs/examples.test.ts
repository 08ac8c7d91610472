/**
 * Docs that cannot lie: every shell command, YAML and JSON example of README.md and docs/*.md runs
 * against the installed package, in one scratch repository per page, and a command's shown output is
 * compared with what it prints. The rules and the markers a page uses are in CONTRIBUTING.md ("The
 * docs"); test/docs/extract.ts reads the blocks.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { copySources, REPO, tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { startModelService, type ModelService } from "../helpers/providers.js";
import { scaled } from "../helpers/time.js";
import { blocks, commands, jsonMismatch, missingLine, session, type Block } from "./extract.js";

const PAGES = [
  "README.md",
  ...readdirSync(path.join(REPO, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

const SHELLS = new Set(["sh", "bash", "shell", "console"]);
const NAMED_FILE = /^#\s*([\w./-]+\.(?:ya?ml|json))\s*$/;

const scripts = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const actionInputs = Object.keys((parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, unknown> }).inputs);

/** A directory whose `pairflow` is the installed package's command line. */
function shim(): string {
  const bin = path.join(tempRepo(), "bin");
  mkdirSync(bin);
  writeFileSync(path.join(bin, "pairflow"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(path.join(bin, "pairflow"), 0o755);
  return bin;
}

/** A git repository holding a copy of examples/ (its sources only), committed. */
function scratchRepo(): string {
  const dir = tempRepo();
  rmSync(path.join(dir, ".git"), { recursive: true });
  copySources(path.join(REPO, "examples"), path.join(dir, "examples"));
  const git = (...args: string[]) => spawnSync("git", ["-c", "user.name=docs", "-c", "user.email=docs@example.com", ...args], { cwd: dir });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "examples");
  return dir;
}

interface Page {
  name: string;
  dir: string;
  bin: string;
  problems: string[];
  /** The loopback model service's address and key, for the scripts' environment. */
  model: Record<string, string>;
  /** The last workflow the page showed: where it was written, and its pair ids. */
  workflow?: { dir: string; pairs: string[] };
}

/**
 * Runs a script as a reader would type it, in order, stopping at a failure; stderr merged into stdout
 * as on a terminal. The loopback model service answers in this process meanwhile: the script's
 * `PAIRFLOW_DOCS_OPENAI_URL` is its OpenAI-compatible address, and `OPENAI_API_KEY` its key.
 */
function sh(page: Page, script: string, dir = "."): Promise<{ status: number | null; output: string }> {
  const text = script.replace(/\bnode dist\/cli\.js\b/g, "pairflow").replace(/\bnpx pairflow\b/g, "pairflow");
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", PATH: `${page.bin}:${process.env.PATH}`, ...GIT_IDENTITY, ...page.model };
  delete env.PAIRFLOW_STATE_DIR;
  delete env.CI;
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-ec", `{\n${text}\n} 2>&1`], { cwd: path.join(page.dir, dir), env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

const GIT_IDENTITY = { GIT_AUTHOR_NAME: "docs", GIT_AUTHOR_EMAIL: "docs@example.com", GIT_COMMITTER_NAME: "docs", GIT_COMMITTER_EMAIL: "docs@example.com" };

/**
 * `npm ...` (or `npm ci && npm test`): pairflow's own development commands, checked to name scripts
 * package.json has, not run. null: not such a command.
 */
function npmProblem(command: string): string | undefined | null {
  const parts = command.split("&&").map((p) =>
    p
      .trim()
      .replace(/^(\w+=\S*\s+)+/, "")
      .replace(/\s+#.*$/, ""),
  );
  if (!parts.every((p) => p.startsWith("npm "))) return null;
  for (const part of parts) {
    const [, verb, script] = part.split(/\s+/);
    const name = verb === "run" ? script : verb;
    if (name === "ci" || name === "install" || name === "link") continue;
    if (name === undefined || scripts[name] === undefined) return `${part}: package.json has no script "${name}"`;
  }
  return undefined;
}

/** A block's commands, the development commands checked and the rest run as one script. */
async function checkShell(page: Page, block: Block): Promise<string[]> {
  const problems: string[] = [];
  const script: string[] = [];
  for (const command of commands(block.text)) {
    const npm = npmProblem(command);
    if (npm === null) script.push(command);
    else if (npm !== undefined) problems.push(npm);
  }
  if (script.length === 0) return problems;
  const status = block.markers.status ?? 0;
  const r = await sh(page, script.join("\n"), block.markers.in);
  if (r.status !== status) problems.push(`the commands exited ${r.status}, not ${status}:\n${r.output}`);
  return problems;
}

async function validate(page: Page, block: Block, dir: string): Promise<string[]> {
  const r = await sh(page, `pairflow validate ${JSON.stringify(dir)}`);
  const status = block.markers.status ?? 0;
  return r.status === status ? [] : [`pairflow validate ${dir} exited ${r.status}, not ${status}:\n${r.output}`];
}

async function checkSession(page: Page, block: Block, shown: { command: string; output: string[] }): Promise<string[]> {
  const r = await sh(page, shown.command, block.markers.in);
  const status = block.markers.status ?? 0;
  if (r.status !== status) return [`\`${shown.command}\` exited ${r.status}, not ${status}:\n${r.output}`];
  const missing = missingLine(shown.output, r.output);
  return missing === undefined ? [] : [`\`${shown.command}\` did not print\n  ${missing}\nin order; it printed:\n${r.output}`];
}

/** The steps of a GitHub Actions workflow, job or step list. */
function steps(doc: unknown): Record<string, unknown>[] {
  if (Array.isArray(doc)) return doc.filter((s) => s !== null && typeof s === "object");
  if (doc === null || typeof doc !== "object") return [];
  const o = doc as Record<string, unknown>;
  if (Array.isArray(o.steps)) return steps(o.steps);
  if (o.jobs !== null && typeof o.jobs === "object") return Object.values(o.jobs as object).flatMap(steps);
  return [];
}

async function checkYaml(page: Page, block: Block, index: number): Promise<string[]> {
  let doc: unknown;
  try {
    doc = parse(block.text);
  } catch (err) {
    return block.markers.fragment?.startsWith("not parseable") ? [] : [`YAML that does not parse: ${(err as Error).message.split("\n")[0]}`];
  }
  if (block.markers.fragment !== undefined) return [];
  const named = NAMED_FILE.exec(block.text.split("\n")[0]!)?.[1];
  const map = doc !== null && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  if (named !== undefined) {
    const file = path.join(page.dir, named);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, block.text);
    if (map && "action_pairs" in map) page.workflow = { dir: path.dirname(named), pairs: Object.keys((map.action_pairs as object | null) ?? {}) };
    else if (!/^prompts\.(ya?ml|json)$/.test(path.basename(named))) return [];
    return await validate(page, block, path.dirname(named));
  }
  if (map && "action_pairs" in map) {
    if (!("name" in map)) return ["a workflow without a name: complete it, or mark it <!-- fragment: why --> when it is an excerpt"];
    const dir = `.docs/${index}`;
    mkdirSync(path.join(page.dir, dir), { recursive: true });
    writeFileSync(path.join(page.dir, dir, "workflow.yml"), block.text);
    page.workflow = { dir, pairs: Object.keys((map.action_pairs as object | null) ?? {}) };
    return await validate(page, block, dir);
  }
  // The prompts file of the workflow just above: validated beside it.
  if (map && page.workflow && Object.keys(map).length > 0 && Object.keys(map).every((k) => page.workflow!.pairs.includes(k))) {
    writeFileSync(path.join(page.dir, page.workflow.dir, "prompts.yml"), block.text);
    return await validate(page, block, page.workflow.dir);
  }
  const uses = steps(doc).filter((s) => typeof s.uses === "string" && /pairflow/.test(s.uses));
  if (uses.length > 0) {
    return uses.flatMap((s) =>
      Object.keys((s.with as object | undefined) ?? {})
        .filter((k) => !actionInputs.includes(k))
        .map((k) => `the action has no input "${k}" (action.yml)`),
    );
  }
  return ["YAML that is neither a workflow, a named file nor a step using pairflow: mark it <!-- fragment: why -->"];
}

async function checkBlock(page: Page, block: Block, index: number): Promise<string[]> {
  for (const before of block.markers.before) {
    const r = await sh(page, before);
    if (r.status !== 0) return [`<!-- before: ${before} --> exited ${r.status}:\n${r.output}`];
  }
  const shown = session(block.text);
  if (block.lang === "yaml" || block.lang === "yml") return await checkYaml(page, block, index);
  if (block.lang === "json") {
    let shownJson: unknown;
    try {
      shownJson = JSON.parse(block.text);
    } catch (err) {
      return block.markers.fragment?.startsWith("not parseable") ? [] : [`JSON that does not parse: ${(err as Error).message}`];
    }
    if (block.markers.jsonOf === undefined) return [];
    const r = await sh(page, `${block.markers.jsonOf} 2>/dev/null`, block.markers.in);
    const status = block.markers.status ?? 0;
    if (r.status !== status) return [`\`${block.markers.jsonOf}\` exited ${r.status}, not ${status}:\n${r.output}`];
    let printed: unknown;
    try {
      printed = JSON.parse(r.output);
    } catch {
      return [`\`${block.markers.jsonOf}\` printed no JSON:\n${r.output}`];
    }
    const miss = jsonMismatch(shownJson, printed);
    return miss === undefined ? [] : [`\`${block.markers.jsonOf}\` printed something else at ${miss}`];
  }
  if (block.markers.fragment !== undefined) return [];
  if (SHELLS.has(block.lang)) return await checkShell(page, block);
  if (shown !== undefined) return await checkSession(page, block, shown);
  return [];
}

describe.concurrent("the docs' examples", () => {
  const bin = shim();
  let service: ModelService;
  beforeAll(async () => {
    service = await startModelService({ key: "docs-key", answer: (r) => `An answer of ${r.prompt.length} characters.` });
  });
  afterAll(() => service.close());

  for (const name of PAGES) {
    it(`${name}: every command runs as shown and every example is valid`, { timeout: scaled(180_000) }, async () => {
      const model = { PAIRFLOW_DOCS_OPENAI_URL: service.openaiUrl, OPENAI_API_KEY: "docs-key" };
      const page: Page = { name, dir: scratchRepo(), bin, model, problems: [] };
      const found = blocks(readFileSync(path.join(REPO, name), "utf8"));
      for (const [index, block] of found.entries()) {
        for (const problem of await checkBlock(page, block, index)) page.problems.push(`${name}:${block.line}: ${problem}`);
      }
      expect(page.problems).toEqual([]);
    });
  }
});
