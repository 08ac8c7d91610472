/**
 * The attacks a hostile guard (code a model wrote, a script a pull request brought) makes on a real
 * runner, through the installed CLI, as root (self-hosted runners, containers) and as an
 * unprivileged user: each must fail. Where bubblewrap does not work here, the confined cases are
 * skipped and test/security/secrets.test.ts covers the machine without it.
 */
import { spawn, execFileSync } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/processes/sandbox.js";
import { sha256Hex } from "../../src/refs/hash.js";
import { tempRepo } from "../helpers/fixtures.js";
import { CLI } from "../helpers/package.js";
import { runAction } from "../action/runner.js";
import { processesWith } from "../helpers/processes.js";
import { scaled } from "../helpers/time.js";

const SANDBOX = probeSandbox(process.env).available;
const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

/** Who starts pairflow: root (where the tests run as root), and an unprivileged user. */
const USERS = ROOT ? (["root", "nobody"] as const) : (["user"] as const);
type User = (typeof USERS)[number];

/** The job's token as the runner holds it, in pairflow's environment and (actions/checkout) in .git/config. */
const TOKEN = "ghs_Attack0Token1Value2For3Tests4";

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the installed CLI as `user` in `cwd`, with a home directory of its own holding the usual credentials. */
function pairflow(user: User, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Result> {
  const ids = user === "nobody" ? { uid: NOBODY, gid: NOBODY } : {};
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    ...ids,
    env: { PATH: process.env.PATH, HOME: homeOf(user), GITHUB_TOKEN: TOKEN, ACTIONS_RUNTIME_TOKEN: TOKEN, NO_COLOR: "1", TMPDIR: tmpFor(user), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

const homes = new Map<User, string>();
const tmps = new Map<User, string>();

/** A home directory with the credentials a runner's or a developer's holds. */
function homeOf(user: User): string {
  let home = homes.get(user);
  if (home) return home;
  home = mkdtempSync(path.join(tmpdir(), `pairflow-home-${user}-`));
  const files: Record<string, string> = {
    ".npmrc": `//registry.npmjs.org/:_authToken=${TOKEN}-npm\n`,
    ".gitconfig": `[credential]\n\thelper = store\n[http]\n\textraheader = AUTHORIZATION: bearer ${TOKEN}-git\n`,
    ".git-credentials": `https://x-access-token:${TOKEN}-store@github.com\n`,
    ".docker/config.json": `{"auths":{"ghcr.io":{"auth":"${Buffer.from(`u:${TOKEN}-docker`).toString("base64")}"}}}\n`,
    ".config/gh/hosts.yml": `github.com:\n  oauth_token: ${TOKEN}-gh\n`,
    ".aws/credentials": `[default]\naws_secret_access_key = ${TOKEN}-aws\n`,
  };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    writeFileSync(path.join(home, name), content, { mode: 0o600 });
  }
  if (user === "nobody") chownTree(home);
  homes.set(user, home);
  return home;
}

/** A temporary directory the user can write. */
function tmpFor(user: User): string {
  let dir = tmps.get(user);
  if (dir) return dir;
  dir = mkdtempSync(path.join(tmpdir(), `pairflow-tmp-${user}-`));
  if (user === "nobody") chownSync(dir, NOBODY, NOBODY);
  tmps.set(user, dir);
  return dir;
}

function chownTree(dir: string | Buffer): void {
  chownSync(dir, NOBODY, NOBODY);
  // Names as bytes: one is not UTF-8.
  for (const entry of readdirSync(dir, { withFileTypes: true, encoding: "buffer" })) {
    const file = Buffer.concat([Buffer.from(dir), Buffer.from("/"), entry.name]);
    if (entry.isDirectory()) chownTree(file);
    else if (!entry.isSymbolicLink()) chownSync(file, NOBODY, NOBODY);
  }
}

/** A repository the user owns, a git checkout as actions/checkout leaves it: the job's token in .git/config. */
function checkout(user: User, files: Record<string, string>): string {
  const dir = tempRepo(files);
  const git = (args: string[], cwd = dir) => execFileSync("git", args, { cwd, stdio: "ignore" });
  git(["init", "-q"]);
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;
  git(["config", "--local", "http.https://github.com/.extraheader", header]);
  // A nested checkout (actions/checkout with a path) and a submodule's git directory.
  mkdirSync(path.join(dir, "vendor/tool"), { recursive: true });
  git(["init", "-q"], path.join(dir, "vendor/tool"));
  git(["config", "--local", "http.https://github.com/.extraheader", header], path.join(dir, "vendor/tool"));
  mkdirSync(path.join(dir, ".git/modules/lib"), { recursive: true });
  writeFileSync(path.join(dir, ".git/modules/lib/HEAD"), "ref: refs/heads/main\n");
  writeFileSync(path.join(dir, ".git/modules/lib/config"), `[http "https://github.com/"]\n\textraheader = ${header}\n`);
  // And one whose name is not UTF-8, which git allows (`git submodule add --name`).
  const odd = Buffer.concat([Buffer.from(path.join(dir, ".git/modules/odd")), Buffer.of(0xff)]);
  mkdirSync(odd);
  writeFileSync(Buffer.concat([odd, Buffer.from("/HEAD")]), "ref: refs/heads/main\n");
  writeFileSync(Buffer.concat([odd, Buffer.from("/config")]), `[http "https://github.com/"]\n\textraheader = ${header}\n`);
  if (user === "nobody") {
    chownTree(dir);
    // The directories above it (the suite's own, private to root) are passed through, not listed.
    for (let up = path.dirname(dir); up !== "/" && up.startsWith(path.dirname(tmpdir())); up = path.dirname(up)) chmodSync(up, statSync(up).mode | 0o111);
  }
  return dir;
}

/** The feedback of each pair's attempts in a run's JSON report. */
function feedback(r: Result): Record<string, string> {
  const report = JSON.parse(r.stdout) as { pairs: { id: string; attempts: { feedback: string }[]; note?: string | null; status: string }[] };
  return Object.fromEntries(report.pairs.map((p) => [p.id, [...p.attempts.map((a) => a.feedback), p.note ?? ""].join("\n")]));
}

function report(r: Result): { status: string; sandbox?: { confined: boolean }; pairs: { id: string; status: string; note?: string | null }[] } {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`no JSON report (exit ${r.status}): ${r.stderr}`);
  }
}

/** A pair whose guard runs `script` (a file of the repository) and always rejects, so that what it printed is its feedback. */
function probing(id: string, script: string, extra = ""): string {
  return `  ${id}:\n    generator: command\n    generator_config: {run: echo candidate}\n    guard: command\n    guard_config: {run: "sh ${script}; exit 1"${extra}}\n`;
}

function hex(text: string): string {
  return Buffer.from(text).toString("hex");
}

/** Everything a run left where a person or a model would read it: its report and output, and the run records. */
function everything(dir: string, r: Result): string {
  const texts = [r.stdout, r.stderr];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "objects") walk(file);
      else if (entry.isFile() && statSync(file).size < 1 << 20) texts.push(readFileSync(file, "latin1"));
    }
  };
  walk(dir);
  return texts.join("\n");
}

let suiteTmp: string;
beforeAll(() => {
  // The installed package, under the suite's private directory, must be reachable by the unprivileged user.
  suiteTmp = tmpdir();
  if (ROOT)
    for (let up = path.dirname(CLI); up !== "/" && up.startsWith(path.dirname(suiteTmp)); up = path.dirname(up)) chmodSync(up, statSync(up).mode | 0o111);
});
afterAll(() => {
  for (const dir of [...homes.values(), ...tmps.values()]) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(SANDBOX).each(USERS)("a hostile guard in the sandbox, pairflow run by %s", (user) => {
  it("cannot undo a mount, hold a capability, leave a hook in the repository or read pairflow's environment", { timeout: scaled(60_000) }, async () => {
    const dir = checkout(user, {
      "escape.sh": [
        "grep '^CapEff' /proc/self/status | cut -f2 | grep -q '[1-9a-f]' && echo CAPABLE",
        "umount -l /proc 2>/dev/null && echo UNMOUNTED",
        'mount -o remount,rw,bind "$PWD" 2>/dev/null && echo REMOUNTED',
        "echo 'exit 0' > .git/hooks/pre-commit 2>/dev/null && echo HOOKED",
        // In a user namespace of its own, every mount pairflow made stays locked.
        "unshare -Urm sh -c 'umount -l .git/config; umount -l /proc; cat .git/config /proc/1/environ' 2>/dev/null | grep -a -q -e extraheader -e GITHUB_TOKEN && echo NESTED",
        "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q '^GITHUB_TOKEN=' && echo ENVIRON",
        'set -- /proc/[0-9]*; echo "processes $#"',
        "",
      ].join("\n"),
      "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n${probing("a", "escape.sh")}`,
    });
    const r = await pairflow(user, ["run", "--json", "--sandbox", "required"], dir);
    expect(report(r).sandbox).toMatchObject({ confined: true });
    const said = feedback(r).a!;
    for (const word of ["CAPABLE", "UNMOUNTED", "REMOUNTED", "ENVIRON", "NESTED"]) expect(said).not.toContain(word);
    // A hook written goes to the guard's layer, never to the repository.
    expect(Number(/processes (\d+)/.exec(said)?.[1])).toBeLessThanOrEqual(4);
    expect(existsSync(path.join(dir, ".git/hooks/pre-commit"))).toBe(false);
  });

  it(
    "reads no git configuration of the checkout, nested checkouts or submodules, and no credential in the home directory",
    { timeout: scaled(60_000) },
    async () => {
      const dir = checkout(user, {
        // Hex-encoded, as a guard would smuggle it past a redactor.
        "steal.sh": [
          "for f in .git/config vendor/tool/.git/config .git/modules/*/config; do od -An -tx1 \"$f\" | tr -d ' \\n'; echo; done",
          "git config --get-all http.https://github.com/.extraheader | od -An -tx1 | tr -d ' \\n'; echo",
          "for f in .npmrc .gitconfig .git-credentials .docker/config.json .config/gh/hosts.yml .aws/credentials; do od -An -tx1 \"$HOME/$f\" 2>/dev/null | tr -d ' \\n'; echo; done",
          'echo "home holds: $(ls -A "$HOME" | tr "\\n" " ")"',
          "git rev-parse --is-inside-work-tree",
          "",
        ].join("\n"),
        "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n${probing("a", "steal.sh")}`,
      });
      const r = await pairflow(user, ["run", "--json"], dir);
      expect(report(r).sandbox).toMatchObject({ confined: true });
      const said = feedback(r).a!;
      // git still works in the checkout (its configuration reads as empty); nothing of the token, in any form.
      expect(said).toContain("true");
      expect(said).toMatch(/home holds: \s*$/m);
      const all = everything(dir, r);
      for (const form of [
        TOKEN,
        hex(TOKEN),
        hex(Buffer.from(`x-access-token:${TOKEN}`).toString("base64")),
        hex("AUTHORIZATION"),
        hex("_authToken"),
        hex("aws_secret"),
      ]) {
        expect(all).not.toContain(form);
      }
      // The files are there outside, as they were.
      expect(readFileSync(path.join(dir, ".git/config"), "utf8")).toContain("extraheader");
    },
  );

  it("has no network: neither localhost's services nor abstract sockets, unless its pair says network: true", { timeout: scaled(60_000) }, async () => {
    const answer = (socket: import("node:net").Socket) => socket.on("error", () => {}).end("hello\n");
    const tcp = createServer(answer);
    const abstract = createServer(answer);
    const name = `pairflow-attack-${process.pid}-${user}`;
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => abstract.listen(`\0${name}`, resolve));
    try {
      const port = (tcp.address() as AddressInfo).port;
      const dir = checkout(user, {
        "reach.mjs": `import { connect } from "node:net";
const reach = (to) => new Promise((resolve) => { const s = connect(to); s.on("connect", () => { s.destroy(); resolve("yes"); }); s.on("error", (e) => resolve(e.code)); });
console.log("tcp " + (await reach({ host: "127.0.0.1", port: ${port} })));
console.log("abstract " + (await reach({ path: "\\0${name}" })));
`,
        "reach.sh": "node reach.mjs\n",
        "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n${probing("closed", "reach.sh")}${probing("open", "reach.sh", ", network: true")}`,
      });
      const r = await pairflow(user, ["run", "--json"], dir);
      const said = feedback(r);
      expect(said.closed).toMatch(/tcp (ENETUNREACH|ECONNREFUSED)/);
      expect(said.closed).toMatch(/abstract (ECONNREFUSED|ENOENT)/);
      expect(said.open).toContain("tcp yes");
      expect(said.open).toContain("abstract yes");
    } finally {
      tcp.close();
      abstract.close();
    }
  });

  it("is confined by the system's bubblewrap, not a bwrap a repository puts on PATH", { timeout: scaled(60_000) }, async () => {
    const planted = path.join(tmpFor(user), `fake-bwrap-ran-${Date.now()}`);
    const dir = checkout(user, {
      // As `npm run` puts it first on PATH: it would run the command unconfined and say nothing.
      "node_modules/.bin/bwrap": `#!/bin/sh\necho ran > ${planted}\nwhile [ "$#" -gt 0 ] && [ "$1" != /bin/sh ]; do shift; done\nexec "$@"\n`,
      "look.sh": 'set -- /proc/[0-9]*; echo "processes $#"\n',
      "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n${probing("a", "look.sh")}`,
    });
    chmodSync(path.join(dir, "node_modules/.bin/bwrap"), 0o755);
    const r = await pairflow(user, ["run", "--json"], dir, { PATH: `${path.join(dir, "node_modules/.bin")}:${process.env.PATH}` });
    expect(report(r).sandbox).toMatchObject({ confined: true });
    expect(existsSync(planted)).toBe(false);
    expect(Number(/processes (\d+)/.exec(feedback(r).a!)?.[1])).toBeLessThanOrEqual(4);
  });

  it("over a limit fails its pair with one line naming the limit, and the other pairs go on", { timeout: scaled(90_000) }, async () => {
    const fail = (id: string, command: string) =>
      `  ${id}:\n    generator: command\n    generator_config: {run: echo x}\n    guard: command\n    guard_config: {run: "${command}"}\n`;
    const dir = checkout(user, {
      "bomb.sh": "i=0; while [ $i -lt 200 ]; do sleep 20 & i=$((i+1)); done; wait\n",
      "eat.mjs": "const kept = []; for (let i = 0; i < 64; i++) kept.push(Buffer.alloc(32 * 1024 * 1024, 1)); console.log('ate', kept.length);\n",
      "workflow.yml": [
        "name: s",
        "rmax: 0",
        "action_pairs:",
        fail("processes", "sh bomb.sh"),
        fail("memory", "node eat.mjs"),
        fail("tmp", "head -c 67108864 /dev/zero > /tmp/fill"),
        fail("fine", "true"),
      ].join("\n"),
    });
    const r = await pairflow(user, ["run", "--json", "--limits", "processes=32,memory=512m,tmp=16m,time=60"], dir);
    const pairs = Object.fromEntries(report(r).pairs.map((p) => [p.id, p]));
    expect(pairs.fine!.status).toBe("executed");
    expect(pairs.processes!.status).toBe("failed");
    expect(pairs.processes!.note).toMatch(/stopped by the process limit \(32 processes at once/);
    expect(pairs.memory!.status).toBe("failed");
    expect(pairs.memory!.note).toMatch(/stopped by the memory limit \(512 MiB/);
    expect(pairs.tmp!.status).toBe("failed");
    expect(pairs.tmp!.note).toMatch(/stopped by the size limit of its \/tmp and home directory \(16 MiB/);
  });

  it(
    "writes its caches into a layer over the repository that goes with it, and finds the candidate at its output path",
    { timeout: scaled(60_000) },
    async () => {
      const dir = checkout(user, {
        "workflow.yml": `name: s\naction_pairs:\n  a:\n    output: out/answer.txt\n    generator: command\n    generator_config: {run: echo candidate}\n    guard: command\n    guard_config: {run: "mkdir -p .cache/tool && echo x > .cache/tool/state && grep -q candidate out/answer.txt && touch written-in-repo"}\n`,
      });
      const r = await pairflow(user, ["run", "--json"], dir);
      expect(report(r).pairs[0]!.status, r.stdout).toBe("executed");
      expect(existsSync(path.join(dir, ".cache"))).toBe(false);
      expect(existsSync(path.join(dir, "written-in-repo"))).toBe(false);
      expect(readFileSync(path.join(dir, "out/answer.txt"), "utf8")).toBe("candidate\n");
    },
  );

  it("under --trace-reads cannot write, block or redirect the trace", { timeout: scaled(60_000) }, async () => {
    const dir = checkout(user, {
      "data.txt": "data\n",
      "forge.sh": [
        "cat data.txt",
        `echo '1 openat(AT_FDCWD</x>, "/etc/forged", O_RDONLY) = 3</etc/forged>' >&3 2>/dev/null && echo FORGED`,
        "ls /proc/self/fd | tr '\\n' ' '",
        "",
      ].join("\n"),
      "workflow.yml": `name: s\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: echo x}\n    guard: command\n    guard_config: {run: sh forge.sh}\n`,
    });
    const r = await pairflow(user, ["run", "--json", "--trace-reads"], dir);
    expect(r.status, r.stderr).toBe(0);
    const lock = readFileSync(path.join(dir, "workflow.lock.json"), "utf8");
    expect(lock).toContain("data.txt");
    expect(lock).not.toContain("forged");
  });
});

describe.runIf(SANDBOX)("a hostile guard in the bundled action on a self-hosted runner", () => {
  it(
    "reads neither the checkout's token, the runner's credentials, the home directory's nor the runner's file commands",
    { timeout: scaled(60_000) },
    async () => {
      // A self-hosted runner's layout: <runner>/.credentials, <runner>/_work/_temp, <runner>/_work/<repo>/<repo>.
      const runner = mkdtempSync(path.join(tmpdir(), "pairflow-runner-home-"));
      writeFileSync(path.join(runner, ".credentials"), `{"scheme":"OAuth","data":{"token":"${TOKEN}-runner"}}\n`);
      mkdirSync(path.join(runner, "_work/_temp"), { recursive: true });
      writeFileSync(path.join(runner, "_work/_temp/set_env"), "");
      const checkedOut = checkout("root", {
        "steal.sh": [
          'for f in .git/config "$RUNNER_HOME/.credentials" "$HOME/.npmrc"; do od -An -tx1 "$f" 2>&1 | tr -d " \\n"; echo; done',
          'echo "runner temp holds: $(ls -A "$RUNNER_HOME/_work/_temp" | tr "\\n" " ")"',
          "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q '^ACTIONS_RUNTIME_TOKEN=' && echo ENVIRON",
          "",
        ].join("\n"),
        "workflow.yml": `name: s\nrmax: 0\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: echo x}\n    guard: command\n    guard_config: {run: "sh steal.sh; exit 1", env: {RUNNER_HOME: "${runner}"}}\n`,
      });
      const workspace = path.join(runner, "_work/repo/repo");
      mkdirSync(path.dirname(workspace), { recursive: true });
      execFileSync("cp", ["-a", checkedOut, workspace]);
      const result = await runAction({
        workspace,
        with: { cache: "false", sandbox: "required" },
        env: { RUNNER_TEMP: path.join(runner, "_work/_temp"), HOME: homeOf("root"), ACTIONS_RUNTIME_TOKEN: TOKEN },
      });
      const all = result.stdout + result.stderr + result.summary + JSON.stringify(result.outputs);
      // The runner's directory is an empty one there: its credentials and the file commands are gone.
      expect(all).toContain("runner temp holds:");
      expect(all).not.toContain("set_env");
      expect(all).toMatch(/\.credentials:\s*No\s*such\s*file/);
      expect(all).not.toContain("ENVIRON");
      for (const form of [TOKEN, hex(TOKEN), hex("extraheader"), hex("OAuth"), hex("_authToken")]) expect(all).not.toContain(form);
      rmSync(runner, { recursive: true, force: true });
    },
  );
});

describe.each(USERS)("what a command started, unconfined, pairflow run by %s", (user) => {
  // Where pairflow may make a cgroup (root here) the command's cgroup holds it; elsewhere a mark in its environment.
  it.each(["cgroups where allowed", "no cgroups"])(
    "does not outlive its run, even as a daemon in a session of its own (%s)",
    { timeout: scaled(60_000) },
    async (how) => {
      const mark = `pairflow-daemon-${process.pid}-${user}-${Date.now()}`;
      const dir = checkout(user, {
        "daemon.sh": `setsid sh -c 'sleep 300; true ${mark}' </dev/null >/dev/null 2>&1 &\necho started\n`,
        "workflow.yml": `name: s\naction_pairs:\n  a:\n    generator: command\n    generator_config: {run: sh daemon.sh}\n`,
      });
      const r = await pairflow(user, ["run", "--sandbox", "off"], dir, how === "no cgroups" ? { PAIRFLOW_CGROUPS: "off" } : {});
      expect(r.status, r.stderr).toBe(0);
      expect(processesWith(mark)).toEqual([]);
    },
  );
});

describe.each(USERS)("the request index, pairflow run by %s", (user) => {
  /** A workflow whose guard accepts only "good", run once: its request index holds the generator's answer. */
  async function answered(): Promise<{ dir: string; entry: string; state: string }> {
    const dir = checkout(user, {
      "workflow.yml": `name: s\naction_pairs:\n  a:\n    output: out.txt\n    generator: command\n    generator_config: {run: echo good}\n    guard: command\n    guard_config: {run: 'grep -q good "$PAIRFLOW_ARTIFACT"'}\n`,
    });
    const first = await pairflow(user, ["run"], dir);
    expect(first.status, first.stderr).toBe(0);
    const state = path.join(dir, ".pairflow");
    const entries = findFiles(path.join(state, "store/requests"));
    expect(entries).toHaveLength(1);
    return { dir, entry: entries[0]!, state };
  }

  /** Replaces the answer an entry holds with `content`, its verdicts left saying accepted; forgets the accepted state. */
  function plant(at: { dir: string; entry: string; state: string }, content: string): void {
    const hash = sha256Hex(content);
    const object = path.join(at.state, "store/objects", hash.slice(0, 2), hash);
    mkdirSync(path.dirname(object), { recursive: true });
    writeFileSync(object, content);
    const file = JSON.parse(readFileSync(at.entry, "utf8")) as { entries: { contentHash: string }[] };
    for (const e of file.entries) e.contentHash = hash;
    writeFileSync(at.entry, JSON.stringify(file));
    rmSync(path.join(at.dir, "workflow.lock.json"));
    rmSync(path.join(at.state, "store/pairs"), { recursive: true });
    rmSync(path.join(at.dir, "out.txt"));
    if (user === "nobody") chownTree(at.dir);
  }

  it("never accepts a planted answer without the guard: the guard judges it, rejects it, and the generator runs", { timeout: scaled(60_000) }, async () => {
    const at = await answered();
    plant(at, "evil\n");
    const r = await pairflow(user, ["run"], at.dir);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(at.dir, "out.txt"), "utf8")).toBe("good\n");
  });

  it("ignores entries committed to git, with one warning", { timeout: scaled(60_000) }, async () => {
    const at = await answered();
    plant(at, "good\n\n<!-- planted -->\n");
    execFileSync("git", ["-c", "safe.directory=*", "add", "-f", path.relative(at.dir, at.entry)], { cwd: at.dir, stdio: "ignore" });
    const r = await pairflow(user, ["run"], at.dir);
    expect(r.status, r.stderr).toBe(0);
    expect((r.stdout + r.stderr).match(/tracked by git/g)).toHaveLength(1);
    expect(readFileSync(path.join(at.dir, "out.txt"), "utf8")).toBe("good\n");
  });
});

function findFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? findFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
