/**
 * What a comm receives, before it is checked: the contracts (document/contract.ts,
 * runs/contract.ts, generated from the Python side) say what the other end sends, but nothing
 * received is trusted until each field read has been checked.
 */

/** A received `T`: its fields by their contract names, each of any type or left out. Reading a
 * field the contract does not have fails to compile; using one unchecked does too. */
export type Untrusted<T> = { [K in keyof T]?: unknown };

/** Whether `x` is a JSON object (not null, not an array). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Whether `x` is one of `values` (a contract's list of names). */
export function isOneOf<T>(values: readonly T[], x: unknown): x is T {
  return values.some(value => value === x);
}
