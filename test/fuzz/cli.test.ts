/**
 * The worst of the fuzzed inputs through the built command line (run `npm run build` first), as a
 * person meets them: exit 0 or 2, no stack trace, no hang, in a process whose heap is capped so
 * that unbounded memory is a crash.
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectClean, makeWorld, type World } from "./harness.js";
import { SNIPPETS } from "./mutations.js";
import { CLI } from "../helpers/package.js";
import { scaled } from "../helpers/time.js";

let world: World;
beforeAll(async () => void (world = await makeWorld()), scaled(60_000));
afterAll(() => world.done());

const workflow = () => world.bases[0]!.files["workflow.yml"]!.toString("utf8");

/** Files to put in the example: text, or "fifo" for a named pipe. */
const cases: [string, () => Record<string, string | Buffer>][] = [
  ["an alias bomb", () => ({ "workflow.yml": SNIPPETS[0]! + workflow() })],
  ["a recursive alias", () => ({ "workflow.yml": "r: &r [*r]\n" + workflow() })],
  ["binary bytes as the workflow", () => ({ "workflow.yml": Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256)) })],
  ["a pipe as the workflow", () => ({ "workflow.yml": "fifo" })],
  ["prompts: /dev/zero", () => ({ "workflow.yml": "prompts: /dev/zero\n" + workflow() })],
  ["prompts outside the repository", () => ({ "workflow.yml": "prompts: ../outside.yml\n" + workflow() })],
  ["a null lock entry", () => ({ "workflow.lock.json": JSON.stringify({ ...JSON.parse(world.lockText), pairs: { g_test: null } }) })],
];

describe("the built command line, on the worst inputs", () => {
  it.each(cases)(
    "%s: exit 0 or 2, no stack trace, in bounded memory",
    (_, files) => {
      const dir = world.caseRepo(world.bases[0]!);
      for (const [name, content] of Object.entries(files())) {
        if (content === "fifo") {
          rmSync(path.join(dir, name));
          spawnSync("mv", [path.join(dir, "fifo"), path.join(dir, name)]);
        } else writeFileSync(path.join(dir, name), content);
      }
      for (const args of [["validate"], ["plan", "--state-dir", path.join(dir, ".state")]]) {
        // The heap limit makes unbounded memory a crash; the kill after a minute makes a hang a failure.
        const r = spawnSync(process.execPath, ["--max-old-space-size=256", CLI, ...args], {
          cwd: dir,
          encoding: "utf8",
          timeout: scaled(60_000),
          env: { ...process.env, NO_COLOR: "1" },
        });
        expect(r.signal, `${args[0]} was killed`).toBeNull();
        expectClean({ status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, args[0]!);
      }
    },
    scaled(130_000),
  );
});
