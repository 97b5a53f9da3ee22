/**
 * How a stored column is read back as a value: a closed set's member, a nullable time, a 0/1 flag. Both
 * databases hand these back as text and integers; each row mapping reads them here, so a corrupt or newer
 * value is refused the same way everywhere instead of being passed on as a type it is not.
 */

/** A text column holding one of `values` (a status, a kind, an event type); `what` names it in the error. */
export function oneOf<T extends string>(values: readonly T[], text: string, what: string): T {
  const value = values.find((candidate) => candidate === text);
  if (value === undefined) throw new Error(`${what} has an unknown value: ${text}`);
  return value;
}

/** A nullable timestamp column (ISO text): null stays null. */
export function dateOrNull(text: string | null): Date | null {
  return text === null ? null : new Date(text);
}

/** An integer column used as a boolean (SQLite has no boolean type; migrations store 0 or 1). */
export function flag(value: number | string): boolean {
  return Number(value) === 1;
}
