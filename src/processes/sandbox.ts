/**
 * The sandbox commands run in: bubblewrap (`bwrap`), where it is installed and works.
 *
 * A guard runs code a model wrote, and a pull request brings scripts a stranger wrote; pairflow's
 * own process holds the job's tokens (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, the action's inputs, the
 * provider keys) in its environment, which any process of the same user can read from
 * /proc/<pid>/environ, and the machine holds more: the token `actions/checkout` keeps in
 * `.git/config`, the credentials in the home directory, services on localhost. In the sandbox a
 * command:
 *
 * - runs in a user namespace of its own, the caller's uid and gid mapped, with every capability
 *   dropped and no way to make another: as root too (self-hosted runners, containers), nothing it
 *   runs can undo a mount (`umount /proc`, a remount read-write) or gain a privilege;
 * - has a PID namespace of its own and a /proc that shows only it: no other process, pairflow and
 *   the runner included, can be seen, signalled or read; when it ends, everything it started ends;
 * - sees the file system read-only, the repository included, with a private, empty, writable /tmp
 *   and home directory (of a bounded size), /run (the docker socket, the session bus) hidden, every
 *   `config` of the checkout's git directories (and of nested checkouts and submodules) read as an
 *   empty file, and none of the runner's own directories;
 * - has no network unless its pair says so (`network: true`; command generators keep it by default):
 *   a network namespace of its own, with no localhost services and no abstract sockets.
 *
 * bwrap is taken from the system's own directories (or the absolute path PAIRFLOW_BWRAP names),
 * never from PATH, which a repository can change (`node_modules/.bin` under `npm run`). Where bwrap
 * is missing, or cannot make its namespaces (Ubuntu 24.04 forbids unprivileged user namespaces
 * unless bwrap's AppArmor profile allows them), commands run as before, and the run says so.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Sandbox, SandboxCommand } from "../model/ports.js";
import { isInside } from "../config/paths.js";
import { isUtf8Name, nameBytes, nameText } from "../model/fileName.js";

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
  /** The home directory: an empty one of the sandbox's own instead (absent: none is hidden). */
  home?: string;
  /** Directories under the home directory shown again, read-only: the tools on PATH that live there. */
  show?: readonly string[];
  /** Files read as empty: the git configuration of every checkout in the repository (gitConfigFiles). */
  empty?: readonly string[];
  /** An empty, read-only file shown in their place. */
  emptyFile?: string;
  /** The programs that make a guard's writable layer, where it can be made here (probeLayer). */
  layer?: LayerTools;
}

/**
 * What makes the writable layer over the repository: util-linux's setpriv, and its unshare where
 * pairflow is not root. As root the layer's setup holds CAP_SYS_ADMIN (and the overlay's
 * CAP_DAC_OVERRIDE and CAP_FOWNER, and CAP_SETPCAP to empty the bounding set) in the sandbox's
 * namespace until setpriv drops them (a nested namespace may not map root without CAP_SETFCAP); otherwise it
 * makes a nested user namespace of its own, where it holds the capability until then.
 */
export interface LayerTools {
  unshare?: string;
  setpriv: string;
}

/** Where the layer's setup finds the repository as it is, and the empty file, inside the sandbox. */
const LAYER_DIR = "/run/pairflow-layer";

/**
 * Makes the writable layer, then runs the command (its arguments after these): in a user and mount
 * namespace of its own, an overlay whose upper layer is in the sandbox's /tmp goes over the
 * repository, the git configurations are emptied again on top of it, the candidate is written at
 * its output path, the repository as it is is hidden, and the command runs with every capability
 * dropped for good (setpriv). A step that fails exits 123 before the command runs.
 */
const LAYER_SETUP = [
  "root=$1 candidate=$2 at=$3 setpriv=$4 options=$5 n=$6; shift 6",
  "mkdir -p /tmp/.pairflow-layer/upper /tmp/.pairflow-layer/work || exit 123",
  `mount -t overlay pairflow -o "$options"lowerdir=${LAYER_DIR}/lower,upperdir=/tmp/.pairflow-layer/upper,workdir=/tmp/.pairflow-layer/work "$root" || exit 123`,
  `while [ "$n" -gt 0 ]; do mount --bind ${LAYER_DIR}/empty "$1" || exit 123; shift; n=$((n - 1)); done`,
  'if [ -n "$at" ]; then mkdir -p "${at%/*}" && cat "$candidate" > "$at" || exit 123; fi',
  `mount -t tmpfs -o size=4k,mode=0755 pairflow ${LAYER_DIR} || exit 123`,
  'cd "$PWD" || exit 123',
  'exec "$setpriv" --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs -- "$@"',
].join("\n");

/** The exit status of the layer's setup when it failed: the command never ran. */
export const LAYER_FAILED = 123;

/** The variables that name directories the runner keeps for itself: hidden from commands. */
export function runnerDirectories(env: NodeJS.ProcessEnv, execPath = process.execPath): string[] {
  const dirs: string[] = [];
  if (env.RUNNER_TEMP) {
    dirs.push(env.RUNNER_TEMP);
    // A self-hosted runner's work folder is `_work` in its own directory, beside its credentials
    // (.credentials, .runner): <runner>/_work/_temp.
    const work = path.dirname(env.RUNNER_TEMP);
    if (path.basename(work) === "_work" && path.dirname(work) !== "/") dirs.push(path.dirname(work));
  }
  // The action runs on the runner's own Node (<runner>/externals/nodeNN/bin/node): the runner's
  // directory holds its configuration and credentials.
  const externals = /^(.*)\/externals\/node\d+\/bin\/node$/.exec(execPath);
  if (externals?.[1]) dirs.push(externals[1]);
  return [...new Set(dirs)];
}

/**
 * Names under a home directory that hold credentials by every usual convention: never shown again,
 * even where a tool on PATH lives under one of them.
 */
const CREDENTIAL_HOMES = new Set([
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".docker",
  ".kube",
  ".config",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".gitconfig",
  ".git-credentials",
  ".gcloud",
  ".terraform.d",
]);

/**
 * The directories under `home` that hold the tools on PATH (~/.local/bin, ~/.cargo/bin, a version
 * manager's ~/.nvm or ~/.pyenv): the first directory below home of each, shown again read-only so
 * that the tools still run, never one named like a credential store.
 */
export function toolHomes(home: string, pathVar: string): string[] {
  const dirs = new Set<string>();
  for (const entry of pathVar.split(":")) {
    if (!path.isAbsolute(entry)) continue;
    const rel = path.relative(home, entry);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) continue;
    const first = rel.split(path.sep)[0]!;
    if (CREDENTIAL_HOMES.has(first)) continue;
    const dir = path.join(home, first);
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) dirs.add(dir);
  }
  return [...dirs];
}

/** Directories a search for checkouts never enters: too big to walk, and no checkout lives there. */
const NOT_WALKED = new Set(["node_modules", ".pairflow"]);

/**
 * The git configuration files of every checkout in `root`: `.git/config` (where actions/checkout
 * keeps the job's token as an extraheader), `config.worktree`, and those of submodules under
 * `.git/modules`; nested checkouts too. A link is never followed.
 */
export function gitConfigFiles(root: string): string[] {
  const found: string[] = [];
  const configs = (gitDir: string) => {
    for (const name of ["config", "config.worktree"]) {
      const file = path.join(gitDir, name);
      if (lstat(file)?.isFile()) found.push(file);
    }
    const modules = path.join(gitDir, "modules");
    if (lstat(modules)?.isDirectory()) walkModules(modules);
  };
  const walkModules = (dir: string) => {
    for (const entry of readdirSafe(dir)) {
      if (!entry.directory) continue;
      const sub = path.join(dir, entry.name);
      if (lstat(path.join(sub, "HEAD"))?.isFile()) configs(sub);
      else walkModules(sub);
    }
  };
  // A `.git` file (a worktree, a submodule) names the git directory elsewhere, and its common one.
  const linked = (file: string) => {
    let gitDir: string;
    try {
      const named = /^gitdir: (.+)$/m.exec(nameText(readFileSync(fsName(file))))?.[1]?.trim();
      if (named === undefined) return;
      gitDir = path.resolve(path.dirname(file), named);
    } catch {
      return;
    }
    configs(gitDir);
    try {
      const common = nameText(readFileSync(fsName(path.join(gitDir, "commondir")))).trim();
      if (common !== "") configs(path.resolve(gitDir, common));
    } catch {
      // no common directory
    }
  };
  const walk = (dir: string) => {
    for (const entry of readdirSafe(dir)) {
      const sub = path.join(dir, entry.name);
      if (entry.name === ".git" && entry.file) linked(sub);
      if (!entry.directory || NOT_WALKED.has(entry.name)) continue;
      if (entry.name === ".git") configs(sub);
      else walk(sub);
    }
  };
  walk(root);
  // The checkout the repository is in, where it is not itself one.
  for (let dir = path.dirname(root); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const git = lstat(path.join(dir, ".git"));
    if (git?.isDirectory()) configs(path.join(dir, ".git"));
    else if (git?.isFile()) linked(path.join(dir, ".git"));
    if (git) break;
  }
  return [...new Set(found)];
}

/**
 * A directory's entries by their names' text (src/model/fileName.ts): a name that is not UTF-8 (a
 * submodule's, say, which git allows) is read as its bytes, never as another name.
 */
function readdirSafe(dir: string): { name: string; directory: boolean; file: boolean }[] {
  try {
    return readdirSync(fsName(dir), { withFileTypes: true, encoding: "buffer" }).map((entry) => ({
      name: nameText(entry.name),
      directory: entry.isDirectory(),
      file: entry.isFile(),
    }));
  } catch {
    return [];
  }
}

function lstat(file: string) {
  return lstatSync(fsName(file), { throwIfNoEntry: false });
}

/** A path as the file system calls take it: its text, or its bytes where it names bytes that are not UTF-8. */
function fsName(file: string): string | Buffer {
  return isUtf8Name(file) ? file : nameBytes(file);
}

/** bwrap's arguments, up to the command: everything a confined command sees. */
export function bwrapArguments(layout: SandboxLayout, command: SandboxCommand): string[] {
  const layered = command.layer !== undefined && layout.layer !== undefined && layout.emptyFile !== undefined;
  // The layer's setup makes one more user namespace, or (as root) mounts in the sandbox's own, which
  // bwrap's --disable-userns moves the command out of; otherwise none may be made inside.
  const args = [
    "--die-with-parent",
    "--unshare-user",
    ...(layered ? [] : ["--disable-userns"]),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
  ];
  if (!command.network) args.push("--unshare-net");
  // As root bwrap would keep every capability in the sandbox's namespace: none is kept, but for a
  // layer made as root the one its setup needs, which it drops before the command runs.
  const setup = ["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_SETPCAP"].flatMap((cap) => ["--cap-add", cap]);
  args.push("--cap-drop", "ALL", ...(layered && layout.layer!.unshare === undefined ? setup : []));
  const sized = command.tmpBytes === undefined ? [] : ["--size", String(command.tmpBytes)];
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...sized, "--tmpfs", "/tmp");
  // /run holds sockets to the machine's services (docker's is root on the runner); what DNS needs
  // (systemd-resolved's stub, where /etc/resolv.conf points on Ubuntu) is shown again.
  args.push("--tmpfs", "/run", "--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  for (const dir of layout.hide) if (dir !== "/" && !isInside(layout.root, dir)) args.push("--tmpfs", dir);
  if (layout.home !== undefined && layout.home !== "/" && !isInside(layout.root, layout.home)) {
    args.push(...sized, "--tmpfs", layout.home);
    for (const dir of layout.show ?? []) args.push("--ro-bind", dir, dir);
  }
  // Shown again on top of what hid them: the repository, and the files pairflow hands the command.
  // (The root directory is shown already; binding it again would cover the sandbox's own /proc.)
  for (const dir of [layout.root, ...command.readable]) if (dir !== "/") args.push("--ro-bind", dir, dir);
  if (layout.emptyFile !== undefined) for (const file of layout.empty ?? []) args.push("--ro-bind", layout.emptyFile, file);
  if (layered) args.push("--ro-bind", layout.root, `${LAYER_DIR}/lower`, "--ro-bind", layout.emptyFile!, `${LAYER_DIR}/empty`);
  args.push("--chdir", command.cwd);
  return args;
}

/** The sandbox's program and arguments up to the command: bwrap's, and for a layered command the layer's setup after them. */
export function confinedArgv(bwrap: string, layout: SandboxLayout, command: SandboxCommand): string[] {
  const argv = [bwrap, ...bwrapArguments(layout, command)];
  const tools = layout.layer;
  if (command.layer === undefined || tools === undefined || layout.emptyFile === undefined) return argv;
  const inside = (layout.empty ?? []).filter((file) => isInside(layout.root, file));
  const place = command.layer.place;
  const nest = tools.unshare === undefined ? [] : [tools.unshare, "-Urm", "--"];
  // In a nested namespace of a user other than root, overlay keeps its attributes as user xattrs.
  const options = tools.unshare === undefined ? "" : "userxattr,";
  return [
    ...argv,
    ...nest,
    "/bin/sh",
    "-c",
    LAYER_SETUP,
    "pairflow-layer",
    layout.root,
    place?.candidate ?? "",
    place?.at ?? "",
    tools.setpriv,
    options,
    String(inside.length),
    ...inside,
  ];
}

/** The sandbox for this layout, with bwrap at `bwrap`. */
export function bubblewrap(bwrap: string, layout: SandboxLayout): Sandbox {
  return {
    name: "bubblewrap",
    layered: layout.layer !== undefined,
    confine: (command) => spawnable(confinedArgv(bwrap, layout, command)),
  };
}

/**
 * A program and arguments as spawn can start them. spawn writes each argument as UTF-8, which
 * turns a byte that is not (a lone surrogate, see src/model/fileName.ts) into another one: a git
 * configuration under a submodule named so would be emptied under the wrong name, and shown. Where
 * an argument names such bytes, a shell makes it from octal escapes and becomes the program, the
 * arguments that follow the prefix passed on.
 */
export function spawnable(argv: readonly string[]): string[] {
  if (argv.every(isUtf8Name)) return [...argv];
  const made: string[] = [];
  const words = argv.map((arg, i) => {
    if (isUtf8Name(arg)) return `'${arg.replaceAll("'", `'\\''`)}'`;
    const octal = [...nameBytes(arg)].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
    // A command substitution drops the newlines that end its output: a last character kept, then cut.
    made.push(`a${i}=$(printf '${octal}.') && a${i}=\${a${i}%.}`);
    return `"$a${i}"`;
  });
  return ["/bin/sh", "-c", `${made.join(" && ")} && exec ${words.join(" ")} "$@"`, "pairflow-sandbox"];
}

const layers = new Map<string, LayerTools | string>();

/**
 * Whether a guard's writable layer can be made here (an overlay in a user namespace: Linux 5.11 or
 * later, util-linux's unshare and setpriv): the tools when it can, else why not. Tried once per
 * process and bwrap: a repository with a git configuration and a candidate to place, and the layer
 * must show the candidate, take a write, hide the configuration, hold no capability, and leave the
 * repository as it was.
 */
export function probeLayer(bwrap: string, emptyFile: string): LayerTools | string {
  const known = layers.get(bwrap);
  if (known !== undefined) return known;
  const probe = probeLayerNow(bwrap, emptyFile);
  layers.set(bwrap, probe);
  return probe;
}

function probeLayerNow(bwrap: string, emptyFile: string): LayerTools | string {
  const root = process.getuid?.() === 0;
  const unshare = root ? undefined : systemProgram("unshare");
  const setpriv = systemProgram("setpriv");
  if ((!root && unshare === undefined) || setpriv === undefined) return "util-linux's unshare and setpriv are not installed";
  const dir = mkdtempSync(path.join(tmpdir(), "pairflow-layer-"));
  try {
    const repo = path.join(dir, "repo");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    writeFileSync(path.join(repo, ".git", "config"), "probe-secret\n");
    writeFileSync(path.join(dir, "candidate"), "probe-candidate\n");
    const tools = { ...(unshare ? { unshare } : {}), setpriv };
    const layout: SandboxLayout = { root: repo, hide: [], empty: [path.join(repo, ".git", "config")], emptyFile, layer: tools };
    const command: SandboxCommand = {
      cwd: repo,
      readable: [dir],
      network: false,
      layer: { place: { candidate: path.join(dir, "candidate"), at: path.join(repo, "out", "placed.txt") } },
    };
    const script = "cat .git/config out/placed.txt; echo x > written && cat written; grep '^CapEff' /proc/self/status";
    const argv = [...confinedArgv(bwrap, layout, command), "/bin/sh", "-c", script];
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 10_000, env: { PATH: "/usr/bin:/bin" } });
    const said = (r.stderr || "").trim().split("\n")[0] ?? "";
    if (r.error || r.status !== 0) return `the writable layer cannot be made here${said ? ` (${said})` : r.error ? ` (${r.error.message})` : ""}`;
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(r.stdout)?.[1];
    const held = r.stdout.includes("probe-secret") || caps === undefined || /[1-9a-f]/.test(caps);
    if (held || !r.stdout.includes("probe-candidate") || existsSync(path.join(repo, "written")) || existsSync(path.join(repo, "out"))) {
      return "the writable layer does not hold here";
    }
    return tools;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const probes = new Map<string, SandboxProbe>();

/** Where bwrap and the other system programs pairflow starts are looked for: the system's own directories, never PATH. */
export const SYSTEM_DIRECTORIES = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/** An absolute path to bwrap that whoever starts pairflow gives; otherwise the system's own directories are searched. */
export const BWRAP_VARIABLE = "PAIRFLOW_BWRAP";

/**
 * Whether bwrap confines a command as pairflow needs: it runs, and inside it no other process is
 * visible, no capability is held, and /proc cannot be unmounted. Asked once per process and bwrap.
 */
export function probeSandbox(env: NodeJS.ProcessEnv): SandboxProbe {
  const asked = env[BWRAP_VARIABLE];
  const key = asked ?? "";
  const known = probes.get(key);
  if (known) return known;
  const probe = probeNow(asked);
  probes.set(key, probe);
  return probe;
}

/** The program `name` from the system's own directories, or the absolute path given instead. */
export function systemProgram(name: string, given?: string): string | undefined {
  if (given !== undefined && given !== "") return path.isAbsolute(given) && isExecutable(given) ? given : undefined;
  return findExecutable(name, SYSTEM_DIRECTORIES.join(":"));
}

/** What the probe's command prints inside the sandbox: its pids, its capabilities, and whether /proc came off. */
const PROBE = "ls /proc; grep '^CapEff:' /proc/self/status; umount -l /proc 2>/dev/null && echo UNMOUNTED; exit 0";

function probeNow(asked: string | undefined): SandboxProbe {
  const bwrap = systemProgram("bwrap", asked);
  if (bwrap === undefined) {
    return { available: false, reason: asked ? `${BWRAP_VARIABLE} (${asked}) is not an absolute path to a program` : "bubblewrap (bwrap) is not installed" };
  }
  const args = bwrapArguments({ root: "/", hide: [] }, { cwd: "/", readable: [], network: false });
  const r = spawnSync(bwrap, [...args, "/bin/sh", "-c", PROBE], { encoding: "utf8", timeout: 10_000, env: {} });
  if (r.error) return { available: false, reason: `bwrap could not be started: ${r.error.message}` };
  if (r.status !== 0) {
    const said = (r.stderr || r.stdout).trim().split("\n")[0] ?? "";
    return { available: false, reason: `bwrap does not work here${said ? ` (${said})` : ""}` };
  }
  // Inside, /proc shows the sandbox's own processes only: bwrap's reaper, the shell, and ls.
  const pids = r.stdout.split(/\s+/).filter((name) => /^\d+$/.test(name));
  if (pids.length === 0 || pids.length > 4) return { available: false, reason: "bwrap does not hide other processes here" };
  const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(r.stdout)?.[1];
  if (caps === undefined || /[1-9a-f]/.test(caps)) return { available: false, reason: "a command in bwrap keeps capabilities here" };
  if (r.stdout.includes("UNMOUNTED")) return { available: false, reason: "a command in bwrap can unmount its /proc here" };
  return { available: true, bwrap };
}

export function findExecutable(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(":")) {
    if (dir === "") continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return existsSync(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}
