import { ValidationError } from './errors.ts';

/** C0 and C1 control characters and DEL: no name, id, e-mail address or URL needs one. */
const CONTROL_RANGES = '\\u0000-\\u001f\\u007f-\\u009f';
const CONTROL_CHARACTER = new RegExp(`[${CONTROL_RANGES}]`);
/** Half of a UTF-16 surrogate pair on its own: not a character, and no database stores it as sent. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/**
 * Any character either rule could object to: a control character, or either half of a surrogate pair. Almost
 * every text holds none, and one scan for them is cheaper than the two rules (the surrogate rule looks behind at
 * every position): it runs on every request's query.
 */
const SUSPECT = new RegExp(`[${CONTROL_RANGES}\\ud800-\\udfff]`);

/**
 * What is wrong with a text field a client or an operator sent, if anything. The same rule for every text
 * field, on both databases: PostgreSQL refuses U+0000 in text (a 500 if it reached the insert) where SQLite
 * stores it, and control characters in names end up in logs, CSV exports and terminals.
 */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (CONTROL_CHARACTER.test(text)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text';
  return undefined;
}

/** The text, or a ValidationError naming the field. */
export function plainText(field: string, text: string): string {
  const problem = textProblem(text);
  if (problem) throw new ValidationError(field, problem);
  return text;
}

/** A text a customer reads (a title, a description): trimmed, at most `max` characters, plain; blank is none. */
export function optionalShownText(field: string, input: string | undefined, max: number): string | null {
  const text = input?.trim() || null;
  if (text === null) return null;
  if (text.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  return plainText(field, text);
}

/** The heading of what is sold: at most 200 characters (a link's title, a payment's). */
export const MAX_TITLE_LENGTH = 200;
/** The words under it: at most 2,000 characters. */
export const MAX_DESCRIPTION_LENGTH = 2000;
