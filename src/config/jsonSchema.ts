/**
 * Compiling the JSON Schemas of json_schema guards: one compiler and one set of options for the
 * guard that judges artifacts (src/guards/jsonSchema.ts) and for `validate`, which compiles the
 * same schemas before anything runs (./check.ts). `validate` loads this module only for a workflow
 * that has such a schema; it imports Ajv statically, so the bundles resolve Ajv's CommonJS exports
 * as they do everywhere else (destructuring a dynamic import of Ajv itself works from the sources
 * but not once bundled, where that chunk exports only `default`).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

export type { ErrorObject, ValidateFunction };

/**
 * A validator for the schema; throws Ajv's error when it is not a valid JSON Schema (2020-12).
 * A fresh Ajv per schema: schemas with the same $id from different pairs must not collide. strict
 * off: unknown keywords are ignored, as the spec says. Formats stay annotations (the 2020-12
 * default), since no format vocabulary is bundled and an unknown format would otherwise be an error.
 */
export function compileJsonSchema(schema: object | boolean): ValidateFunction {
  return new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
}
