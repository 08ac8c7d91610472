// The spawn floor of a run: the same trivial command a benchmark run's pairs execute, once per
// pair, through /bin/sh with the prompt on stdin and the output collected, at most `concurrency`
// at a time, in one Node process. Whatever a run does beyond this is pairflow's own cost.
//
//   node bench/spawnFloor.mjs <pairs> <concurrency> <command>
import { spawn } from "node:child_process";

const [pairs, concurrency, command] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const prompt = "You are a careful engineer. ".repeat(80);
let next = 0;
let bytes = 0;
const one = (i) =>
  new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { env: { ...process.env, PAIRFLOW_PAIR: `pair_${i}` }, stdio: "pipe" });
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.stdin.on("error", () => {});
    child.stdin.end(prompt);
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
const worker = async () => {
  while (next < pairs) await one(next++);
};
await Promise.all(Array.from({ length: concurrency }, worker));
console.log(`${pairs} commands, ${bytes} bytes`);
