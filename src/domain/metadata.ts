import { ValidationError } from './errors.ts';
import { textProblem } from './text.ts';

/** A merchant's own references on a payment or a link: string keys to string values. */
export type Metadata = Readonly<Record<string, string>>;

export const MAX_METADATA_KEYS = 20;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
const KEY_PATTERN = /^[A-Za-z0-9_.-]+$/;

/**
 * `metadata` as a client sent it (JSON already parsed): null or absent is none; otherwise an object of at most
 * 20 keys of 1 to 40 characters of [A-Za-z0-9_.-], each to a string of at most 500 characters with no control
 * character (the API's text rule). Bounded so that every webhook, status and export row stays small; values are
 * strings only, so what the merchant sent is what it gets back, byte for byte. Every fault is named at once
 * (`metadata.<key>`).
 */
export function parseMetadata(input: unknown): Metadata | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new ValidationError('metadata', 'must be an object of strings');
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_METADATA_KEYS)
    throw new ValidationError('metadata', `must have at most ${MAX_METADATA_KEYS} keys`);
  const problems: { field: string; message: string }[] = [];
  const metadata: Record<string, string> = {};
  for (const [key, value] of entries) {
    // The key is quoted into the field's name only once it is known to be short and plain.
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH || !KEY_PATTERN.test(key)) {
      problems.push({
        field: 'metadata',
        message: `keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters of A-Z a-z 0-9 _ . -`,
      });
      continue;
    }
    const field = `metadata.${key}`;
    if (typeof value !== 'string') {
      problems.push({ field, message: 'must be a string' });
      continue;
    }
    if (value.length > MAX_METADATA_VALUE_LENGTH) {
      problems.push({ field, message: `must be at most ${MAX_METADATA_VALUE_LENGTH} characters` });
      continue;
    }
    const problem = textProblem(value);
    if (problem) {
      problems.push({ field, message: problem });
      continue;
    }
    // Own property, so a key named __proto__ is a key like any other.
    Object.defineProperty(metadata, key, { value, enumerable: true, writable: true, configurable: true });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return metadata;
}

/** As stored: JSON text, or null for none. */
export function metadataText(metadata: Metadata | null): string | null {
  return metadata === null ? null : JSON.stringify(metadata);
}

/** Stored JSON text back to metadata. */
export function metadataFromText(text: string | null): Metadata | null {
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('stored metadata is not an object');
  return parsed as Metadata;
}
