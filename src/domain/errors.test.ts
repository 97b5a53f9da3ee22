import { describe, expect, it } from 'vitest';
import {
  checkEvery,
  errorResponseOf,
  PaylinkError,
  problemsText,
  statusOfCode,
  ValidationError,
} from './errors.ts';

describe('PaylinkError', () => {
  it('carries its code, HTTP status, field and name', () => {
    const error = new PaylinkError('NOT_FOUND', 'no such payment');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('PaylinkError');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.status).toBe(404);
    expect(error.field).toBeUndefined();
    expect(error.message).toBe('no such payment');
    expect(new PaylinkError('RATE_UNAVAILABLE', 'x').status).toBe(503);
  });

  it('keeps a cause when given one, and has none otherwise', () => {
    const cause = new Error('socket hang up');
    expect(new PaylinkError('SERVICE_UNAVAILABLE', 'down', { cause }).cause).toBe(cause);
    expect('cause' in new PaylinkError('SERVICE_UNAVAILABLE', 'down')).toBe(false);
  });

  it('names the field of a validation error in its message', () => {
    const error = new ValidationError('amount', 'must be greater than 0');
    expect(error).toBeInstanceOf(PaylinkError);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.status).toBe(400);
    expect(error.field).toBe('amount');
    expect(error.message).toBe('amount: must be greater than 0');
  });

  it('names several fields: the first as field, all in details, each once', () => {
    const error = new ValidationError([
      { field: 'amount', message: 'is required' },
      { field: 'currency', message: 'must be a string' },
      { field: 'amount', message: 'must be a decimal number' },
    ]);
    expect(error.field).toBe('amount');
    expect(error.message).toBe('2 fields are invalid: amount, currency');
    expect(error.details).toEqual([
      { field: 'amount', message: 'is required' },
      { field: 'currency', message: 'must be a string' },
    ]);
  });
});

describe('errorResponseOf', () => {
  it('gives every VALIDATION_ERROR details, a field-less one an empty list, and other codes none', () => {
    expect(errorResponseOf(new ValidationError('amount', 'is required'))).toStrictEqual({
      error: 'amount: is required',
      code: 'VALIDATION_ERROR',
      field: 'amount',
      details: [{ field: 'amount', message: 'is required' }],
    });
    expect(
      errorResponseOf(new PaylinkError('VALIDATION_ERROR', 'q: is odd', { field: 'q' })).details,
    ).toStrictEqual([{ field: 'q', message: 'is odd' }]);
    expect(errorResponseOf(new PaylinkError('VALIDATION_ERROR', 'No webhook URL is set'))).toStrictEqual({
      error: 'No webhook URL is set',
      code: 'VALIDATION_ERROR',
      details: [],
    });
    expect(errorResponseOf(new PaylinkError('NOT_FOUND', 'gone'))).toStrictEqual({
      error: 'gone',
      code: 'NOT_FOUND',
    });
  });
});

describe('checkEvery', () => {
  const bad = (field: string) => () => {
    throw new ValidationError(field, 'is bad');
  };

  it('answers every result when all checks pass', () => {
    expect(checkEvery<[number, string]>([() => 1, () => 'two'])).toEqual([1, 'two']);
  });

  it('runs every check and names every field that failed, in order', () => {
    expect(() => checkEvery([bad('a'), () => 1, bad('b')])).toThrow('2 fields are invalid: a, b');
  });

  it('lets any other error through at once', () => {
    const boom = new Error('database down');
    expect(() =>
      checkEvery([
        () => {
          throw boom;
        },
        bad('a'),
      ]),
    ).toThrow(boom);
  });
});

describe('problemsText', () => {
  it('names each field with its problem, in the reader’s words; a sentence of its own stays as it is', () => {
    const two = new ValidationError([
      { field: 'wallet_address', message: 'is required' },
      { field: 'name', message: 'must be 1 to 200 characters' },
    ]);
    expect(problemsText(two)).toBe('wallet_address: is required; name: must be 1 to 200 characters');
    expect(problemsText(two, (field) => (field === 'name' ? '--name' : field))).toBe(
      'wallet_address: is required; --name: must be 1 to 200 characters',
    );
    expect(problemsText(new ValidationError('grace', 'must be ≥ 0'), () => '--grace')).toBe(
      '--grace: must be ≥ 0',
    );
    const sentence = new PaylinkError('VALIDATION_ERROR', 'The signature does not match', {
      field: 'signature',
    });
    expect(problemsText(sentence)).toBe('The signature does not match');
    expect(problemsText(new PaylinkError('NOT_FOUND', 'Merchant not found'))).toBe('Merchant not found');
  });
});

describe('statusOfCode', () => {
  it('answers each code with its own HTTP status', () => {
    expect(statusOfCode('VALIDATION_ERROR')).toBe(400);
    expect(statusOfCode('UNAUTHORIZED')).toBe(401);
    expect(statusOfCode('NOT_FOUND')).toBe(404);
    expect(statusOfCode('RATE_LIMITED')).toBe(429);
  });
});

describe('a validation error without a problem', () => {
  it('says the request is invalid, with no field, rather than failing to build', () => {
    const error = new ValidationError([]);
    expect(error.message).toBe('The request is invalid');
    expect(error.field).toBeUndefined();
    expect(error.status).toBe(400);
  });
});
