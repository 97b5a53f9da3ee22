import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/framework/types';
import { AbstractPaymentProvider, MedusaError, PaymentActions } from '@medusajs/framework/utils';
import { type RefundEntry, refundEntry } from '../../refunds/refundEntries';
import { decimalText } from './amounts';
import { shopOwnerError } from './errors';
import { type PaylinkOptions, validateOptions } from './options';
import { ReplayGuard } from './replayGuard';
import type { PaylinkClient } from './sdk';
import { paylinkSdk } from './sdk';
import { type SessionData, sessionPayment, toSessionData } from './sessionPayment';
import { sessionStatus, webhookAction } from './statuses';

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Paylink as a Medusa payment provider (`pp_paylink_<id>`): each payment session is one Paylink payment link
 * the storefront redirects the shopper to (`data.payment_url`), paid in USDC on chain. Paylink's status API is
 * the truth; webhooks only make Medusa ask sooner.
 */
export default class PaylinkProviderService extends AbstractPaymentProvider<PaylinkOptions> {
  static override identifier = 'paylink';

  static override validateOptions(options: Record<string, unknown>): void {
    validateOptions(options);
  }

  protected readonly options_: PaylinkOptions;
  protected readonly logger_: Logger | undefined;
  readonly #replays: ReplayGuard;
  #client: Promise<PaylinkClient> | undefined;

  constructor(container: Record<string, unknown>, options: PaylinkOptions) {
    super(container, options);
    this.options_ = validateOptions(options as unknown as Record<string, unknown>);
    this.logger_ = container.logger as Logger | undefined;
    this.#replays = new ReplayGuard(this.options_.webhookToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  }

  protected client(): Promise<PaylinkClient> {
    this.#client ??= paylinkSdk().then(
      (sdk) => new sdk.PaylinkClient({ apiKey: this.options_.apiKey, baseUrl: this.options_.apiUrl }),
    );
    return this.#client;
  }

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const data = await sessionPayment(await this.client(), this.options_, input, undefined);
    return { id: data.payment_id, data: toSessionData(data), status: sessionStatus(data.state) };
  }

  /** A new amount or currency is a new Paylink payment (a link's price is fixed); the same one is kept. */
  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const current = input.data as SessionData | undefined;
    const data = await sessionPayment(await this.client(), this.options_, input, current);
    return { data: toSessionData(data), status: sessionStatus(data.state) };
  }

  /** Asked when the cart completes, and by Medusa's webhook handling: the answer is Paylink's status now. */
  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    return this.getPaymentStatus(input);
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const data = this.sessionData(input.data);
    const payment = await this.call('asking for the payment status', (c) => c.getPayment(data.payment_id));
    return {
      status: sessionStatus(payment),
      data: {
        ...data,
        paylink_status: payment.status,
        amount_received: payment.amount_received,
        txid: payment.txid ?? null,
        paid_at: payment.paid_at ?? null,
      },
    };
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const { data } = await this.getPaymentStatus(input);
    return { data: { ...data, refunds: await this.currentRefunds(this.sessionData(data)) } };
  }

  /** Nothing to capture: the USDC was final on chain when the payment became paid. */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    return { data: input.data ?? {} };
  }

  /**
   * Paylink has no way to withdraw a link: an unpaid one simply expires. A payment paid after all is still
   * shown by the status API and the dashboard, and is refunded from there.
   */
  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    return { data: input.data ?? {} };
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    return { data: input.data ?? {} };
  }

  /**
   * A refund in the payment's currency: Paylink works out the USDC. The customer gets a claim link to give
   * an address (kept on the payment as `refunds[].claim_url` for the admin to send); the shop then funds it.
   */
  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = this.sessionData(input.data);
    const amount = decimalText(input.amount);
    if (amount === undefined) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'Paylink: the refund amount is not a number');
    }
    const refunds = Array.isArray(data.refunds) ? data.refunds : [];
    const refund = await this.call('creating the refund', (c) =>
      c.createRefund(
        { payment_id: data.payment_id, amount, currency: data.currency },
        // Medusa's refund id would be best; a count of earlier refunds keeps a retried request to one refund.
        { idempotencyKey: `medusa-refund:${data.payment_id}:${refunds.length}:${amount}` },
      ),
    );
    const entry = refundEntry(refund);
    return { data: { ...data, refunds: [...refunds, entry] } };
  }

  /**
   * Medusa's `/hooks/payment/paylink_<id>` route passes every POST here. Only a body whose Standard Webhooks
   * signature matches the secret, with a recent timestamp and an id not seen before, is acted on; anything
   * else is NOT_SUPPORTED, which changes nothing.
   */
  async getWebhookActionAndData(payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    const sdk = await paylinkSdk();
    let event: Awaited<ReturnType<typeof sdk.verifyWebhook>>;
    try {
      event = await sdk.verifyWebhook(
        rawBody(payload.rawData),
        payload.headers as Record<string, string>,
        this.options_.webhookSecret,
        { toleranceSeconds: this.options_.webhookToleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS },
      );
    } catch (error) {
      this.logger_?.warn(`Paylink webhook ignored: ${(error as Error).message}`);
      return { action: PaymentActions.NOT_SUPPORTED };
    }
    if (!this.#replays.firstTime(event.id)) {
      this.logger_?.warn(`Paylink webhook ${event.id} ignored: it was received already (a replay)`);
      return { action: PaymentActions.NOT_SUPPORTED };
    }
    if (!('usdc_amount' in event) || !('metadata' in event)) return { action: PaymentActions.NOT_SUPPORTED };
    const sessionId = event.metadata.session_id;
    if (!sessionId) return { action: PaymentActions.NOT_SUPPORTED };
    const action = webhookAction(event.event, event);
    return { action, data: { session_id: sessionId, amount: event.amount } };
  }

  protected async currentRefunds(data: SessionData): Promise<unknown[]> {
    const refunds = Array.isArray(data.refunds) ? (data.refunds as RefundEntry[]) : [];
    return Promise.all(
      refunds.map(async (known) =>
        refundEntry(await this.call('reading a refund', (c) => c.getRefund(known.refund_id)), known),
      ),
    );
  }

  protected sessionData(data: Record<string, unknown> | undefined): SessionData {
    if (!data || typeof data.payment_id !== 'string') {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        'Paylink: this payment session has no Paylink payment; create the payment session again',
      );
    }
    return data as unknown as SessionData;
  }

  protected async call<T>(doing: string, request: (client: PaylinkClient) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await request(client);
    } catch (error) {
      throw shopOwnerError(error, this.options_.apiUrl, doing);
    }
  }
}

function rawBody(raw: unknown): string | Uint8Array {
  if (typeof raw === 'string') return raw;
  if (raw instanceof Uint8Array) return raw;
  // Medusa may hand a parsed body when no raw body was kept: it cannot verify, so it is refused.
  return '';
}
