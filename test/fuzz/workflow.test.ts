import { afterAll, beforeAll, describe, it } from "vitest";
import { fuzzFiles, makeWorld, SEED, type World } from "./harness.js";
import { scaled } from "../helpers/time.js";

let world: World;
beforeAll(async () => void (world = await makeWorld()), scaled(60_000));
afterAll(() => world.done());

describe("mutated workflow files of the example (YAML)", () => {
  it(`validate and plan end with 0 or 2 and a positioned message (seed ${SEED})`, { timeout: scaled(300_000) }, () =>
    fuzzFiles(world, "workflow", 90, "example"),
  );
});
