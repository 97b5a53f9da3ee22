import type { KeyMode } from '../../domain/credentials.ts';
import { PaylinkError, ValidationError } from '../../domain/errors.ts';
import { type PlanInput, parsePlanInput, type SubscriptionPlan } from '../../domain/subscriptionPlan.ts';
import { KEY_PATTERN } from '../payments/createPaymentOnce.ts';
import { decodeCursor, encodeCursor } from '../payments/listPayments.ts';
import { timeOrderedId } from '../payments/timeOrderedId.ts';
import type { PageRequest } from '../shared/keysetPage.ts';
import type { Clock } from '../shared/ports.ts';
import type { IdempotentCreate, InsertOutcome, SubscriptionStore } from './ports.ts';

export interface PlanDeps {
  readonly subscriptions: SubscriptionStore;
  readonly clock: Clock;
}

export const MAX_PLAN_LIST_LIMIT = 100;

/**
 * An insert's outcome as the API answers it: the row made, or the one an earlier request with the same key and
 * body made (IDEMPOTENCY_KEY_REUSED with another body), as payments' and refunds' keys do.
 */
export function answerOnce<T>(outcome: InsertOutcome<T>, idempotency: IdempotentCreate | undefined) {
  if (outcome.kind === 'replay' && outcome.requestHash !== (idempotency?.requestHash ?? null))
    throw new PaylinkError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used with a different request body',
    );
  return { row: outcome.row, replayed: outcome.kind === 'replay' };
}

export function checkIdempotencyKey(idempotency: IdempotentCreate | undefined): void {
  if (idempotency && !KEY_PATTERN.test(idempotency.key))
    throw new ValidationError('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
}

/** Creates a plan in the key's mode; with an Idempotency-Key, the same key and body give the same plan. */
export async function createPlan(
  deps: PlanDeps,
  merchantId: string,
  mode: KeyMode,
  input: PlanInput,
  idempotency?: IdempotentCreate,
): Promise<{ plan: SubscriptionPlan; replayed: boolean }> {
  checkIdempotencyKey(idempotency);
  const terms = parsePlanInput(input);
  const plan: SubscriptionPlan = {
    id: timeOrderedId(),
    merchantId,
    mode,
    ...terms,
    archivedAt: null,
    createdAt: deps.clock.now(),
  };
  const { row, replayed } = answerOnce(await deps.subscriptions.insertPlan(plan, idempotency), idempotency);
  return { plan: row, replayed };
}

export async function showPlan(deps: PlanDeps, merchantId: string, mode: KeyMode, planId: string) {
  const plan = await deps.subscriptions.findPlan(merchantId, planId.toLowerCase(), mode);
  if (!plan) throw new PaylinkError('NOT_FOUND', 'Plan not found');
  return plan;
}

/** Archives a plan: no new subscription to it; those running keep its terms to their end. */
export async function archivePlan(deps: PlanDeps, merchantId: string, mode: KeyMode, planId: string) {
  const plan = await deps.subscriptions.archivePlan(merchantId, planId.toLowerCase(), mode, deps.clock.now());
  if (!plan) throw new PaylinkError('NOT_FOUND', 'Plan not found');
  return plan;
}

/** A keyset page, newest first, of a merchant's plans or subscriptions, its cursor bound to the listing. */
export async function listPage<T>(
  listing: 'plans' | 'subscriptions',
  merchantId: string,
  mode: KeyMode,
  input: PageRequest,
  read: (query: {
    merchantId: string;
    mode: KeyMode;
    after?: { createdAt: Date; id: string };
    limit: number;
  }) => Promise<T[]>,
  positionOf: (row: T) => { createdAt: Date; id: string },
): Promise<{ rows: T[]; nextCursor: string | null }> {
  if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > MAX_PLAN_LIST_LIMIT)
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_PLAN_LIST_LIMIT}`);
  const fingerprint = JSON.stringify([listing, merchantId, mode]);
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, fingerprint);
  const found = await read({ merchantId, mode, ...(after ? { after } : {}), limit: input.limit + 1 });
  const rows = found.slice(0, input.limit);
  const last = rows.at(-1);
  return {
    rows,
    nextCursor: found.length > input.limit && last ? encodeCursor(positionOf(last), fingerprint) : null,
  };
}

export function listPlans(deps: PlanDeps, merchantId: string, mode: KeyMode, input: PageRequest) {
  return listPage(
    'plans',
    merchantId,
    mode,
    input,
    (q) => deps.subscriptions.listPlans(q),
    (plan) => plan,
  );
}
