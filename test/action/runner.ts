/**
 * Runs the built action the way a GitHub runner does: `node dist/index.js` in the workspace, with
 * INPUT_* variables (action.yml's defaults, then the step's `with:`), and the runner's files
 * (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_EVENT_PATH) as temporary files read back afterwards.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { REPO } from "../helpers/fixtures.js";
import { ACTION } from "../helpers/package.js";
import type { FakeCacheService } from "./fakeCacheService.js";

export interface Annotation {
  level: "error" | "warning" | "notice";
  message: string;
  properties: Record<string, string>;
}

export interface ActionResult {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  annotations: Annotation[];
  warnings: string[];
  errors: Annotation[];
  /** Values the action asked the runner to mask. */
  masked: string[];
}

export interface RunOptions {
  workspace: string;
  /** The step's `with:`. */
  with?: Record<string, string>;
  /** The cache service this job sees; none when absent. */
  cache?: FakeCacheService;
  readOnlyToken?: boolean;
  env?: Record<string, string>;
  event?: { name: string; payload: unknown };
  /**
   * Sends this signal once the log shows `when`, as a runner does when the job is cancelled; then,
   * once the log shows the action took it, writes the file `taken` (in the workspace), if given, for
   * a command that is to go on until then.
   */
  interrupt?: { signal: NodeJS.Signals; when: RegExp; taken?: string };
  /** Kills the job outright once this settles, as when its runner is lost: nothing after that point happens. */
  killWhen?: Promise<unknown>;
}

export const GITHUB_TOKEN = "ghs_fakejobtoken0123456789";

const actionYml = parse(readFileSync(path.join(REPO, "action.yml"), "utf8")) as { inputs: Record<string, { default?: string }> };

export async function runAction(options: RunOptions): Promise<ActionResult> {
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-runner-"));
  const files = { summary: path.join(dir, "step_summary"), output: path.join(dir, "output"), event: path.join(dir, "event.json") };
  writeFileSync(files.summary, "");
  writeFileSync(files.output, "");
  const event = options.event ?? { name: "push", payload: { ref: "refs/heads/main", repository: { full_name: "octo/repo" } } };
  writeFileSync(files.event, JSON.stringify(event.payload));

  const env: Record<string, string> = {};
  // Nothing of the machine's own GitHub or proxy settings; loopback only.
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(GITHUB_|ACTIONS_|INPUT_|RUNNER_)|proxy$/i.test(name)) env[name] = value;
  }
  for (const [name, input] of Object.entries(actionYml.inputs)) {
    const value = (input.default ?? "").replace("${{ github.token }}", GITHUB_TOKEN);
    env[`INPUT_${name.toUpperCase()}`] = value;
  }
  for (const [name, value] of Object.entries(options.with ?? {})) env[`INPUT_${name.toUpperCase()}`] = value;
  Object.assign(env, {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: event.name,
    GITHUB_REPOSITORY: "octo/repo",
    GITHUB_REF: "refs/heads/main",
    GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
    GITHUB_SERVER_URL: "https://github.com",
    RUNNER_TEMP: dir,
    RUNNER_OS: "Linux",
    NO_COLOR: "1",
    ...(options.cache ? options.cache.env({ readOnly: options.readOnlyToken }) : {}),
    ...options.env,
  });

  const child = spawn(process.execPath, [ACTION], { cwd: options.workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let interrupted = false;
  let taken = false;
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
    const interrupt = options.interrupt;
    if (interrupt && !interrupted && interrupt.when.test(stdout)) {
      interrupted = true;
      child.kill(interrupt.signal);
    }
    if (interrupt?.taken && interrupted && !taken && new RegExp(`^::warning::${interrupt.signal}: starting nothing new`, "m").test(stdout)) {
      taken = true;
      writeFileSync(path.join(options.workspace, interrupt.taken), "");
    }
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  void options.killWhen?.finally(() => child.kill("SIGKILL"));
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));

  const annotations = parseAnnotations(stdout);
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputs(readFileSync(files.output, "utf8")),
    summary: readFileSync(files.summary, "utf8"),
    annotations,
    warnings: annotations.filter((a) => a.level === "warning").map((a) => a.message),
    errors: annotations.filter((a) => a.level === "error"),
    masked: [...stdout.matchAll(/^::add-mask::(.*)$/gm)].map((m) => unescape(m[1]!)),
  };
}

/** GITHUB_OUTPUT: `name<<delimiter`, the value's lines, `delimiter`. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const head = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!head) continue;
    const end = lines.indexOf(head[2]!, i + 1);
    outputs[head[1]!] = lines.slice(i + 1, end).join("\n");
    i = end;
  }
  return outputs;
}

function parseAnnotations(stdout: string): Annotation[] {
  const found: Annotation[] = [];
  for (const m of stdout.matchAll(/^::(error|warning|notice)(?: ([^:]*))?::(.*)$/gm)) {
    const properties: Record<string, string> = {};
    for (const part of (m[2] ?? "").split(",").filter(Boolean)) {
      const eq = part.indexOf("=");
      properties[part.slice(0, eq)] = unescape(part.slice(eq + 1));
    }
    found.push({ level: m[1] as Annotation["level"], message: unescape(m[3]!), properties });
  }
  return found;
}

/** Workflow commands escape %, CR, LF, and in properties also : and ,. */
function unescape(text: string): string {
  return text.replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%25/g, "%");
}
