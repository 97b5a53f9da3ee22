import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type DashboardUser, parseEmail, parseRole, type UserRole } from '../../domain/dashboardUser.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { UserStore } from './ports.ts';

/** A set-password link is good for one use within a day. */
const PASSWORD_LINK_TTL_MS = 24 * 60 * 60_000;

export interface UserAdminDeps {
  readonly users: UserStore;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly clock: Clock;
}

/** The one-time link's token, and the hash by which it is stored (the token itself never is). */
export function newSecretToken(): { readonly token: string; readonly hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: tokenHash(token) };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The link a person opens to set a password: the token travels in the fragment, which browsers never send to a
 * server nor put in a Referer, so it reaches no log; the page posts it with the new password.
 */
export function passwordLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/dashboard/set-password#${token}`;
}

async function issuePasswordLink(
  deps: UserAdminDeps,
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const now = deps.clock.now();
  const { token, hash } = newSecretToken();
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_TTL_MS);
  await deps.users.insertPasswordLink({ tokenHash: hash, userId, expiresAt, createdAt: now });
  return { token, expiresAt };
}

/**
 * An operator creates a user: an operator, or a user of one merchant (its own staff, or its counter's: `pos`). Nobody chooses a password for anyone: the
 * result carries a one-time link (24 h) for the person to set theirs.
 */
export async function createUser(
  deps: UserAdminDeps,
  input: { readonly email: string; readonly role: string; readonly merchantId?: string | undefined },
): Promise<{ user: DashboardUser; token: string; expiresAt: Date }> {
  const email = parseEmail(input.email);
  const role: UserRole = parseRole(input.role);
  const merchantId = input.merchantId?.trim() || null;
  if (role !== 'operator' && merchantId === null)
    throw new ValidationError('merchant', `a ${role} user needs the merchant it belongs to`);
  if (role === 'operator' && merchantId !== null)
    throw new ValidationError('merchant', 'an operator belongs to no merchant');
  if (merchantId !== null && !(await deps.merchants.find(merchantId)))
    throw new PaylinkError('NOT_FOUND', 'Merchant not found', { field: 'merchant' });
  const now = deps.clock.now();
  const user: DashboardUser = {
    id: `usr_${randomUUID()}`,
    email,
    role,
    merchantId,
    passwordHash: null,
    totpSecret: null,
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
  await deps.users.insert(user);
  return { user, ...(await issuePasswordLink(deps, user.id)) };
}

async function existing(deps: UserAdminDeps, userId: string): Promise<DashboardUser> {
  const user = await deps.users.findById(userId.trim());
  if (!user) throw new PaylinkError('NOT_FOUND', 'User not found');
  return user;
}

/**
 * A new one-time link, which voids any earlier one still open; the current password keeps working until a new
 * one is set.
 */
export async function resetPassword(
  deps: UserAdminDeps,
  userId: string,
): Promise<{ user: DashboardUser; token: string; expiresAt: Date }> {
  const user = await existing(deps, userId);
  return { user, ...(await issuePasswordLink(deps, user.id)) };
}

/** Disabled at once: every session of the user ends now, and signing in is refused. */
export async function disableUser(deps: UserAdminDeps, userId: string): Promise<DashboardUser> {
  const user = await existing(deps, userId);
  const now = deps.clock.now();
  await deps.users.setStatus(user.id, 'disabled', now);
  await deps.users.deleteSessionsOf(user.id);
  return { ...user, status: 'disabled', updatedAt: now };
}

/** A lost phone: the second factor is turned off, and the user's sessions end; they enroll again at sign-in. */
export async function removeSecondFactor(deps: UserAdminDeps, userId: string): Promise<DashboardUser> {
  const user = await existing(deps, userId);
  const now = deps.clock.now();
  await deps.users.setTotpSecret(user.id, null, now);
  await deps.users.deleteSessionsOf(user.id);
  return { ...user, totpSecret: null, updatedAt: now };
}

export async function enableUser(deps: UserAdminDeps, userId: string): Promise<DashboardUser> {
  const user = await existing(deps, userId);
  const now = deps.clock.now();
  await deps.users.setStatus(user.id, 'active', now);
  return { ...user, status: 'active', updatedAt: now };
}

/** A user as the CLI and the admin API show it: never its password hash. */
export function describeUser(user: DashboardUser) {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    merchant_id: user.merchantId,
    status: user.status,
    password_set: user.passwordHash !== null,
    second_factor: user.totpSecret !== null,
    created_at: user.createdAt.toISOString(),
  };
}
