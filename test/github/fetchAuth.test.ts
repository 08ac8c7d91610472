/**
 * The action fetches a pull request's base that a shallow checkout lacks. The checkout keeps no
 * credentials (persist-credentials: false, as init writes it), so the action gives git its token
 * for that one fetch: in git's environment, sent only to the server it names, and never written to
 * the repository's configuration.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRepo, UnknownRefError } from "../../src/github/git.js";
import { until } from "../helpers/wait.js";

/** A server on loopback that refuses every request and writes each one's Authorization header to a file, one line each. */
const SERVER = `
const http = require("node:http"), fs = require("node:fs");
const server = http.createServer((req, res) => {
  fs.appendFileSync(process.argv[1], (req.headers.authorization || "-") + "\\n");
  res.writeHead(401, { "WWW-Authenticate": 'Basic realm="x"' }).end();
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(process.argv[1] + ".port", String(server.address().port)));
`;

let server: ChildProcess;
let seen: string;
let port: string;

beforeAll(async () => {
  seen = path.join(mkdtempSync(path.join(os.tmpdir(), "pairflow-fetch-")), "seen");
  server = spawn(process.execPath, ["-e", SERVER, seen], { stdio: "ignore" });
  await until(() => {
    try {
      port = readFileSync(`${seen}.port`, "utf8");
      return port !== "";
    } catch {
      return false;
    }
  }, "the server listens");
});
afterAll(() => server.kill());

function clone(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pairflow-clone-"));
  const git = (...args: string[]) => expect(spawnSync("git", args, { cwd: dir, encoding: "utf8" }).status).toBe(0);
  git("init", "-q");
  git("remote", "add", "origin", `http://127.0.0.1:${port}/owner/repo.git`);
  return dir;
}

const headers = () => readFileSync(seen, "utf8").split("\n").filter(Boolean);
const base = "0123456789abcdef0123456789abcdef01234567";

describe("fetching a pull request's base", () => {
  it("sends the action's token to its server, and writes it nowhere in the repository", () => {
    const dir = clone();
    const before = existsSync(seen) ? headers().length : 0;
    const fetch = { auth: { server: `http://127.0.0.1:${port}`, token: "ghs_secret" } };
    expect(() => openRepo(dir).resolve(base, { fetch })).toThrow(UnknownRefError);
    const expected = `basic ${Buffer.from("x-access-token:ghs_secret").toString("base64")}`;
    expect(headers().slice(before)).toContain(expected);
    expect(readFileSync(path.join(dir, ".git/config"), "utf8")).not.toContain(Buffer.from("x-access-token:ghs_secret").toString("base64"));
  });

  it("sends no token to another server, nor without one", () => {
    const dir = clone();
    const count = headers().length;
    expect(() => openRepo(dir).resolve(base, { fetch: { auth: { server: "https://github.com", token: "ghs_secret" } } })).toThrow(UnknownRefError);
    expect(() => openRepo(dir).resolve(base, { fetch: true })).toThrow(UnknownRefError);
    const sent = headers().slice(count);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((h) => h === "-")).toBe(true);
  });
});
