/** One webhook request, sent as is: the outbound adapter adds nothing but User-Agent and Content-Type. */
export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type WebhookResponse =
  | {
      readonly kind: 'response';
      readonly statusCode: number;
      readonly retryAfter: string | undefined;
      /** At most the first 4 KiB. */
      readonly body: string;
      readonly durationMs: number;
    }
  | {
      /** No HTTP response: refused address, DNS failure, timeout, connection reset … */
      readonly kind: 'error';
      readonly error: string;
      readonly durationMs: number;
    };

/** Sends webhooks to merchants' servers. Never throws: every failure is a `kind: 'error'` result. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** DNS: the addresses a host name resolves to (all of them). Throws when it does not resolve. */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}
