/**
 * Commands in the sandbox: what they can see and change, and that they end with what started them
 * (a timeout, a cancel, pairflow killed outright) as unconfined commands do. Skipped where
 * bubblewrap does not work; test/security/secrets.test.ts covers the machine without it.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { promisify } from "node:util";
import { createServer, type AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bwrapArguments, gitConfigFiles, probeSandbox, runnerDirectories, spawnable } from "../../src/processes/sandbox.js";
import { nameBytes, nameText } from "../../src/model/fileName.js";
import { commandNetwork, type GuardRef } from "../../src/model/workflow.js";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { processesWith, stillRunning } from "../helpers/processes.js";
import { runOf } from "../helpers/state.js";
import { scaled } from "../helpers/time.js";

const SANDBOX = probeSandbox(process.env).available;
const execFileAsync = promisify(execFile);

/** A guard that reports what it can see and change, as its feedback (it rejects). */
const LOOK = String.raw`import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
const can = (f) => { try { f(); return "yes"; } catch (e) { return e.code ?? "no"; } };
console.log("processes " + readdirSync("/proc").filter((p) => /^\d+$/.test(p)).length);
console.log("write repository " + can(() => writeFileSync("planted.txt", "x")));
console.log("write home " + can(() => writeFileSync(homedir() + "/.pairflow-planted", "x")));
console.log("home holds " + readdirSync(homedir()).filter((n) => n !== ".pairflow-planted").join(",") + ".");
console.log("write tmp " + can(() => writeFileSync("/tmp/scratch.txt", "x")));
console.log("read artifact " + can(() => readdirSync(process.env.PAIRFLOW_ARTIFACT.replace(/\/[^/]*$/, ""))));
console.log("run holds " + can(() => { if (readdirSync("/run").some((n) => !["systemd", "mount", "pairflow-layer"].includes(n)) || readdirSync("/run/pairflow-layer").length > 0) throw new Error(); }));
console.log("runner temp holds " + readdirSync(process.argv[2]).length);
console.log("no new privileges " + /NoNewPrivs:\s*1/.test(readFileSync("/proc/self/status", "utf8")));
const socket = (await import("node:net")).connect(Number(process.argv[3]), "127.0.0.1");
console.log("network " + (await new Promise((resolve) => { socket.on("connect", () => resolve("yes")); socket.on("error", (e) => resolve(e.code)); })));
socket.destroy();
process.exit(1);
`;

describe.runIf(SANDBOX)("a command in the sandbox", () => {
  it("sees only its own processes, reads the repository and its artifact, writes nothing that outlives it, and has the network only when its pair says so", async () => {
    // The runner's temporary directory, with the file commands a step writes to.
    const runnerTemp = mkdtempSync(path.join(tmpdir(), "pairflow-runner-temp-"));
    writeFileSync(path.join(runnerTemp, "set_env"), "");
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const dir = tempRepo({
      "look.mjs": LOOK,
      "workflow.yml": [
        "name: s",
        "rmax: 0",
        "action_pairs:",
        `  a:\n    generator: command\n    generator_config: {run: echo hi}\n    guard: command\n    guard_config: {run: node look.mjs ${runnerTemp} ${port}}`,
        `  b:\n    generator: command\n    generator_config: {run: echo hi}\n    guard: command\n    guard_config: {run: node look.mjs ${runnerTemp} ${port}, network: true}`,
        "",
      ].join("\n"),
    });
    const home = mkdtempSync(path.join(tmpdir(), "pairflow-home-"));
    writeFileSync(path.join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=npm_secret\n");
    const report = await runOf(dir, { cwd: dir, env: { ...process.env, HOME: home, RUNNER_TEMP: runnerTemp } });
    server.close();
    expect(report.sandbox).toMatchObject({ confined: true });
    const feedback = report.pairs.find((p) => p.id === "a")!.attempts[0]!.feedback;
    expect(report.pairs.find((p) => p.id === "b")!.attempts[0]!.feedback).toContain("network yes");
    expect(Number(/processes (\d+)/.exec(feedback)![1])).toBeLessThanOrEqual(4);
    // A guard writes to a layer over the repository that goes with it (planted.txt is not left below).
    expect(feedback).toContain("write repository yes");
    // Its home directory is an empty one of its own: written, then gone with it.
    expect(feedback).toContain("write home yes");
    expect(feedback).toContain("home holds .");
    expect(readdirSync(home)).toEqual([".npmrc"]);
    expect(feedback).toContain("write tmp yes");
    expect(feedback).toContain("read artifact yes");
    expect(feedback).toContain("run holds yes"); // nothing but what DNS needs (and the layer's emptied directory, and mount's own)
    expect(feedback).toContain("runner temp holds 0");
    expect(feedback).toContain("no new privileges true");
    expect(feedback).toMatch(/network (ENETUNREACH|ECONNREFUSED)/);
    expect(readdirSync(dir)).not.toContain("planted.txt");
  });

  it("is stopped whole by a timeout, and with pairflow when pairflow is killed outright", async () => {
    const marker = `pairflow-sandbox-${process.pid}-${Date.now()}`;
    const dir = tempRepo({
      "workflow.yml": [
        "name: s",
        "rmax: 0",
        "action_pairs:",
        // A timeout: the guard sleeps past it, with a child that would go on.
        `  slow:\n    generator: command\n    generator_config: {run: echo hi}\n    guard: command\n    guard_config: {run: "sleep 300 & sleep 301 # ${marker}-timeout", timeout: 1}`,
        // Killed with pairflow: a generator that never ends.
        `  stuck:\n    generator: command\n    generator_config: {run: "sleep 302 # ${marker}-kill"}`,
        "",
      ].join("\n"),
    });
    const child = spawn(process.execPath, [CLI, "run"], { cwd: dir, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
    // Both commands start; the timeout stops the first whole.
    await expect.poll(() => processesWith(`${marker}-kill`).length, { timeout: 8_000, message: "the stuck generator to start" }).toBeGreaterThan(0);
    await expect.poll(() => processesWith(`${marker}-timeout`).length, { timeout: 8_000, message: "the timed-out guard to be gone" }).toBe(0);
    const stuck = processesWith(`${marker}-kill`);
    // pairflow is killed outright, as by the out-of-memory killer: the sandbox goes with it.
    child.kill("SIGKILL");
    await expect.poll(() => stillRunning(stuck, `${marker}-kill`).length, { timeout: 8_000, message: "the sandbox to go with pairflow" }).toBe(0);
    // What the sandbox had started after that look goes with its PID namespace a moment later.
    await expect.poll(() => processesWith(marker), { timeout: 8_000, message: "everything the sandbox started to be gone" }).toEqual([]);
  });
});

describe.runIf(SANDBOX)("a sandbox whose start pairflow does not outlive", () => {
  it("never runs its command, and nothing of it is left", { timeout: scaled(60_000) }, async () => {
    // The command would call this server; a sandbox pairflow dies under must not get that far.
    let calls = 0;
    const server = createServer((socket) => {
      calls++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        const marker = `pairflow-start-${process.pid}-${Date.now()}-${attempt}`;
        const call = `require('node:net').connect(${port}, '127.0.0.1').on('connect', () => setTimeout(() => {}, 300000))`;
        const dir = tempRepo({
          "workflow.yml": [
            "name: s",
            "action_pairs:",
            `  a:\n    generator: command\n    generator_config: {run: "node -e \\"${call}\\" # ${marker}", network: true}`,
            "",
          ].join("\n"),
        });
        const child = spawn(process.execPath, [CLI, "run"], { cwd: dir, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
        // Killed outright the moment its sandbox appears, while it is still starting.
        await expect.poll(() => processesWith(marker).length, { interval: 1, timeout: 20_000, message: "the sandbox to start" }).toBeGreaterThan(0);
        child.kill("SIGKILL");
        await expect.poll(() => processesWith(marker), { timeout: 8_000, message: "everything the sandbox started to be gone" }).toEqual([]);
      }
      // A command that had started would have called by now (node starts in well under a second).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(calls).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe.runIf(SANDBOX)("an attacker's scripts in the sandbox", () => {
  it("cannot write outside the repository, into it, or into the runner's files", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "pairflow-outside-"));
    writeFileSync(path.join(outside, "id_ed25519"), "private key\n");
    const dir = tempRepo({
      "attack.sh": `echo owned > ${outside}/id_ed25519; echo owned > README.md; rm -f workflow.yml; echo "artifact"`,
      "README.md": "readme\n",
      "workflow.yml": "name: s\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: sh attack.sh}\n",
    });
    const report = await runOf(dir, { cwd: dir, env: process.env });
    expect(report.status).toBe("success");
    expect(readFileSync(path.join(outside, "id_ed25519"), "utf8")).toBe("private key\n");
    expect(readFileSync(path.join(dir, "README.md"), "utf8")).toBe("readme\n");
    expect(readdirSync(dir)).toContain("workflow.yml");
  });
});

describe.runIf(SANDBOX)("the sandbox's start", () => {
  it("makes a guard's writable layer only where a command guard will run", { timeout: scaled(60_000) }, async () => {
    // bubblewrap, behind a script that notes each start: the layer's is the one that sets up an overlay.
    const bin = mkdtempSync(path.join(tmpdir(), "pairflow-bwrap-"));
    const log = path.join(bin, "starts");
    const real = (probeSandbox(process.env) as { bwrap: string }).bwrap;
    writeFileSync(path.join(bin, "bwrap"), `#!/bin/sh\necho "$*" >> ${log}\nexec ${real} "$@"\n`, { mode: 0o755 });
    const layers = async (guard: string) => {
      writeFileSync(log, "");
      const dir = tempRepo({ "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: echo hi}\n${guard}` });
      await execFileAsync(process.execPath, [CLI, "run"], { cwd: dir, env: { ...process.env, PAIRFLOW_BWRAP: path.join(bin, "bwrap") } });
      return readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line.includes("overlay")).length;
    };
    expect(await layers("")).toBe(0);
    expect(await layers("    guard: command\n    guard_config: {run: grep -q hi $PAIRFLOW_ARTIFACT}\n")).toBeGreaterThan(0);
  });
});

describe("what the sandbox hides", () => {
  it("hides the runner's temporary directory and, for the action, the runner's own directory, and shows the repository again", () => {
    const dirs = runnerDirectories({ RUNNER_TEMP: "/home/runner/work/_temp" }, "/home/runner/runners/2.330.0/externals/node24/bin/node");
    expect(dirs).toEqual(["/home/runner/work/_temp", "/home/runner/runners/2.330.0"]);
    // A self-hosted runner keeps the work tree inside its own directory: shown again on top.
    const args = bwrapArguments(
      { root: "/opt/runner/_work/repo/repo", hide: ["/opt/runner"] },
      { cwd: "/opt/runner/_work/repo/repo", readable: [], network: false },
    );
    const hide = args.indexOf("/opt/runner");
    const show = args.lastIndexOf("/opt/runner/_work/repo/repo");
    expect(args[hide - 1]).toBe("--tmpfs");
    expect(show).toBeGreaterThan(hide);
    // A user namespace of its own, every capability dropped: as root too, no mount can be undone.
    expect(args).toEqual(expect.arrayContaining(["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-net"]));
    expect(args[args.indexOf("--cap-drop") + 1]).toBe("ALL");
    expect(bwrapArguments({ root: "/r", hide: [] }, { cwd: "/r", readable: [], network: true })).not.toContain("--unshare-net");
  });

  it("hands a program every argument byte for byte, names that are not UTF-8 included", () => {
    // Each argument written out by the program, NUL after each: what it was given, as bytes.
    const names = fc.uint8Array({ minLength: 1, maxLength: 12 }).filter((bytes) => !bytes.includes(0));
    fc.assert(
      fc.property(
        fc.array(names, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !s.includes("\0")),
          { maxLength: 2 },
        ),
        (args, after) => {
          const texts = args.map((bytes) => nameText(bytes));
          const argv = spawnable(["/usr/bin/printf", "%s\\0", ...texts]);
          const out = execFileSync(argv[0]!, [...argv.slice(1), ...after]);
          const expected = Buffer.concat([...args.map((bytes) => Buffer.from(bytes)), ...after.map((s) => Buffer.from(s))].flatMap((b) => [b, Buffer.of(0)]));
          expect(out.equals(expected)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
    // A configuration under such a directory is found by its bytes.
    const repo = mkdtempSync(path.join(tmpdir(), "pairflow-odd-"));
    const odd = Buffer.concat([Buffer.from(`${repo}/.git/modules/m`), Buffer.of(0xe9)]);
    mkdirSync(odd, { recursive: true });
    writeFileSync(Buffer.concat([odd, Buffer.from("/HEAD")]), "ref: refs/heads/main\n");
    writeFileSync(Buffer.concat([odd, Buffer.from("/config")]), "[core]\n");
    expect(gitConfigFiles(repo).map((file) => nameBytes(file).toString("latin1"))).toEqual([Buffer.concat([odd, Buffer.from("/config")]).toString("latin1")]);
  });
});

describe("which commands have the network", () => {
  const pair = (over: Partial<Parameters<typeof commandNetwork>[0]>) =>
    commandNetwork({ generator: "command", generatorConfig: {}, guard: null, guardConfig: {}, ...over });

  it("gives it to a command generator unless it says network: false, and to a command guard only when it says network: true", () => {
    expect(pair({})).toEqual([{ command: "generator", network: true }]);
    expect(pair({ generatorConfig: { network: false } })).toEqual([{ command: "generator", network: false }]);
    expect(pair({ generator: "openai", guard: "command" })).toEqual([{ command: "guard", network: false }]);
    expect(pair({ generator: "openai", guard: "command", guardConfig: { network: true } })).toEqual([{ command: "guard", network: true }]);
    // A composite's command guards, each by its own config; guards that start no command are not listed.
    const guards: GuardRef[] = [
      { guard: "command", guard_config: { run: "a", network: true } },
      { guard: "regex", guard_config: { pattern: "x" } },
      { guard: "command", guard_config: { run: "b" } },
    ];
    expect(pair({ generator: "anthropic", guard: "composite", guards })).toEqual([
      { command: "guard", network: true },
      { command: "guard", network: false },
    ]);
  });

  it("is shown by explain, for each of a pair's commands", async () => {
    const dir = tempRepo({
      "workflow.yml":
        "name: s\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: echo hi, network: false}\n    guard: command\n    guard_config: {run: 'true', network: true}\n",
    });
    const { stdout } = await execFileAsync(process.execPath, [CLI, "explain", "a"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
    expect(stdout).toContain("network    generator has no network, guard has the network");
  });
});

describe("the plan", () => {
  it("names the pairs to run whose guards have the network, and says nothing where none has", async () => {
    const pairs = (network: string) =>
      `name: s\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: echo a}\n    guard: command\n    guard_config: {run: 'true'${network}}\n  b:\n    generator: command\n    generator_config: {run: echo b}\n`;
    const open = tempRepo({ "workflow.yml": pairs(", network: true") });
    const plan = (dir: string) => execFileAsync(process.execPath, [CLI, "plan"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } });
    expect((await plan(open)).stdout).toContain("Guards with the network (network: true): a\n");
    expect((await plan(tempRepo({ "workflow.yml": pairs("") }))).stdout).not.toContain("network");
  });
});
