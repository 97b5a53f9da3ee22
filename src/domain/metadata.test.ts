import { describe, expect, it } from 'vitest';
import { PaylinkError } from './errors.ts';
import { metadataFromText, metadataText, parseMetadata } from './metadata.ts';

const details = (input: unknown) => {
  try {
    parseMetadata(input);
  } catch (error) {
    if (error instanceof PaylinkError) return error.details;
    throw error;
  }
  return [];
};

describe('parseMetadata', () => {
  it('takes none, and a map at every limit', () => {
    expect(parseMetadata(undefined)).toBeNull();
    expect(parseMetadata(null)).toBeNull();
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key_${i}.x-y`, 'v']));
    expect(parseMetadata(twenty)).toEqual(twenty);
    const edge = { ['k'.repeat(40)]: 'é'.repeat(500) };
    expect(parseMetadata(edge)).toEqual(edge);
    expect(parseMetadata({ empty: '' })).toEqual({ empty: '' });
  });

  it('refuses one past each limit, naming the field', () => {
    const twentyOne = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    expect(details(twentyOne)).toEqual([{ field: 'metadata', message: 'must have at most 20 keys' }]);
    expect(details({ ['k'.repeat(41)]: 'v' })[0]?.field).toBe('metadata');
    expect(details({ '': 'v' })[0]?.field).toBe('metadata');
    expect(details({ 'a b': 'v' })[0]?.field).toBe('metadata');
    expect(details({ ref: 'x'.repeat(501) })).toEqual([
      { field: 'metadata.ref', message: 'must be at most 500 characters' },
    ]);
  });

  it('refuses values that are not plain strings, and names every one', () => {
    expect(details({ a: 1, b: 'x\u0000y', c: null, d: 'fine' })).toEqual([
      { field: 'metadata.a', message: 'must be a string' },
      { field: 'metadata.b', message: 'must not contain control characters' },
      { field: 'metadata.c', message: 'must be a string' },
    ]);
    expect(details(['a'])[0]?.field).toBe('metadata');
    expect(details('a')[0]?.field).toBe('metadata');
  });

  it('keeps a key named __proto__ as a key, not a prototype', () => {
    const parsed = parseMetadata(JSON.parse('{"__proto__": "x"}'));
    expect(Object.keys(parsed!)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('round-trips through its stored text', () => {
    const metadata = { a: '1', 'b.c': 'Ünïcode ✓' };
    expect(metadataFromText(metadataText(metadata))).toEqual(metadata);
    expect(metadataText(null)).toBeNull();
    expect(metadataFromText(null)).toBeNull();
  });
});

describe('metadata, the rest of its rules', () => {
  it('names what is wrong with a value that is no object, and with a key', () => {
    expect(details(['a'])).toEqual([{ field: 'metadata', message: 'must be an object of strings' }]);
    expect(details({ 'a b': 'v' })).toEqual([
      { field: 'metadata', message: 'keys must be 1 to 40 characters of A-Z a-z 0-9 _ . -' },
    ]);
  });

  it('is a plain object, each key as JSON.parse would make it (writable, configurable)', () => {
    const parsed = parseMetadata({ a: '1' });
    expect(Object.getOwnPropertyDescriptor(parsed, 'a')).toEqual(
      Object.getOwnPropertyDescriptor(JSON.parse('{"a":"1"}'), 'a'),
    );
  });

  it('refuses stored text that is not an object', () => {
    for (const text of ['[]', 'null', '"a"', '1'])
      expect(() => metadataFromText(text), text).toThrow(new Error('stored metadata is not an object'));
  });
});
