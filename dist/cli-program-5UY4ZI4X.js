#!/usr/bin/env node
import { createRequire as __pairflowCreateRequire } from "node:module";
const require = __pairflowCreateRequire(import.meta.url);
import {
  package_default
} from "./cli-chunk-BXGMXDAX.js";
import {
  count
} from "./cli-chunk-L5PZGOZN.js";
import {
  styleFor
} from "./cli-chunk-2AHEYELG.js";
import "./cli-chunk-IBQJ6QCZ.js";
import {
  Command,
  CommanderError,
  ConfigError,
  EXIT,
  InputError,
  StorageError,
  UsageError,
  checkStateDir,
  formatIssue
} from "./cli-chunk-QT3RU6UR.js";
import "./cli-chunk-NRKDSK7E.js";
import "./cli-chunk-FRV2UMY2.js";

// src/cli/program.ts
var COMMANDS = [
  [["init"], async () => (await import("./cli-init-JAUI3YAJ.js")).registerInit],
  [["validate"], async () => (await import("./cli-validate-63B4UCUZ.js")).registerValidate],
  [["plan"], async () => (await import("./cli-plan-AH3XMYFU.js")).registerPlan],
  [["diff"], async () => (await import("./cli-diff-E36BBLGR.js")).registerDiff],
  [["run", "resume"], async () => (await import("./cli-run-PEXZKHYW.js")).registerRun],
  [["prompt"], async () => (await import("./cli-prompt-EOCXA2I5.js")).registerPrompt],
  [["runs", "show", "prune"], async () => (await import("./cli-history-TRWXYTOC.js")).registerHistory],
  [["merge-lock"], async () => (await import("./cli-mergeLock-GTZBSGUI.js")).registerMergeLock],
  [["merge"], async () => (await import("./cli-shard-HKBEXP7K.js")).registerMerge]
];
async function runCli(argv, io) {
  let status = EXIT.ok;
  const context = { io, setStatus: (s) => status = s };
  const program = new Command("pairflow").description("Plan and run workflows of LLM action pairs, re-running only the pairs whose inputs changed.").version(package_default.version, "-V, --version").showHelpAfterError("(run with --help for usage)").configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) }).exitOverride().hook("preAction", (_, command) => checkStateDir(command, io));
  const given = COMMANDS.find(([names]) => names.includes(argv[0] ?? ""));
  for (const [, load] of given ? [given] : COMMANDS) (await load())(program, context);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    status = handleError(err, io);
  }
  return status;
}
function handleError(err, io) {
  if (err instanceof CommanderError) {
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const style = styleFor(io.stderr, io.env);
  if (err instanceof ConfigError) {
    for (const issue of err.issues) io.stderr.write(`${style.red("error")} ${formatIssue(issue)}
`);
    const files = new Set(err.issues.map((i) => i.file)).size;
    io.stderr.write(`${count(err.issues.length, "problem")} in ${count(files, "file")}
`);
    return EXIT.usage;
  }
  if (err instanceof UsageError || err instanceof InputError) {
    io.stderr.write(`${style.red("error")} ${err.message}
`);
    return EXIT.usage;
  }
  if (err instanceof StorageError) {
    io.stderr.write(`${style.red("error")} ${err.message}
`);
    return EXIT.failed;
  }
  throw err;
}
export {
  EXIT,
  runCli
};
