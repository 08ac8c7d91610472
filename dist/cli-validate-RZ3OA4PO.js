#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  issueLines
} from "./cli-chunk-VJSIQDDU.js";
import {
  checkWorkflow
} from "./cli-chunk-4JJEQPFB.js";
import {
  inputHasherFor,
  stateDirFor
} from "./cli-chunk-TPNKQGFG.js";
import "./cli-chunk-LAOPAIVL.js";
import {
  count
} from "./cli-chunk-PW37734U.js";
import {
  styleFor
} from "./cli-chunk-TNYNDC55.js";
import "./cli-chunk-YKULHKX5.js";
import "./cli-chunk-FEFDJVE6.js";
import "./cli-chunk-7NHSQKXA.js";
import {
  ConfigError,
  EXIT,
  PATH_HELP,
  diskFiles,
  displayPath,
  downstreamOf,
  examples,
  formatIssue,
  issueAt,
  loadWorkflow,
  sortIssues
} from "./cli-chunk-BXCSBTXN.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/app/validate.ts
async function validateTarget(target, options) {
  const loaded = loadWorkflow(target, options.cwd);
  const { workflow, graph } = loaded;
  const hasher = inputHasherFor(workflow, stateDirFor(workflow.root, options));
  const notes = [];
  const file = loaded.sources.workflow;
  for (const pair of workflow.pairs.values()) {
    for (const left of hasher.leftOut(pair.inputs)) {
      notes.push({ ...issueAt(file, ["action_pairs", pair.id, "inputs", left.index], leftOutMessage(pair, left, graph)), severity: "note" });
    }
  }
  const problems = sortIssues([...loaded.warnings, ...await checkWorkflow(loaded, diskFiles)]);
  return { ...loaded, problems, notes };
}
function leftOutMessage(pair, left, graph) {
  const owner = left.owner;
  const [what, why] = owner === null ? ["the lock file", "it records the references, so none can include it"] : owner === pair.id ? ["this pair's own output", "the pair's reference would change on every run"] : downstreamOf(graph, [pair.id]).has(owner) ? [`the output of pair "${owner}"`, `"${owner}" depends on this pair, so this pair's reference would change on every run`] : downstreamOf(graph, [owner]).has(pair.id) ? [`the output of pair "${owner}"`, "its accepted content is part of this pair's reference through requires already"] : [`the output of pair "${owner}"`, `add "${owner}" to requires if this pair reads it, which makes its accepted content part of the reference`];
  return `"${left.pattern}" matches ${left.file}, ${what}, which pairflow writes and so never takes as an input: ${why}`;
}

// src/cli/commands/validate.ts
function registerValidate(program, { io, setStatus }) {
  program.command("validate").description(
    "Check a workflow and its prompts file: schema, references between pairs, cycles, guard and generator settings; warn about what a run would not honour; note inputs globs that match files pairflow writes."
  ).argument("[path]", PATH_HELP).option("--json", "print the problems as JSON on stdout: {version: 1, problems: [{file, line, column, key, severity, message}]}").option("--strict", "fail on warnings too (exit status 2)").addHelpText("after", examples(["pairflow validate", "pairflow validate examples/tdd-stack", "pairflow validate --strict --json ci/docs/workflow.yml"])).action(async (target, options) => {
    if (options.json) return validateJson(target, options, { io, setStatus });
    const { workflow, graph, problems, notes } = await validateTarget(target, { cwd: io.cwd, env: io.env });
    const style = styleFor(io.stderr, io.env);
    const errors = problems.filter(isError);
    const warnings = problems.filter((p) => p.severity === "warning");
    for (const line of issueLines(warnings, style.yellow("warning"))) io.stderr.write(line + "\n");
    if (errors.length > 0) throw new ConfigError(errors);
    const prompts = workflow.promptsPath ? `, prompts ${displayPath(workflow.promptsPath, io.cwd)}` : ", no prompts file";
    const warned = warnings.length > 0 ? `, ${count(warnings.length, "warning")}` : "";
    io.stdout.write(
      `${displayPath(workflow.path, io.cwd)}: valid (${count(workflow.pairs.size, "pair")} in ${count(graph.waves.length, "wave")}${prompts}${warned})
`
    );
    for (const note of notes) io.stderr.write(`${style.yellow("note")} ${formatIssue(note)}
`);
    if (options.strict && warnings.length > 0) {
      io.stderr.write(`--strict: ${count(warnings.length, "warning")} fail the check
`);
      setStatus(EXIT.usage);
    }
  });
}
async function validateJson(target, options, { io, setStatus }) {
  let problems;
  try {
    const validated = await validateTarget(target, { cwd: io.cwd, env: io.env });
    problems = [...validated.problems, ...validated.notes];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = err.issues;
  }
  const shown = problems.map((p) => ({ file: p.file, line: p.line, column: p.column, key: p.key, severity: p.severity ?? "error", message: p.message }));
  io.stdout.write(JSON.stringify({ version: 1, problems: shown }, null, 2) + "\n");
  const fails = shown.some((p) => p.severity === "error" || options.strict && p.severity === "warning");
  setStatus(fails ? EXIT.usage : EXIT.ok);
}
function isError(issue) {
  return issue.severity === void 0 || issue.severity === "error";
}
export {
  registerValidate
};
