import { randomUUID } from 'node:crypto';
import { bpsToPercent, percentToBps } from '../../domain/commission.ts';
import {
  apiKeyPrefix,
  hashApiKey,
  type KeyMode,
  newApiKey,
  newMerchantId,
  newWebhookSecret,
} from '../../domain/credentials.ts';
import { checkEvery, PaylinkError, ValidationError } from '../../domain/errors.ts';
import {
  MAX_UNDERPAYMENT_TOLERANCE_BPS,
  type Merchant,
  parseMerchantName,
  parseWalletAddress,
} from '../../domain/merchant.ts';
import { parseWebhookUrl } from '../../domain/webhookUrl.ts';
import { assertWalletCanReceive, type TokenControls } from '../chain/tokenControls.ts';
import type { DepositPlanner } from '../payments/ports.ts';
import type { RefundStore } from '../refunds/ports.ts';
import type { Clock } from '../shared/ports.ts';
import { checkWebhookHost, type WebhookUrlRules } from '../webhooks/checkWebhookHost.ts';
import type { ApiKeyRecord, MerchantStore } from './ports.ts';

/**
 * Merchant administration, shared by the `paylink merchant …` CLI and the admin HTTP API: both call these
 * functions, so they accept and refuse exactly the same input.
 */
export interface MerchantAdminDeps extends WebhookUrlRules {
  readonly merchants: MerchantStore;
  readonly clock: Clock;
  /** The live token's controls: a wallet it blacklists is refused. Absent: not checked. */
  readonly tokenControls?: TokenControls | undefined;
  /**
   * A new merchant's underpayment tolerance when none is given (PAYLINK_DEFAULT_TOLERANCE): what an exchange's
   * withdrawal fee may take off a payment that still counts as paid. Default 0.
   */
  readonly defaultToleranceBps?: number | undefined;
  /**
   * The chains the merchant is paid on (live, and test when configured), each with the contracts deposits go
   * through: a payout wallet may be none of them. Absent: not checked.
   */
  readonly deposits?:
    | {
        readonly live: Pick<DepositPlanner, 'chainId' | 'contracts'>;
        readonly test?: Pick<DepositPlanner, 'chainId' | 'contracts'> | undefined;
      }
    | undefined;
  /** Tells the deposit addresses (forwarders) of this deployment's payments and refunds. Absent: not checked. */
  readonly depositAddresses?: Pick<RefundStore, 'isDepositAddress'> | undefined;
}

/** Fields as an administrator writes them: commission and tolerance as percent strings ("2.5"). */
export interface MerchantFields {
  readonly name?: string | undefined;
  readonly wallet?: string | null | undefined;
  readonly webhookUrl?: string | null | undefined;
  readonly commissionPercent?: string | undefined;
  readonly underpaymentTolerancePercent?: string | undefined;
  /** Receipts by e-mail to customers who gave an address. */
  readonly sendReceipts?: boolean | undefined;
}

export interface IssuedCredentials {
  readonly merchant: Merchant;
  /** Shown once; only its hash is stored. A live key, except from a `test` rotation. */
  readonly apiKey: string;
  /** The test-mode key, when one was asked for at creation (shown once too). */
  readonly testApiKey?: string | undefined;
  /** The mode of `apiKey`. */
  readonly mode: KeyMode;
}

export class MerchantNotFoundError extends PaylinkError {
  constructor() {
    super('NOT_FOUND', 'Merchant not found');
  }
}

function percentField(field: string, percent: string): number {
  const bps = percentToBps(percent);
  if (bps === undefined)
    throw new ValidationError(field, 'must be a percentage from 0 to 100 with at most 2 decimals');
  return bps;
}

function toleranceField(percent: string): number {
  const bps = percentField('underpayment_tolerance_percent', percent);
  if (bps > MAX_UNDERPAYMENT_TOLERANCE_BPS) {
    throw new ValidationError(
      'underpayment_tolerance_percent',
      `must be at most ${bpsToPercent(MAX_UNDERPAYMENT_TOLERANCE_BPS)} (percent of the amount due)`,
    );
  }
  return bps;
}

function applyFields(
  deps: MerchantAdminDeps,
  merchant: Merchant,
  fields: MerchantFields,
  now: Date,
): Merchant {
  const optionalText = (value: string | null | undefined) =>
    value == null || value.trim() === '' ? null : value;
  const wallet = fields.wallet === undefined ? merchant.walletAddress : optionalText(fields.wallet);
  const webhookUrl = fields.webhookUrl === undefined ? merchant.webhookUrl : optionalText(fields.webhookUrl);
  // Every field is checked, and all that are wrong are named in one answer.
  const [name, walletAddress, parsedWebhookUrl, commissionBps, underpaymentToleranceBps] = checkEvery<
    [string, string | null, string | null, number, number]
  >([
    () => (fields.name === undefined ? merchant.name : parseMerchantName('name', fields.name)),
    () => (wallet === null ? null : parseWalletAddress('wallet_address', wallet)),
    () =>
      webhookUrl === null
        ? null
        : parseWebhookUrl('webhook_url', webhookUrl, { allowInsecure: deps.webhookAllowPrivate }),
    () =>
      fields.commissionPercent === undefined
        ? merchant.commissionBps
        : percentField('commission_percent', fields.commissionPercent),
    () =>
      fields.underpaymentTolerancePercent === undefined
        ? merchant.underpaymentToleranceBps
        : toleranceField(fields.underpaymentTolerancePercent),
  ]);
  return {
    ...merchant,
    name,
    walletAddress,
    webhookUrl: parsedWebhookUrl,
    commissionBps,
    underpaymentToleranceBps,
    sendReceipts: fields.sendReceipts ?? merchant.sendReceipts,
    updatedAt: now,
  };
}

/**
 * A payout wallet must be a wallet: the token, the forwarder factory and its implementation have no way to send
 * on what they receive, and a deposit address forwards only to the wallet it was made for — a payout sent to any
 * of them could never be spent. The refund claim page refuses the same addresses (refunds/refundAddress.ts).
 */
async function assertWalletIsNoServiceAddress(deps: MerchantAdminDeps, wallet: string | null): Promise<void> {
  if (wallet === null || !deps.deposits) return;
  const { live, test } = deps.deposits;
  const chains = test && test.chainId !== live.chainId ? [live, test] : [live];
  const address = wallet.toLowerCase();
  if (chains.some((chain) => chain.contracts.some((contract) => contract.toLowerCase() === address)))
    throw new ValidationError(
      'wallet_address',
      "is one of the payment network's contracts (the token, the forwarder factory or its implementation), not a wallet: a payout sent there could never be spent",
    );
  for (const chain of chains) {
    if (await deps.depositAddresses?.isDepositAddress(chain.chainId, wallet))
      throw new ValidationError(
        'wallet_address',
        'is a payment deposit address of this service, not a wallet: it forwards only to the wallet it was made for, so a payout sent there could never be spent',
      );
  }
}

/**
 * A new key and the record stored of it (its hash, never the key): the secret key of `mode` unless `restricted`
 * gives a restricted key's name, scopes and end.
 */
export function issueKey(
  merchantId: string,
  mode: KeyMode,
  now: Date,
  restricted?: Pick<ApiKeyRecord, 'name' | 'scopes' | 'expiresAt'>,
): { key: string; record: ApiKeyRecord } {
  const key = newApiKey(mode, restricted ? 'restricted' : 'secret');
  return {
    key,
    record: {
      id: `key_${randomUUID().replaceAll('-', '')}`,
      merchantId,
      keyHash: hashApiKey(key),
      keyPrefix: apiKeyPrefix(key),
      mode,
      createdAt: now,
      expiresAt: restricted?.expiresAt ?? null,
      kind: restricted ? 'restricted' : 'secret',
      scopes: restricted?.scopes ?? [],
      name: restricted?.name ?? null,
      revokedAt: null,
      lastUsedAt: null,
    },
  };
}

/** A live key always; with `testKey`, a test-mode key too (sk_test_: payments on the test chain only). */
export async function createMerchant(
  deps: MerchantAdminDeps,
  fields: MerchantFields & { name: string },
  options: { readonly testKey?: boolean } = {},
): Promise<IssuedCredentials> {
  const now = deps.clock.now();
  const blank: Merchant = {
    id: newMerchantId(),
    name: '',
    walletAddress: null,
    webhookUrl: null,
    webhookSecret: newWebhookSecret(),
    commissionBps: 0,
    underpaymentToleranceBps: deps.defaultToleranceBps ?? 0,
    sendReceipts: true,
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
  const merchant = applyFields(deps, blank, fields, now);
  await checkWebhookHost(deps, 'webhook_url', merchant.webhookUrl);
  await assertWalletIsNoServiceAddress(deps, merchant.walletAddress);
  await assertWalletCanReceive(deps.tokenControls, merchant.walletAddress);
  const { key, record } = issueKey(merchant.id, 'live', now);
  const test = options.testKey ? issueKey(merchant.id, 'test', now) : undefined;
  await deps.merchants.insert(merchant, record, test ? [test.record] : []);
  return { merchant, apiKey: key, testApiKey: test?.key, mode: 'live' };
}

export async function getMerchant(deps: Pick<MerchantAdminDeps, 'merchants'>, id: string): Promise<Merchant> {
  const merchant = await deps.merchants.find(id);
  if (!merchant) throw new MerchantNotFoundError();
  return merchant;
}

export async function updateMerchant(
  deps: MerchantAdminDeps,
  id: string,
  fields: MerchantFields,
): Promise<Merchant> {
  const merchant = applyFields(deps, await getMerchant(deps, id), fields, deps.clock.now());
  if (fields.webhookUrl !== undefined) await checkWebhookHost(deps, 'webhook_url', merchant.webhookUrl);
  if (fields.wallet !== undefined) {
    await assertWalletIsNoServiceAddress(deps, merchant.walletAddress);
    await assertWalletCanReceive(deps.tokenControls, merchant.walletAddress);
  }
  await deps.merchants.save(merchant);
  return merchant;
}

/**
 * Issues a new key of `mode` (default live); the old ones of that mode keep working for `graceMs` (0: they
 * stop at once). Keys of the other mode are untouched. The first `test` rotation issues the first test key.
 */
export async function rotateApiKey(
  deps: MerchantAdminDeps,
  id: string,
  graceMs: number,
  mode: KeyMode = 'live',
): Promise<IssuedCredentials> {
  if (!Number.isSafeInteger(graceMs) || graceMs < 0)
    throw new ValidationError('grace', 'must be a duration ≥ 0');
  const merchant = await getMerchant(deps, id);
  const now = deps.clock.now();
  const { key, record } = issueKey(merchant.id, mode, now);
  await deps.merchants.replaceKeys(record, new Date(now.getTime() + graceMs));
  return { merchant, apiKey: key, mode };
}

/**
 * A disabled merchant's keys stop authenticating at once and its users' dashboard sessions end (enabling it
 * again brings none back); its payments and records stay.
 */
export function disableMerchant(deps: MerchantAdminDeps, id: string): Promise<Merchant> {
  return setMerchantStatus(deps, id, 'disabled');
}

/** Its keys (those not rotated out meanwhile) work again, and its users can sign in again. */
export function enableMerchant(deps: MerchantAdminDeps, id: string): Promise<Merchant> {
  return setMerchantStatus(deps, id, 'active');
}

async function setMerchantStatus(
  deps: MerchantAdminDeps,
  id: string,
  status: Merchant['status'],
): Promise<Merchant> {
  const merchant: Merchant = { ...(await getMerchant(deps, id)), status, updatedAt: deps.clock.now() };
  await deps.merchants.save(merchant);
  return merchant;
}

/**
 * The merchant's keys that still authenticate: current ones, rotated ones still within their grace, restricted
 * ones neither revoked nor expired.
 */
export async function listWorkingKeys(
  deps: Pick<MerchantAdminDeps, 'merchants' | 'clock'>,
  merchantId: string,
): Promise<ApiKeyRecord[]> {
  const now = deps.clock.now();
  return (await deps.merchants.listKeys(merchantId)).filter((key) => keyWorks(key, now));
}

/** A key works until it is revoked, and while `now` is before its end (at the end itself it no longer does). */
export function keyWorks(key: Pick<ApiKeyRecord, 'expiresAt' | 'revokedAt'>, now: Date): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

export function listMerchants(deps: Pick<MerchantAdminDeps, 'merchants'>, limit = 1000): Promise<Merchant[]> {
  return deps.merchants.list(limit);
}

/** The merchant as administrators see it: everything but secrets. */
export function describeMerchant(merchant: Merchant) {
  return {
    public_id: merchant.id,
    name: merchant.name,
    wallet_address: merchant.walletAddress,
    webhook_url: merchant.webhookUrl,
    commission_percent: bpsToPercent(merchant.commissionBps),
    commission_bps: merchant.commissionBps,
    underpayment_tolerance_percent: bpsToPercent(merchant.underpaymentToleranceBps),
    send_receipts: merchant.sendReceipts,
    status: merchant.status,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
  };
}
