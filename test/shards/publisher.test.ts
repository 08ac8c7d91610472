/**
 * A shard publishes what it accepted while it runs, for the shards waiting for it. Whatever the
 * order of acceptances and of publications finishing, everything accepted is published without
 * waiting for the shard's end: a shard that waits for others before it ends would otherwise wait
 * for ever on an acceptance they never see.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Publisher } from "../../src/app/shard.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a shard's publisher", () => {
  it("publishes every acceptance while the shard runs, however they fall between publications", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("accept", "push done", "tick"), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 50 }),
        async (steps, everyMs) => {
          let accepted = 0;
          let written = 0;
          const published: number[] = [];
          const inFlight: (() => void)[] = [];
          const publisher = new Publisher(
            () => (written = accepted),
            {
              pull: () => Promise.resolve(),
              push: () => {
                const snapshot = written;
                return new Promise<void>((resolve) =>
                  inFlight.push(() => {
                    published.push(snapshot);
                    resolve();
                  }),
                );
              },
            },
            everyMs,
          );
          const settle = async () => {
            await vi.advanceTimersByTimeAsync(everyMs + 1);
            for (let i = 0; i < 100 && inFlight.length > 0; i++) {
              inFlight.shift()!();
              await vi.advanceTimersByTimeAsync(everyMs + 1);
            }
          };
          for (const step of steps) {
            if (step === "accept") {
              accepted++;
              publisher.soon();
            } else if (step === "push done") inFlight.shift()?.();
            else await vi.advanceTimersByTimeAsync(Math.ceil(everyMs / 2));
            await Promise.resolve();
          }
          await settle();
          expect(inFlight).toEqual([]);
          if (accepted > 0) expect(published.at(-1)).toBe(accepted);
        },
      ),
      { numRuns: 300 },
    );
  });
});
