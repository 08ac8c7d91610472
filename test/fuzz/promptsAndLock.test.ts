import { afterAll, beforeAll, describe, it } from "vitest";
import { fuzzFiles, makeWorld, SEED, type World } from "./harness.js";

let world: World;
beforeAll(async () => void (world = await makeWorld()), 60_000);
afterAll(() => world.done());

describe("mutated prompts and lock files", () => {
  it(`validate and plan end with 0 or 2 and a positioned message: prompts files (seed ${SEED})`, () => fuzzFiles(world, "prompts", 70), 300_000);
  it(`validate and plan end with 0 or 2 and a positioned message: lock files (seed ${SEED})`, () => fuzzFiles(world, "lock", 70), 300_000);
});
