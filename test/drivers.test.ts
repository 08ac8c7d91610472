/**
 * The generators and guards a run drives are told to report their process groups, and otherwise
 * get their request as the engine made it: a guard's artifact file is written only for a guard
 * that reads its path.
 */
import { describe, expect, it } from "vitest";
import { drivers } from "../src/app/run.js";
import type { ChildGroup, GuardRequest } from "../src/model/ports.js";

function request(onRead: () => void): GuardRequest {
  return {
    pairId: "g_test",
    content: "artifact",
    get artifactPath() {
      onRead();
      return "/scratch/g_test.1.txt";
    },
    config: {},
    cwd: "/",
    env: {},
    signal: new AbortController().signal,
  };
}

describe("drivers", () => {
  it("leaves a guard's artifact path unread unless the guard reads it, and reports its process groups under the pair", async () => {
    const reported: string[] = [];
    const group: ChildGroup = { pid: 4242, startTime: "99" };
    const { guard } = drivers(
      {
        guards: {
          text: async (req) => {
            req.onProcess?.(group);
            return { accepted: req.content === "artifact", feedback: "" };
          },
          file: async (req) => ({ accepted: req.artifactPath.endsWith(".txt"), feedback: "" }),
        },
      },
      (pair, g) => void reported.push(`${pair} ${g.pid}@${g.startTime}`),
    );
    let reads = 0;
    const req = request(() => reads++);
    expect(await guard("text")(req)).toEqual({ accepted: true, feedback: "" });
    expect(reads).toBe(0);
    expect(reported).toEqual(["g_test 4242@99"]);
    expect(await guard("file")(req)).toEqual({ accepted: true, feedback: "" });
    expect(reads).toBe(1);
  });
});
