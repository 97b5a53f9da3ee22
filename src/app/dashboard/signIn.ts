import { randomBytes } from 'node:crypto';
import { checkNewPassword, type DashboardUser, MAX_PASSWORD_LENGTH } from '../../domain/dashboardUser.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import type { BucketPolicy } from '../../domain/tokenBucket.ts';
import type { MerchantStore } from '../merchants/ports.ts';
import type { Clock, RateLimitStore } from '../shared/ports.ts';
import type { DashboardSession, PasswordHasher, SecondFactor, UserStore } from './ports.ts';
import { newSecretToken, tokenHash } from './users.ts';

/** A session ends after 30 minutes without a request, and after 12 hours whatever happens. */
export const SESSION_IDLE_MS = 30 * 60_000;
const SESSION_MAX_MS = 12 * 60 * 60_000;

/**
 * Failed sign-in attempts, per account and per client address: a person mistyping gets several tries a minute;
 * a guesser gets one every few minutes per account once the burst is spent (a lockout that ends by itself). A
 * successful sign-in does not count: it clears its account's failures and gives the client's token back.
 */
export const SIGN_IN_LIMITS: { readonly perAccount: BucketPolicy; readonly perClient: BucketPolicy } = {
  perAccount: { ratePerSecond: 1 / 300, burst: 5 },
  perClient: { ratePerSecond: 1 / 60, burst: 20 },
};

const WRONG_CREDENTIALS = 'Wrong e-mail, password or code';

/** `429 RATE_LIMITED`, with how long until the next attempt is taken (for the page and `Retry-After`). */
export class SignInLimitedError extends PaylinkError {
  readonly retryAfterMs: number;
  /** The wait in whole minutes, rounded up: a person told "in 2 min" is never refused again at that time. */
  readonly retryAfterMinutes: number;
  constructor(retryAfterMs: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
    super('RATE_LIMITED', `Too many sign-in attempts; try again in ${minutes} min`);
    this.retryAfterMs = retryAfterMs;
    this.retryAfterMinutes = minutes;
  }
}

export interface SignInDeps {
  readonly users: UserStore;
  readonly merchants: Pick<MerchantStore, 'find'>;
  readonly passwords: PasswordHasher;
  readonly secondFactor: SecondFactor;
  readonly buckets: RateLimitStore;
  readonly clock: Clock;
  /** Checked against a published list of common passwords. */
  readonly isCommonPassword: (password: string) => boolean;
}

/** Hashed once: an unknown e-mail costs the same hashing as a known one, so timing does not tell them apart. */
let decoyHash: Promise<string> | undefined;

/**
 * Signs a person in with e-mail and password: a new session (a fresh token: never one the browser had before),
 * or `401 UNAUTHORIZED` saying nothing of which was wrong, or `429 RATE_LIMITED` (SignInLimitedError).
 */
export async function signIn(
  deps: SignInDeps,
  input: {
    readonly email: string;
    readonly password: string;
    /** The authenticator app's code, for a user with a second factor. */
    readonly code?: string | undefined;
    readonly clientAddress: string;
  },
): Promise<{ readonly token: string; readonly session: DashboardSession; readonly user: DashboardUser }> {
  const email = input.email.trim().toLowerCase();
  const now = deps.clock.now();
  // Every attempt takes its tokens before the password is checked, as if it will fail: guesses sent at the same
  // moment are all counted. A refused attempt leaves both buckets as they were (trying while locked out does not
  // extend the lockout), and a success gives back what it took.
  const accountKey = `signin:account:${email}`;
  const clientKey = `signin:client:${input.clientAddress}`;
  const perAccount = await deps.buckets.take(accountKey, SIGN_IN_LIMITS.perAccount, now);
  if (!perAccount.allowed) throw new SignInLimitedError(perAccount.retryAfterMs);
  const perClient = await deps.buckets.take(clientKey, SIGN_IN_LIMITS.perClient, now);
  if (!perClient.allowed) {
    await deps.buckets.giveBack(accountKey, SIGN_IN_LIMITS.perAccount, now);
    throw new SignInLimitedError(perClient.retryAfterMs);
  }
  const user = email.length <= 254 ? await deps.users.findByEmail(email) : undefined;
  const password = input.password.length <= MAX_PASSWORD_LENGTH * 4 ? input.password : '';
  decoyHash ??= deps.passwords.hash(randomBytes(16).toString('hex'));
  const matches = await deps.passwords.verify(password, user?.passwordHash ?? (await decoyHash));
  if (!user?.passwordHash || !matches || !(await isActive(deps, user)))
    throw new PaylinkError('UNAUTHORIZED', WRONG_CREDENTIALS);
  if (user.totpSecret !== null) {
    // A code is good once: its time step must be later than the last one accepted.
    const step = deps.secondFactor.step(user.totpSecret, (input.code ?? '').trim(), now);
    if (step === undefined || !(await deps.users.useTotpStep(user.id, step)))
      throw new PaylinkError('UNAUTHORIZED', WRONG_CREDENTIALS);
  }
  // Only failures count against an account or an address: five sign-ins in a row lock nobody out.
  await Promise.all([
    deps.buckets.forget(accountKey),
    deps.buckets.giveBack(clientKey, SIGN_IN_LIMITS.perClient, now),
  ]);
  const { token, hash } = newSecretToken();
  const session: DashboardSession = {
    tokenHash: hash,
    userId: user.id,
    csrfToken: randomBytes(32).toString('base64url'),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_MAX_MS),
  };
  await deps.users.insertSession(session);
  return { token, session, user };
}

/** The user and merchant may be disabled since: a session of either is refused at once. */
async function isActive(deps: Pick<SignInDeps, 'merchants'>, user: DashboardUser): Promise<boolean> {
  if (user.status !== 'active') return false;
  if (user.merchantId === null) return true;
  const merchant = await deps.merchants.find(user.merchantId);
  return merchant !== undefined && merchant.status === 'active';
}

/** A signed-in person: the user, and the session their browser holds (with its CSRF token). */
export interface SignedIn {
  readonly user: DashboardUser;
  readonly session: DashboardSession;
}

/**
 * The signed-in user of a request's session cookie, or undefined: unknown token, idle too long, past its end, or
 * user or merchant disabled. A session in use is kept alive (its last request noted).
 */
export async function sessionUser(
  deps: Pick<SignInDeps, 'users' | 'merchants' | 'clock'>,
  token: string | undefined,
): Promise<SignedIn | undefined> {
  if (!token) return undefined;
  const session = await deps.users.findSession(tokenHash(token));
  if (!session) return undefined;
  const now = deps.clock.now();
  if (now >= session.expiresAt || now.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_MS) {
    await deps.users.deleteSession(session.tokenHash);
    return undefined;
  }
  const user = await deps.users.findById(session.userId);
  if (!user || !(await isActive(deps, user))) {
    await deps.users.deleteSession(session.tokenHash);
    return undefined;
  }
  await deps.users.touchSession(session.tokenHash, now);
  return { user, session };
}

export async function signOut(deps: Pick<SignInDeps, 'users'>, token: string | undefined): Promise<void> {
  if (token) await deps.users.deleteSession(tokenHash(token));
}

/**
 * Sets the password of the link's user: the link is used up in the same statement that checks it (and the user's
 * other open links with it), the password checked (length, not common), and every session of the user ends
 * (whoever had the old password is out).
 */
export async function setPassword(
  deps: Pick<SignInDeps, 'users' | 'passwords' | 'clock' | 'isCommonPassword'>,
  token: string,
  password: string,
): Promise<DashboardUser> {
  checkNewPassword(password, deps.isCommonPassword);
  const now = deps.clock.now();
  const userId = await deps.users.usePasswordLink(tokenHash(token.trim()), now);
  if (!userId)
    throw new PaylinkError(
      'NOT_FOUND',
      'This link is not valid: it was used already, replaced by a newer one, or has expired. Ask an operator for a new one.',
    );
  const user = await deps.users.findById(userId);
  if (!user) throw new PaylinkError('NOT_FOUND', 'User not found');
  await deps.users.setPasswordHash(user.id, await deps.passwords.hash(password), now);
  await deps.users.deleteSessionsOf(user.id);
  return { ...user, updatedAt: now };
}

/**
 * Turns the second factor on: the secret the page showed, confirmed by a code from the app that scanned it (so
 * a mistyped or unscanned secret never locks the person out). The code's step is used up at once.
 */
export async function enrollSecondFactor(
  deps: Pick<SignInDeps, 'users' | 'secondFactor' | 'clock'>,
  user: DashboardUser,
  secret: string,
  code: string,
): Promise<void> {
  if (!/^[A-Z2-7]{32}$/.test(secret)) throw new ValidationError('secret', 'is not a secret this page gave');
  const now = deps.clock.now();
  const step = deps.secondFactor.step(secret, code.trim(), now);
  if (step === undefined)
    throw new ValidationError(
      'code',
      'is not the code your app shows now: check the app, and the time on your phone',
    );
  await deps.users.setTotpSecret(user.id, secret, now);
  await deps.users.useTotpStep(user.id, step);
}
