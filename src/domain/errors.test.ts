import { describe, expect, it } from 'vitest';
import { PaylinkError, ValidationError } from './errors.ts';

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
});
