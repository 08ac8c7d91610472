/**
 * The parts of the docs written from the code (scripts/docs.ts) say what the code says: the action's
 * inputs and outputs as action.yml declares them, and every command's `--help` as the installed
 * package prints it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { actionTables, commands, generatedPart, pages, type Help } from "../../scripts/docs.js";
import { pairflow } from "../cli/built.js";
import { REPO } from "../helpers/fixtures.js";
import { scaled } from "../helpers/time.js";

const read = (file: string) => readFileSync(path.join(REPO, file), "utf8");

const help: Help = (args) => {
  const r = pairflow(args);
  if (r.status !== 0) throw new Error(`pairflow ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};

describe("generated docs", () => {
  it(
    "docs/action.md's tables are action.yml's inputs and outputs, and docs/cli.md every command's --help (npx tsx scripts/docs.ts rewrites them)",
    { timeout: scaled(60_000) },
    () => {
      for (const [file, text] of Object.entries(pages(read, help))) expect(read(file), file).toBe(text);
    },
  );

  it("the tables name every input and output action.yml declares, and change when a description does", () => {
    const yml = read("action.yml");
    const { inputs, outputs } = actionTables(yml);
    for (const name of ["path", "mode", "max-cost", "github-token", "workflow"]) expect(inputs).toContain(`| \`${name}\` |`);
    for (const name of ["plan", "has-changes", "run-id"]) expect(outputs).toContain(`| \`${name}\` |`);
    const edited = yml.replace("Execute (or plan to execute) every pair, whatever its state.", "Something else.");
    expect(edited).not.toBe(yml);
    expect(actionTables(edited).inputs).not.toBe(generatedPart(read("docs/action.md"), "inputs")!.trimEnd());
  });

  it("docs/cli.md has a section for every command pairflow --help lists", { timeout: scaled(30_000) }, () => {
    const listed = commands(help);
    expect(listed).toEqual(expect.arrayContaining(["init", "validate", "plan", "run", "explain", "merge-lock"]));
    for (const name of listed) expect(read("docs/cli.md")).toContain(`### pairflow ${name}\n`);
  });
});
