import pkg from "../../package.json" with { type: "json" };
import { startTiming } from "./timing.js";

// A reader that goes away (`pairflow run | head -1`) ends the output, not the run: the run still
// finishes, records itself and releases its mutex; what it would have printed is dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    stream.write = (() => true) as typeof stream.write;
  });
}

const argv = process.argv.slice(2);
startTiming(process.env, argv);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // What commander prints for it, without loading the commands and everything they use.
  process.stdout.write(`${pkg.version}\n`);
} else {
  // Loaded on demand: the bundle splits it from this entry point (scripts/build.mjs).
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  });
}
