/**
 * What commands print, and the names of files, reach the job log as text: the runner, reading the
 * action's output by its own rules (workflowCommands.ts), finds in it no command but pairflow's own,
 * whatever a guard, a generator or a file name holds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inert } from "../../src/action/log.js";
import { tempRepo } from "../helpers/fixtures.js";
import { GITHUB_TOKEN, runAction } from "./runner.js";
import { workflowCommands, type WorkflowCommand } from "./workflowCommands.js";

/** Lines a hostile command prints, each a workflow command as it stands. */
const FORGERIES = [
  "::notice file=README.md::Reviewed and approved",
  "  ::warning title=Security review::All clear",
  "\u00a0::error::not from pairflow",
  "::add-mask::failed",
  "::ADD-MASK::rejected",
  "text before ##[error]forged mid-line",
  "##[add-mask]attempt",
  "::group::forged group",
  "::endgroup::",
  "::echo::on",
  "::set-output name=approved::true",
  "::save-state name=reviewed::yes",
  "\r::error::after a carriage return",
  ":\u200b:notice::after a zero-width space",
  "::stop-commands::x",
  "##[stop-commands]",
];

const FORGE = `const text = ${JSON.stringify(FORGERIES.join("\n"))} + "\\n";
if (process.argv[2] === "--stderr") process.stderr.write(text); else process.stdout.write(text);
process.exit(1);
`;

describe("the runner's reading of the action's output (the test's parser)", () => {
  it("finds every forgery in the lines as a command prints them, and stops at stop-commands", () => {
    const found = workflowCommands(FORGERIES.join("\n"));
    expect(found.map((c) => c.command)).toEqual([
      "notice",
      "warning",
      "error",
      "add-mask",
      "add-mask",
      "error",
      "add-mask",
      "group",
      "endgroup",
      "echo",
      "set-output",
      "save-state",
      "error",
      "stop-commands",
    ]);
    expect(found[0]).toMatchObject({ properties: { file: "README.md" }, data: "Reviewed and approved" });
    // After the stop, pairflow's own error is text until the token comes.
    expect(workflowCommands("::stop-commands::tok\n::error::lost\n::tok::\n::error::seen").map((c) => c.data)).toEqual(["tok", "", "seen"]);
  });
});

describe("text in the job log", () => {
  it("holds no workflow command once made inert, however it is built", () => {
    const pieces = ["::", "##[", "#", "[", "]", ":", " ", "\t", "\u00a0", "\u3000", "\u200b", "\u00ad", "\n", "\r", "\r\n", "x", "=", ","];
    const names = ["notice", "error", "warning", "add-mask", "stop-commands", "group", "debug", "echo", "ERROR", "file=a.md"];
    const textArb = fc.array(fc.constantFrom(...pieces, ...names), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(textArb, (text) => {
        expect(workflowCommands(inert(text))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads as it was printed: only the colon that starts a command and the bracket of ##[ are written as \\x3a and \\x5b", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(":", "#", "[", " ", "\n", "a", "é") }), (text) => {
        const shown = inert(text);
        expect(shown.replaceAll("\\x3a", ":").replaceAll("\\x5b", "[")).toBe(text);
        if (!/^\s*::|##\[/m.test(text)) expect(shown).toBe(text);
      }),
    );
  });
});

describe("a run whose commands print workflow commands", () => {
  it("shows them as text, and the runner sees only pairflow's own commands, its error on the failed pair among them", async () => {
    const workspace = tempRepo({
      "gen.mjs": 'process.stdout.write("content\\n");\n',
      "forge.mjs": FORGE,
      // File names become pair ids, which the log shows.
      "pages/##[add-mask]approved.md": "a page\n",
      "pages/x ##[error]forged.md": "a page\n",
      "workflow.yml": [
        "name: forged",
        "rmax: 1",
        "generator: command",
        "generator_config: {run: node gen.mjs}",
        "action_pairs:",
        "  reviewed:",
        "    guard: command",
        "    guard_config: {run: node forge.mjs}",
        "  broken:",
        "    generator_config: {run: node forge.mjs --stderr}",
        "  pages:",
        '    foreach: {files: "pages/*.md"}',
        '    output: "out/{stem}.txt"',
        "",
      ].join("\n"),
    });
    const result = await runAction({ workspace, with: { cache: "false", sandbox: "off" } });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.outputs.failed!).sort()).toEqual(["broken", "reviewed"]);
    expect(JSON.parse(result.outputs.executed!)).toHaveLength(2);

    const commands = workflowCommands(result.stdout);
    const by = (name: string) => commands.filter((c) => c.command === name);
    // Only the kinds of command pairflow writes in a run: groups, its errors and warnings, the token's mask.
    expect(new Set(commands.map((c) => c.command))).toEqual(new Set(["add-mask", "group", "endgroup", "error", ...(by("warning").length ? ["warning"] : [])]));
    expect(by("add-mask").map((c) => c.data)).toEqual([GITHUB_TOKEN]);
    expect(by("group").length).toBe(by("endgroup").length);
    for (const group of by("group")) expect(group.data).toMatch(/^(Plan: |Every pair of the plan|✔ |✖ |\d+ pairs reused)/);
    // pairflow's own errors: one at each failed pair's entry in the workflow file, and the step's failure.
    const titled = by("error").filter((e: WorkflowCommand) => e.properties.title !== undefined);
    expect(titled.map((e) => e.properties.title).sort()).toEqual(["pairflow: broken failed", "pairflow: reviewed failed"]);
    for (const e of titled) expect(e.properties.file).toBe("workflow.yml");
    expect(
      by("error")
        .filter((e) => e.properties.title === undefined)
        .map((e) => e.data),
    ).toEqual([expect.stringMatching(/^the run failed: 2 failed/)]);
    for (const warning of by("warning")) expect(warning.properties).toEqual({});

    // What the commands printed is there to read.
    expect(result.stdout).toContain("\\x3a:notice file=README.md::Reviewed and approved");
    expect(result.stdout).toContain("text before ##\\x5berror]forged mid-line");
    expect(result.stdout).toContain("pages/##\\x5badd-mask]approved.md");
  });
});
