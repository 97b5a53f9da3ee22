import { ValidationError } from './errors.ts';

/**
 * A person who signs in to the dashboard (decision 0014): an operator, who sees and runs everything, a user of
 * one merchant, who sees only that merchant's data, or a merchant's counter staff (`pos`, decision 0054), who
 * takes payments at the point of sale and sees their status, nothing else. Created by an operator; the person
 * sets the password.
 */
export const USER_ROLES = ['operator', 'merchant', 'pos'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface DashboardUser {
  readonly id: string;
  /** Lower case, trimmed. */
  readonly email: string;
  readonly role: UserRole;
  /** The merchant a merchant or PoS user belongs to; null for an operator. */
  readonly merchantId: string | null;
  readonly passwordHash: string | null;
  /** The TOTP secret (base32) once a second factor is enrolled; null without one. */
  readonly totpSecret: string | null;
  readonly status: 'active' | 'disabled';
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const MIN_PASSWORD_LENGTH = 12;
/** Long enough for any passphrase; bounded so that hashing cannot be made to work on megabytes. */
export const MAX_PASSWORD_LENGTH = 256;
const MAX_EMAIL_LENGTH = 254; // RFC 5321's limit on a path

/** An e-mail address as a sign-in name: trimmed, lower case, one @ with something on each side, no spaces. */
export function parseEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw new ValidationError('email', 'must be an e-mail address');
  return email;
}

export function parseRole(input: string): UserRole {
  const role = input.trim().toLowerCase();
  if (!(USER_ROLES as readonly string[]).includes(role))
    throw new ValidationError('role', `must be one of ${USER_ROLES.join(', ')}`);
  return role as UserRole;
}

/**
 * A new password: at least 12 characters (counted as the person sees them), at most 256, and not one of the
 * passwords everybody tries first (`isCommon`, from a published list). Whitespace is kept: it is part of it.
 */
export function checkNewPassword(password: string, isCommon: (password: string) => boolean): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    throw new ValidationError('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (length > MAX_PASSWORD_LENGTH)
    throw new ValidationError('password', `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (isCommon(password.toLowerCase()))
    throw new ValidationError('password', 'is one of the most common passwords: choose another');
}
