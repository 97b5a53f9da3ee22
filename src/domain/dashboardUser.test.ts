import { describe, expect, it } from 'vitest';
import { checkNewPassword, MAX_PASSWORD_LENGTH, parseEmail, parseRole } from './dashboardUser.ts';
import { ValidationError } from './errors.ts';

const never = () => false;

/** The field and message of the validation error `run` throws. */
function refusal(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError & { details: { field: string; message: string }[] }).details[0]!;
  }
  throw new Error('nothing was refused');
}

describe('dashboard sign-in names', () => {
  it('keeps an address trimmed and in lower case', () => {
    expect(parseEmail('  Ann.Lee@Example.COM ')).toBe('ann.lee@example.com');
  });

  it('refuses what is not one address, naming the field', () => {
    for (const bad of [
      '',
      'ann',
      'ann@',
      '@example.com',
      'ann@example',
      'ann lee@example.com',
      'a@b@example.com',
    ]) {
      expect(refusal(() => parseEmail(bad))).toStrictEqual({
        field: 'email',
        message: 'must be an e-mail address',
      });
    }
    // Something before the address, or after it, is not part of it.
    expect(() => parseEmail('x y@example.com')).toThrow(ValidationError);
    expect(() => parseEmail('ann@example.com z')).toThrow(ValidationError);
  });

  it('takes an address of 254 characters and refuses one of 255', () => {
    const at254 = `${'a'.repeat(254 - '@example.com'.length)}@example.com`;
    expect(at254).toHaveLength(254);
    expect(parseEmail(at254)).toBe(at254);
    expect(() => parseEmail(`a${at254}`)).toThrow(ValidationError);
  });
});

describe('dashboard roles', () => {
  it('takes the three roles, whatever their case and spacing', () => {
    expect(parseRole(' Operator ')).toBe('operator');
    expect(parseRole('MERCHANT')).toBe('merchant');
    expect(parseRole('Pos')).toBe('pos');
  });

  it('refuses any other role, listing the three', () => {
    expect(refusal(() => parseRole('admin'))).toStrictEqual({
      field: 'role',
      message: 'must be one of operator, merchant, pos',
    });
    expect(() => parseRole('')).toThrow(ValidationError);
  });
});

describe('new passwords', () => {
  it('takes 12 characters, counted as a person sees them, and refuses 11', () => {
    expect(() => checkNewPassword('correcthorse', never)).not.toThrow();
    expect(refusal(() => checkNewPassword('correcthors', never))).toStrictEqual({
      field: 'password',
      message: 'must be at least 12 characters',
    });
    // Eleven emoji are 22 UTF-16 code units, but eleven characters.
    expect(() => checkNewPassword('🔒'.repeat(11), never)).toThrow('at least 12');
    expect(() => checkNewPassword('🔒'.repeat(12), never)).not.toThrow();
  });

  it(`takes ${MAX_PASSWORD_LENGTH} characters and refuses one more`, () => {
    expect(() => checkNewPassword('x'.repeat(MAX_PASSWORD_LENGTH), never)).not.toThrow();
    expect(refusal(() => checkNewPassword('x'.repeat(MAX_PASSWORD_LENGTH + 1), never))).toStrictEqual({
      field: 'password',
      message: `must be at most ${MAX_PASSWORD_LENGTH} characters`,
    });
  });

  it('refuses a common password, asked in lower case, and keeps whitespace as part of it', () => {
    const asked: string[] = [];
    const common = (password: string) => {
      asked.push(password);
      return password === 'password1234';
    };
    expect(refusal(() => checkNewPassword('PassWord1234', common))).toStrictEqual({
      field: 'password',
      message: 'is one of the most common passwords: choose another',
    });
    expect(asked).toStrictEqual(['password1234']);
    expect(() => checkNewPassword(' password1234', common)).not.toThrow();
  });
});
