import type { ConfigModule, Logger, RemoteQueryFunction } from '@medusajs/framework/types';
import { type PaylinkOptions, validateOptions } from '../providers/paylink/options';
import { paylinkSdk } from '../providers/paylink/sdk';

const LOOK_BACK_MS = 2 * 24 * 60 * 60 * 1000;

interface ProviderEntry {
  readonly providerId: string;
  readonly options: PaylinkOptions;
}

/** Each Paylink provider registered in medusa-config, by its Medusa id (`pp_paylink_<id>`). */
export function paylinkOptionsIn(configModule: ConfigModule): ProviderEntry[] {
  const modules = Object.values(configModule.modules ?? {}) as unknown[];
  const entries: ProviderEntry[] = [];
  for (const module of modules) {
    const providers = (module as { options?: { providers?: unknown[] } })?.options?.providers ?? [];
    for (const provider of providers as {
      resolve?: unknown;
      id?: string;
      options?: Record<string, unknown>;
    }[]) {
      if (typeof provider.resolve !== 'string' || !/paylink/.test(provider.resolve) || !provider.options)
        continue;
      entries.push({ providerId: `pp_paylink_${provider.id}`, options: validateOptions(provider.options) });
    }
  }
  return entries;
}

export interface PaidSession {
  readonly sessionId: string;
  readonly paymentId: string;
  readonly amount: string;
}

/** Pending sessions of these providers whose Paylink payment is paid now. */
export async function recheckablePayments(
  query: Omit<RemoteQueryFunction, symbol>,
  providers: readonly ProviderEntry[],
  logger: Logger,
): Promise<PaidSession[]> {
  const sdk = await paylinkSdk();
  const since = new Date(Date.now() - LOOK_BACK_MS);
  const paid: PaidSession[] = [];
  for (const provider of providers) {
    const { data: sessions } = await query.graph({
      entity: 'payment_session',
      fields: ['id', 'data', 'status', 'created_at'],
      filters: {
        provider_id: provider.providerId,
        status: ['pending', 'requires_more'],
        created_at: { $gte: since },
      },
    });
    const client = new sdk.PaylinkClient({
      apiKey: provider.options.apiKey,
      baseUrl: provider.options.apiUrl,
    });
    for (const session of sessions as { id: string; data?: Record<string, unknown> }[]) {
      const paymentId = session.data?.payment_id;
      if (typeof paymentId !== 'string') continue;
      try {
        const payment = await client.getPayment(paymentId);
        if (payment.status === 'paid')
          paid.push({ sessionId: session.id, paymentId, amount: payment.amount });
      } catch (error) {
        logger.warn(`Paylink: could not ask for payment ${paymentId}: ${(error as Error).message}`);
      }
    }
  }
  return paid;
}
