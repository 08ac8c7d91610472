// Preloaded into every process the bench times (`node --import ./bench/peak.mjs ...`): at exit, the
// process's own peak resident set (getrusage maxRSS, in KB) goes to the file named by
// PAIRFLOW_BENCH_PEAK, so the bench reads each child's peak without /usr/bin/time.
import { writeFileSync } from "node:fs";

const file = process.env.PAIRFLOW_BENCH_PEAK;
if (file) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
