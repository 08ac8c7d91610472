/**
 * Reading a guard's guard_config. A missing or mistyped key is a GuardConfigError that names the key
 * and says what to put there, because the person fixing it is editing the workflow file.
 */
import { GuardConfigError } from "../model/ports.js";

type Config = Record<string, unknown>;

export function requiredString(guard: string, config: Config, key: string, example: string): string {
  const value = config[key];
  if (value === undefined || value === null || value === "") {
    throw new GuardConfigError(`the ${guard} guard needs guard_config.${key}: set it to ${example}`);
  }
  if (typeof value !== "string") throw wrongType(guard, key, "a string", value);
  return value;
}

export function optionalString(guard: string, config: Config, key: string): string | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw wrongType(guard, key, "a string", value);
  return value;
}

export function optionalBoolean(guard: string, config: Config, key: string, fallback: boolean): boolean {
  const value = config[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw wrongType(guard, key, "true or false", value);
  return value;
}

export function optionalPositiveNumber(guard: string, config: Config, key: string, fallback: number): number {
  const value = config[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw wrongType(guard, key, "a number greater than 0", value);
  }
  return value;
}

/** A whole number of at least 0; `fallback` when the key is absent. */
export function optionalCount(guard: string, config: Config, key: string, fallback: number): number {
  const value = config[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw wrongType(guard, key, "a whole number of at least 0", value);
  return value;
}

/** A mapping of names to strings (such as environment variables); {} when the key is absent. */
export function optionalStringMap(guard: string, config: Config, key: string): Record<string, string> {
  const value = config[key];
  if (value === undefined || value === null) return {};
  if (typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string")) {
    return value as Record<string, string>;
  }
  throw wrongType(guard, key, "a mapping of names to strings", value);
}

/** A string or a list of strings, as a list; undefined when the key is absent. */
export function optionalStringList(guard: string, config: Config, key: string): string[] | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value as string[];
  throw wrongType(guard, key, "a string or a list of strings", value);
}

export function wrongType(guard: string, key: string, expected: string, found: unknown): GuardConfigError {
  return new GuardConfigError(`guard_config.${key} of the ${guard} guard must be ${expected}; found ${describe(found)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}
