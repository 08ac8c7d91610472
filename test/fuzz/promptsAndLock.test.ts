import { afterAll, beforeAll, describe, it } from "vitest";
import { fuzzFiles, makeWorld, SEED, type World } from "./harness.js";
import { scaled } from "../helpers/time.js";

let world: World;
beforeAll(async () => void (world = await makeWorld()), scaled(60_000));
afterAll(() => world.done());

describe("mutated prompts and lock files", () => {
  it(`validate and plan end with 0 or 2 and a positioned message: prompts files (seed ${SEED})`, { timeout: scaled(300_000) }, () =>
    fuzzFiles(world, "prompts", 70),
  );
  it(`validate and plan end with 0 or 2 and a positioned message: lock files (seed ${SEED})`, { timeout: scaled(300_000) }, () => fuzzFiles(world, "lock", 70));
});
