// strace's own lines, as `strace -f -y` writes them, read back as the files a command opened for
// reading or executed.
import { describe, expect, it } from "vitest";
import { parseTrace } from "../../src/processes/trace.js";

describe("strace's lines, read back", () => {
  it("are the files opened for reading and the programs executed, less what was written, failed calls and deleted files", () => {
    const trace = [
      '10    execve("/bin/sh", ["/bin/sh", "-c", "x"], 0x7ffc /* 3 vars */) = 0',
      '11    execve("/usr/local/bin/node", ["node"], 0x1 /* 3 vars */) = -1 ENOENT (No such file or directory)',
      '11    execve("./tool", ["./tool"], 0x1 /* 3 vars */) = 0',
      '11    openat(AT_FDCWD</repo/sub>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>',
      '12    openat(AT_FDCWD</repo>, "we<ird>, \\"q\\".txt", O_RDONLY) = 3</repo/we\\74ird\\76, "q".txt>',
      '12    openat(AT_FDCWD</repo>, "n\\nl\\\\\\303\\251.txt", O_RDONLY) = 3</repo/n\\nl\\\\\\303\\251.txt>',
      '13    openat(AT_FDCWD</repo>, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</repo/out.txt>',
      '13    openat(AT_FDCWD</repo>, "out.txt", O_RDONLY) = 4</repo/out.txt>',
      '14    openat(AT_FDCWD</repo>, "missing", O_RDONLY) = -1 ENOENT (No such file or directory)',
      '15    openat(AT_FDCWD</repo>, "split.csv", O_RDONLY <unfinished ...>',
      '16    openat(AT_FDCWD</repo>, "db", O_RDWR|O_CLOEXEC) = 5</repo/db>',
      "15    <... openat resumed>) = 6</repo/split.csv>",
      '17    open("/repo/old.txt", O_RDONLY) = 3</repo/old.txt>',
      '18    openat(3</repo/dir>, "rel.txt", O_RDONLY) = 4</repo/dir/rel.txt>',
      '19    openat(AT_FDCWD</repo>, "gone", O_RDONLY) = 3</repo/gone (deleted)>',
    ].join("\n");
    expect(parseTrace(trace, "/repo")).toEqual([
      "/etc/ld.so.cache",
      '/repo/we<ird>, "q".txt',
      "/repo/n\nl\\é.txt",
      "/repo/split.csv",
      "/repo/old.txt",
      "/repo/dir/rel.txt",
      "/bin/sh",
      "/repo/sub/tool",
    ]);
  });

  it("read strace's padded lines (an interrupted call resumed, a short call) and leave out directories", () => {
    const trace = [
      '20    openat(AT_FDCWD</repo>, "data.csv", O_RDONLY <unfinished ...>',
      '21    openat(AT_FDCWD</repo>, "src", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3</repo/src>',
      "20    <... openat resumed>)            = 4</repo/data.csv>",
      '22    execve("./run", ["./run"], 0x1 /* 3 vars */)    = 0',
      '23    openat(AT_FDCWD</repo>, "x", O_RDONLY)     = 5</repo/x>',
    ].join("\n");
    expect(parseTrace(trace, "/repo")).toEqual(["/repo/data.csv", "/repo/x", "/repo/run"]);
  });
});
