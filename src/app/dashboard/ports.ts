import type { KeyMode } from '../../domain/credentials.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';

/** A signed-in browser: found by the SHA-256 of its cookie's token, with the token its forms must carry. */
export interface DashboardSession {
  readonly tokenHash: string;
  readonly userId: string;
  /** Every state-changing request must send this back (a hidden form field): a CSRF synchronizer token. */
  readonly csrfToken: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
}

export interface UserStore {
  /** Throws EMAIL_TAKEN when another user has the address. */
  insert(user: DashboardUser): Promise<void>;
  findById(id: string): Promise<DashboardUser | undefined>;
  findByEmail(email: string): Promise<DashboardUser | undefined>;
  /** Oldest first. */
  list(): Promise<DashboardUser[]>;
  setStatus(id: string, status: DashboardUser['status'], at: Date): Promise<void>;
  setPasswordHash(id: string, hash: string, at: Date): Promise<void>;
  /** Null turns the second factor off (a lost phone: an operator's decision). */
  setTotpSecret(id: string, secret: string | null, at: Date): Promise<void>;
  /** Records a TOTP time step as used, only if it is later than the last one (one statement): false if not. */
  useTotpStep(id: string, step: number): Promise<boolean>;
  /** Voids the user's other open links in the same transaction: only the newest link works. */
  insertPasswordLink(link: {
    readonly tokenHash: string;
    readonly userId: string;
    readonly expiresAt: Date;
    readonly createdAt: Date;
  }): Promise<void>;
  /**
   * Marks the link used and returns its user's id, only if it was unused and unexpired (one statement); every
   * other open link of the user is voided in the same transaction.
   */
  usePasswordLink(tokenHash: string, now: Date): Promise<string | undefined>;
  insertSession(session: DashboardSession): Promise<void>;
  findSession(tokenHash: string): Promise<DashboardSession | undefined>;
  touchSession(tokenHash: string, at: Date): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Signs the user out everywhere (disabled, or a new password). */
  deleteSessionsOf(userId: string): Promise<void>;
}

/** Password hashing (scrypt): `hash` for a new password, `verify` in constant time. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

/** The TOTP second factor (RFC 6238). */
export interface SecondFactor {
  /** A new random secret, base32, for an authenticator app. */
  newSecret(): string;
  /** The `otpauth://` URI an app scans (as a QR code) to enroll the secret. */
  enrollmentUri(secret: string, email: string): string;
  /** The time step the code is valid for at `now` (within a step either side), or undefined. */
  step(secret: string, code: string, now: Date): number | undefined;
  /** The code at a moment: what an authenticator app shows (for tests and the sandbox). */
  codeAt(secret: string, at: Date): string;
}

/** What a merchant's home waits on (decision 0026): each kind links to the list of its payments. */
export const WAITING_KINDS = ['payout_delayed', 'refund_awaiting_funds', 'webhook_failing'] as const;
export type WaitingKind = (typeof WAITING_KINDS)[number];

/** What payments paid in a window came to: how many, and the USDC they received, exactly. */
export interface PaidTotal {
  readonly count: number;
  readonly receivedBaseUnits: bigint;
}

/** What was paid on one UTC day. */
export interface DailyPaid extends PaidTotal {
  /** `YYYY-MM-DD`. */
  readonly day: string;
}

/**
 * The reads of a merchant's home page (adapters/db/overviewRepository.ts), each served by an index that leads
 * with the merchant or with a column only a few rows fill, so the page costs the same whatever the history.
 */
export interface MerchantOverviewStore {
  /** Payments of the merchant and mode whose paid_at is in [from, to). */
  paidBetween(merchantId: string, mode: KeyMode, from: Date, to: Date): Promise<PaidTotal>;
  /** The same per UTC day (`YYYY-MM-DD`), oldest first; a day without a paid payment is left out. */
  paidByDay(merchantId: string, mode: KeyMode, from: Date, to: Date): Promise<DailyPaid[]>;
  /** Ids of the merchant's payments that wait on something of `kind`, newest first, at most `limit`. */
  waiting(merchantId: string, mode: KeyMode, kind: WaitingKind, limit: number): Promise<string[]>;
}
