/** The json_schema guard: the artifact must be JSON that a JSON Schema (2020-12) accepts. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { ErrorObject, ValidateFunction } from "../config/jsonSchema.js";
import { GuardConfigError, type Guard, type GuardRequest } from "../model/ports.js";
import { optionalString } from "./config.js";
import { parseJson } from "./json.js";

export const jsonSchemaGuard: Guard = async (request) => {
  const validate = await compile(loadSchema(request));
  const parsed = parseJson(request.content);
  if (!parsed.ok) return { accepted: false, feedback: parsed.feedback };
  if (validate(parsed.value)) return { accepted: true, feedback: "" };
  // allErrors can report the same violation twice (e.g. from anyOf branches); say each once.
  const lines = [...new Set((validate.errors ?? []).map(describeError))];
  return { accepted: false, feedback: ["JSON does not match the schema:", ...lines].join("\n") };
};

function loadSchema(request: GuardRequest): unknown {
  const inline = request.config.schema;
  const file = optionalString("json_schema", request.config, "schema_file");
  if (inline !== undefined && file !== undefined) {
    throw new GuardConfigError("the json_schema guard takes guard_config.schema or guard_config.schema_file, not both");
  }
  if (file !== undefined) return readSchemaFile(path.resolve(request.cwd, file), file);
  if (inline === undefined || inline === null) {
    throw new GuardConfigError(
      "the json_schema guard needs a schema: set guard_config.schema to a JSON Schema, or guard_config.schema_file to a JSON or YAML file holding one",
    );
  }
  return inline;
}

function readSchemaFile(absolute: string, shown: string): unknown {
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (err) {
    throw new GuardConfigError(`cannot read guard_config.schema_file ${shown}: ${(err as Error).message}`);
  }
  try {
    return absolute.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new GuardConfigError(`guard_config.schema_file ${shown} is not valid ${absolute.endsWith(".json") ? "JSON" : "YAML"}: ${(err as Error).message}`);
  }
}

/** Ajv is loaded when a json_schema guard first runs: a plan, and most runs, never load it. */
async function compile(schema: unknown): Promise<ValidateFunction> {
  if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
    throw new GuardConfigError("the json_schema guard's schema must be a mapping (a JSON Schema object)");
  }
  const { compileJsonSchema } = await import("../config/jsonSchema.js");
  try {
    return compileJsonSchema(schema as object | boolean);
  } catch (err) {
    throw new GuardConfigError(`the json_schema guard's schema is not a valid JSON Schema (2020-12): ${(err as Error).message}`);
  }
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === "" ? "(root)" : error.instancePath;
  let message = error.message ?? error.keyword;
  // Ajv's message for these leaves out what a fix needs: which property, which values.
  const params = error.params as Record<string, unknown>;
  if (typeof params.additionalProperty === "string") message += ` (${JSON.stringify(params.additionalProperty)})`;
  if (Array.isArray(params.allowedValues)) message += `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${where}: ${message}`;
}
