/**
 * One contender of the mutex contention test: takes the workflow's mutex `rounds` times, writing
 * "enter <pid>" and "leave <pid>" around its time as holder, and leaves it either released or, on
 * about half the rounds, as a dead process leaves it (a holder record whose process is gone), so
 * the others race to take it over.
 *
 * Arguments: workflow file, log file, rounds, pid of a process that no longer exists, go file.
 * It says it is ready with a line in "<go file>.ready", then waits for the go file.
 */
import { appendFileSync, existsSync, renameSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { acquireRunLock, lockPath } from "../../src/records/mutex.js";

const [workflow, log, roundsText, deadPid, go] = process.argv.slice(2) as [string, string, string, string, string];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
appendFileSync(`${go}.ready`, `${process.pid}\n`);
while (!existsSync(go)) await sleep(5);
let abandoned = 0;
for (let round = 0; round < Number(roundsText); round++) {
  const release = await acquireRunLock(workflow, { runId: `r${process.pid}-${round}`, wait: true, pollMs: 1 + Math.floor(Math.random() * 4) });
  appendFileSync(log, `enter ${process.pid}\n`);
  await sleep(Math.random() * 3);
  appendFileSync(log, `leave ${process.pid}\n`);
  if (Math.random() < 0.7) {
    // Dies as far as the others can tell: the mutex names a process that is gone.
    const dead = { pid: Number(deadPid), host: hostname(), runId: `dead-${process.pid}-${round}`, workflow, since: "", token: `${process.pid}-${round}` };
    const tmp = `${lockPath(workflow)}.${process.pid}.tmp-dead`;
    writeFileSync(tmp, JSON.stringify(dead));
    renameSync(tmp, lockPath(workflow));
    abandoned++;
  } else release();
  await sleep(Math.random() * 2);
}
process.stdout.write(String(abandoned));
