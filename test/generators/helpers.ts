import { expect } from "vitest";
import { GeneratorError } from "../../src/model/ports.js";

/** The GeneratorError a promise rejects with; fails the test when it resolves or throws something else. */
export async function failure(promise: Promise<unknown>): Promise<GeneratorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GeneratorError);
  return error as GeneratorError;
}
