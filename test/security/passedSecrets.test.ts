/**
 * A credential a person lets through on purpose (PAIRFLOW_PASS_ENV) reaches generators; a guard,
 * which runs code a model wrote, gets it only when PAIRFLOW_PASS_ENV_GUARDS names it too. A guard
 * that has it and prints it encoded (hex, reversed, gzip+base64, ...) leaves none of it in the run
 * record or in what the CLI prints. The CLI is the installed package's, started as a child process.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";

const VALUE = "dpl-canary-0123456789-Zk";

/** Every way the guard prints the value, as the test computes it. */
const ENCODED = {
  hex: Buffer.from(VALUE).toString("hex"),
  HEX: Buffer.from(VALUE).toString("hex").toUpperCase(),
  reversed: [...VALUE].reverse().join(""),
  gzip: gzipSync(`${VALUE}\n`).toString("base64"),
  spaced: [...VALUE].join(" "),
  url: [...Buffer.from(VALUE)].map((b) => `%${b.toString(16)}`).join(""),
  json: [...VALUE].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
};

/** The guard: prints the value in each of those forms, or that it has none, and rejects. */
const LEAK = `import { gzipSync } from "node:zlib";
const v = process.env.DEPLOY_TOKEN;
if (!v) { console.log("DEPLOY_TOKEN: absent"); process.exit(1); }
console.log("hex: " + Buffer.from(v).toString("hex"));
console.log("HEX: " + Buffer.from(v).toString("hex").toUpperCase());
console.log("reversed: " + [...v].reverse().join(""));
console.log("gzip: " + gzipSync(v + "\\n").toString("base64"));
console.log("spaced: " + [...v].join(" "));
console.log("url: " + [...Buffer.from(v)].map((b) => "%" + b.toString(16)).join(""));
console.log("json: " + [...v].map((c) => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")).join(""));
process.exit(1);
`;

/** The generator: notes whether it has the value (never the value itself), and writes an artifact. */
const GENERATE = `import { writeFileSync } from "node:fs";
writeFileSync("generator-has-it.txt", process.env.DEPLOY_TOKEN === ${JSON.stringify(VALUE)} ? "yes" : "no");
process.stdout.write("content\\n");
`;

const WORKFLOW = [
  "name: passed",
  "rmax: 1",
  "generator: command",
  "generator_config: {run: node gen.mjs}",
  "action_pairs:",
  "  deploy:",
  "    guard: command",
  "    guard_config: {run: node leak.mjs}",
  "",
].join("\n");

/** Every file under dir, as text. */
function allText(dir: string): string {
  let text = "";
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += readFileSync(path.join(entry.parentPath, entry.name), "latin1");
  }
  return text;
}

const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr }),
    );
  });

async function runWith(passed: Record<string, string>) {
  const dir = tempRepo({ "gen.mjs": GENERATE, "leak.mjs": LEAK, "workflow.yml": WORKFLOW });
  const result = await run(["run", "--json", "--sandbox", "off"], dir, { ...process.env, DEPLOY_TOKEN: VALUE, NO_COLOR: "1", ...passed });
  const report = JSON.parse(result.stdout);
  const feedback = (report.pairs[0].attempts as { feedback: string }[]).map((a) => a.feedback);
  return { dir, result, feedback, generatorHasIt: readFileSync(path.join(dir, "generator-has-it.txt"), "utf8") };
}

describe("a value passed on purpose", () => {
  it("with PAIRFLOW_PASS_ENV alone reaches the generator and not the guard", async () => {
    const { result, feedback, generatorHasIt } = await runWith({ PAIRFLOW_PASS_ENV: "DEPLOY_TOKEN" });
    expect(result.code).toBe(1);
    expect(generatorHasIt).toBe("yes");
    expect(feedback[0]!.trim()).toBe("DEPLOY_TOKEN: absent");
  });

  it("with PAIRFLOW_PASS_ENV_GUARDS too reaches the guard, and nothing it prints of it, in any encoding, reaches the run record", async () => {
    const { dir, result, feedback, generatorHasIt } = await runWith({ PAIRFLOW_PASS_ENV: "DEPLOY_TOKEN", PAIRFLOW_PASS_ENV_GUARDS: "DEPLOY_TOKEN" });
    expect(result.code).toBe(1);
    expect(generatorHasIt).toBe("yes");
    // The guard had it and printed it every way: each line is there, each form replaced.
    expect(feedback[0]!.trim().split("\n")).toEqual(Object.keys(ENCODED).map((name) => `${name}: ***`));
    const everywhere = [result.stdout, result.stderr, allText(path.join(dir, ".pairflow"))].join("\n");
    expect(everywhere).toContain("reversed: ***");
    for (const [name, form] of Object.entries({ plain: VALUE, ...ENCODED })) {
      expect(everywhere, name).not.toContain(form);
      // Nor in the JSON of a record.
      expect(everywhere, name).not.toContain(JSON.stringify(form).slice(1, -1));
    }
  });
});
