import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { runCli } from "../../src/cli/program.js";
import { countTokens, loadTokenizer } from "../../src/estimate/tokens.js";

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI in this process, as a user runs it. `tty` makes stdout a terminal; `stdin` is what the
 * user types, from a stream that is a terminal when `stdinTTY` (default: same as `tty`).
 */
export async function cli(
  args: string[],
  options: { cwd: string; tty?: boolean; stdin?: string; stdinTTY?: boolean; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const stdin = Object.assign(new PassThrough(), { isTTY: options.stdinTTY ?? options.tty ?? false });
  stdin.end(options.stdin ?? "");
  const status = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty ?? false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    stdin,
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
  });
  return { status, stdout, stderr };
}

export interface Provider {
  baseUrl: string;
  /** Every request's prompt, and the usage the provider reported for it. */
  requests: { model: string; prompt: string; usage: { prompt_tokens: number; completion_tokens: number } }[];
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat-completions endpoint on 127.0.0.1 that answers `answer(prompt)` and
 * reports usage the way OpenAI counts it: the message's o200k_base tokens plus 7 for the chat
 * framing, and the answer's tokens.
 */
export async function loopbackProvider(answer: (prompt: string) => string): Promise<Provider> {
  await loadTokenizer();
  const requests: Provider["requests"] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const { model, messages } = JSON.parse(body) as { model: string; messages: { content: string }[] };
      const prompt = messages[0]!.content;
      const content = answer(prompt);
      const usage = { prompt_tokens: countTokens(prompt, model).tokens + 7, completion_tokens: countTokens(content, model).tokens };
      requests.push({ model, prompt, usage });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }], usage }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
