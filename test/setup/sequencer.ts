/**
 * The order test files start in. Vitest starts the files that took longest in its last run on this
 * checkout first, and, with no such record (a fresh clone, as in CI), the largest files first; a
 * short file that mostly waits (a client's own backoff, a rate limit's window) then starts last
 * and runs alone at the end. These files, the longest of a run, start first wherever they are
 * ahead in that order; the rest keep Vitest's.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The longest files of a run on two cores, longest first (vitest --reporter=json, end minus start). */
export const LONGEST_FIRST = [
  "test/action/cache.test.ts",
  "test/package/rateLimits.test.ts",
  "test/action/cacheSave.test.ts",
  "test/action/serverError.test.ts",
  "test/action/fanout.test.ts",
  "test/guards/place.test.ts",
  "test/action/action.test.ts",
  "test/property/planEqualsRun.test.ts",
  "test/persistence.test.ts",
  "test/core/planner.test.ts",
  "test/batch/nightly.test.ts",
  "test/action/pullRequest.test.ts",
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(file));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Stable: files outside the list keep the order Vitest gave them.
    return sorted
      .map((spec, i) => ({ spec, i, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
