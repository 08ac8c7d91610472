/**
 * The parts of the docs that are written from the code, so that they cannot drift from it:
 *
 * - docs/action.md: the tables of the action's inputs and outputs, from action.yml;
 * - docs/cli.md: every command's `--help`, as the command line prints it.
 *
 * Each part sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; the text around it
 * is written by hand. Run after changing action.yml or a command's options:
 *
 *   npx tsx scripts/docs.ts            # rewrite the generated parts in place
 *   npx tsx scripts/docs.ts --check    # exit 1, naming the files, when one is out of date
 *
 * test/docs/generated.test.ts makes the same comparison against the installed package.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface ActionYml {
  inputs: Record<string, { description: string; default?: string; deprecationMessage?: string }>;
  outputs: Record<string, { description: string }>;
}

/** A table cell: one line, `|` escaped, and docs/x.md named in action.yml made a link from docs/. */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .trim()
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\bdocs\/([a-z-]+\.md)\b/g, "[$1]($1)");
}

/** The inputs table (deprecated names in their own) and the outputs table, from action.yml's text. */
export function actionTables(actionYml: string): { inputs: string; outputs: string } {
  const action = parse(actionYml) as ActionYml;
  const entries = Object.entries(action.inputs);
  const row = ([name, input]: (typeof entries)[number]) => {
    const value = input.default ?? "";
    return `| \`${name}\` | ${value === "" ? "" : `\`${value}\``} | ${cell(input.description)} |`;
  };
  const current = entries.filter(([, input]) => input.deprecationMessage === undefined);
  const deprecated = entries.filter(([, input]) => input.deprecationMessage !== undefined);
  const inputs = ["| input | default | meaning |", "| --- | --- | --- |", ...current.map(row)];
  if (deprecated.length > 0) inputs.push("", "| deprecated input | default | meaning |", "| --- | --- | --- |", ...deprecated.map(row));
  const outputs = ["| output | value |", "| --- | --- |", ...Object.entries(action.outputs).map(([name, o]) => `| \`${name}\` | ${cell(o.description)} |`)];
  return { inputs: inputs.join("\n"), outputs: outputs.join("\n") };
}

/** Prints `pairflow ARGS`'s stdout. */
export type Help = (args: string[]) => string;

/** The commands `pairflow --help` lists, in its order (commander's own `help` left out). */
export function commands(help: Help): string[] {
  const top = help(["--help"]);
  const listed = top.slice(top.indexOf("\nCommands:\n") + "\nCommands:\n".length);
  return listed
    .split("\n")
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== "help");
}

/** One section per command: its `--help`, verbatim. */
export function cliReference(help: Help): string {
  const sections = commands(help).map((name) => `### pairflow ${name}\n\n\`\`\`text\n${help([name, "--help"]).trimEnd()}\n\`\`\``);
  return [`\`\`\`text\n${help(["--help"]).trimEnd()}\n\`\`\``, ...sections].join("\n\n");
}

const markers = (name: string) => new RegExp(`(<!-- generated:${name} -->\n)([\\s\\S]*?)(<!-- /generated:${name} -->)`);

/** The text between a page's markers for NAME. */
export function generatedPart(doc: string, name: string): string | undefined {
  return markers(name).exec(doc)?.[2];
}

/** The page with the text between its markers for NAME replaced by BODY (one line or more). */
export function fill(doc: string, name: string, body: string): string {
  if (generatedPart(doc, name) === undefined) throw new Error(`no <!-- generated:${name} --> ... <!-- /generated:${name} --> markers`);
  return doc.replace(markers(name), (_, open: string, _old: string, close: string) => `${open}${body.trimEnd()}\n${close}`);
}

/** Every generated page as it should read, given the current pages, action.yml and the CLI's help. */
export function pages(read: (file: string) => string, help: Help): Record<string, string> {
  const { inputs, outputs } = actionTables(read("action.yml"));
  return {
    "docs/action.md": fill(fill(read("docs/action.md"), "inputs", inputs), "outputs", outputs),
    "docs/cli.md": fill(read("docs/cli.md"), "help", cliReference(help)),
  };
}

/** The command line of the sources as they are (not dist/, which is rebuilt centrally). */
const sourceHelp: Help = (args) =>
  execFileSync(process.execPath, ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), ...args], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const read = (file: string) => readFileSync(path.join(REPO, file), "utf8");
  const stale: string[] = [];
  for (const [file, text] of Object.entries(pages(read, sourceHelp))) {
    if (text === read(file)) continue;
    stale.push(file);
    if (!check) writeFileSync(path.join(REPO, file), text);
  }
  if (check && stale.length > 0) {
    console.error(`out of date (run npx tsx scripts/docs.ts): ${stale.join(", ")}`);
    process.exitCode = 1;
  } else if (!check) {
    console.log(stale.length > 0 ? `rewrote ${stale.join(", ")}` : "up to date");
  }
}
