/**
 * The schema validators of the workflow and prompts files, compiled on first use. The built CLI and
 * action do not compile them at all: scripts/build.mjs puts in their place the same validators
 * generated ahead of time (Ajv's standalone code, from these schemas and these options), since
 * compiling them took most of a second of every process that reads a workflow.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import promptsSchema from "../../schemas/prompts.schema.json" with { type: "json" };
import workflowSchema from "../../schemas/workflow.schema.json" with { type: "json" };

/** Ajv's options for both schemas; scripts/build.mjs generates the built validators with the same. */
export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, verbose: true } as const;

let workflowValidate: ValidateFunction | undefined;
let promptsValidate: ValidateFunction | undefined;

export function workflowValidator(): ValidateFunction {
  return (workflowValidate ??= new Ajv2020(AJV_OPTIONS).compile(workflowSchema));
}

export function promptsValidator(): ValidateFunction {
  return (promptsValidate ??= new Ajv2020(AJV_OPTIONS).compile(promptsSchema));
}
