/**
 * The sandbox commands run in: bubblewrap (`bwrap`), where it is installed and works.
 *
 * A guard runs code a model wrote, and a pull request brings scripts a stranger wrote; pairflow's
 * own process holds the job's tokens (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, the action's inputs, the
 * provider keys) in its environment, which any process of the same user can read from
 * /proc/<pid>/environ. Taking them out of the command's environment does not stop that. In the
 * sandbox a command:
 *
 * - has a PID namespace of its own and a /proc that shows only it: no other process, pairflow and
 *   the runner included, can be seen, signalled or read;
 * - sees the file system read-only, the repository included, with a private, empty, writable /tmp,
 *   and /run (the docker socket, the session bus) hidden; so it can change nothing outside the
 *   command's own /tmp, and what it leaves there goes with it;
 * - sees none of the runner's per-step files (RUNNER_TEMP: the file commands GITHUB_ENV,
 *   GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY and GITHUB_STATE live there);
 * - keeps the network (a generator calls a model), and is killed with whatever started it.
 *
 * bwrap sets no_new_privs, so nothing inside gains privileges (sudo does not work). Where bwrap is
 * missing, or cannot make its namespaces (Ubuntu 24.04 forbids unprivileged user namespaces unless
 * `kernel.apparmor_restrict_unprivileged_userns=0`), commands run as before, and the run says so.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import type { Sandbox } from "../model/ports.js";

export const SANDBOX_MODES = ["auto", "required", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Whether commands can run confined here, and if not, why. */
export type SandboxProbe = { available: true; bwrap: string } | { available: false; reason: string };

/** What the sandbox hides beside /tmp and /run, and what it must still show. */
export interface SandboxLayout {
  /** The repository: shown (read-only) even where it lies under a directory the sandbox hides. */
  root: string;
  /** Directories hidden behind an empty one: the runner's per-step files, the runner's own directory. */
  hide: readonly string[];
}

/** The variables that name directories the runner keeps for itself: hidden from commands. */
export function runnerDirectories(env: NodeJS.ProcessEnv, execPath = process.execPath): string[] {
  const dirs: string[] = [];
  if (env.RUNNER_TEMP) dirs.push(env.RUNNER_TEMP);
  // The action runs on the runner's own Node (<runner>/externals/nodeNN/bin/node): the runner's
  // directory holds its configuration and credentials.
  const externals = /^(.*)\/externals\/node\d+\/bin\/node$/.exec(execPath);
  if (externals?.[1]) dirs.push(externals[1]);
  return dirs;
}

/** bwrap's arguments, up to the command: everything a confined command sees. */
export function bwrapArguments(layout: SandboxLayout, command: { cwd: string; readable: readonly string[]; writable?: readonly string[] }): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // /run holds sockets to the machine's services (docker's is root on the runner); what DNS needs
  // (systemd-resolved's stub, where /etc/resolv.conf points on Ubuntu) is shown again.
  args.push("--tmpfs", "/run", "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  for (const dir of layout.hide) if (dir !== "/" && !isInside(layout.root, dir)) args.push("--tmpfs", dir);
  // Shown again on top of what hid them: the repository, and the files pairflow hands the command.
  // (The root directory is shown already; binding it again would cover the sandbox's own /proc.)
  for (const dir of [layout.root, ...command.readable]) if (dir !== "/") args.push("--ro-bind", dir, dir);
  // A directory of pairflow's own the command's tracer writes to (src/processes/trace.ts).
  for (const dir of command.writable ?? []) if (dir !== "/") args.push("--bind", dir, dir);
  args.push("--chdir", command.cwd);
  return args;
}

/** The sandbox for this layout, with bwrap at `bwrap`. */
export function bubblewrap(bwrap: string, layout: SandboxLayout): Sandbox {
  return {
    name: "bubblewrap",
    confine: (command) => [bwrap, ...bwrapArguments(layout, command)],
  };
}

const probes = new Map<string, SandboxProbe>();

/**
 * Whether bwrap is on PATH and confines a command as pairflow needs: it runs, and inside it no
 * other process is visible. Asked once per process and PATH.
 */
export function probeSandbox(env: NodeJS.ProcessEnv): SandboxProbe {
  const pathVar = env.PATH ?? "";
  const known = probes.get(pathVar);
  if (known) return known;
  const probe = probeNow(pathVar);
  probes.set(pathVar, probe);
  return probe;
}

function probeNow(pathVar: string): SandboxProbe {
  const bwrap = findExecutable("bwrap", pathVar);
  if (bwrap === undefined) return { available: false, reason: "bubblewrap (bwrap) is not installed" };
  const args = bwrapArguments({ root: "/", hide: [] }, { cwd: "/", readable: [] });
  // Inside, /proc shows the sandbox's own processes only: bwrap's reaper, the shell, and ls.
  const r = spawnSync(bwrap, [...args, "/bin/sh", "-c", "ls /proc"], { encoding: "utf8", timeout: 10_000, env: {} });
  if (r.error) return { available: false, reason: `bwrap could not be started: ${r.error.message}` };
  if (r.status !== 0) {
    const said = (r.stderr || r.stdout).trim().split("\n")[0] ?? "";
    return { available: false, reason: `bwrap does not work here${said ? ` (${said})` : ""}` };
  }
  const pids = r.stdout.split(/\s+/).filter((name) => /^\d+$/.test(name));
  if (pids.length === 0 || pids.length > 4) return { available: false, reason: "bwrap does not hide other processes here" };
  return { available: true, bwrap };
}

export function findExecutable(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(":")) {
    if (dir === "") continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (existsSync(file)) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function isInside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
