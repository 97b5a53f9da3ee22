import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { WebhookResponse, WebhookSender } from '../../app/webhooks/ports.ts';
import { blockedAddressReason, parseIpAddress } from '../../domain/ipAddress.ts';
import { blockedError, filteringLookup } from './addressFilter.ts';

/** Response bodies are kept for merchants and operators to read, truncated: a receiver cannot fill our disk. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };
export const WEBHOOK_USER_AGENT = `Paylink-Webhook/${version}`;

export interface WebhookSenderOptions {
  /** Local development and tests: http and private addresses allowed (cloud metadata never). */
  readonly allowPrivate: boolean;
  /** The whole exchange — DNS, connect, TLS, request, response headers and kept body — within this. */
  readonly timeoutMs: number;
  readonly userAgent?: string;
  /** Tests only: name resolution without DNS. */
  readonly lookup?: (
    hostname: string,
    options: LookupOptions & { all: true },
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => void;
}

export interface ClosableWebhookSender extends WebhookSender {
  /** Closes idle keep-alive connections. */
  close(): void;
}

function describeError(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return 'request failed';
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EPAYLINKTIMEOUT') return `timeout: no response within ${timeoutMs} ms`;
  if (code === 'EPAYLINKBLOCKED') return error.message;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS: host not found (${code})`;
  // request-filtering-agent's own refusal (it runs after ours, so this is a second line of defence).
  if (/is not allowed/.test(error.message)) return `refused: ${error.message}`;
  return code ? `${code}: ${error.message}` : error.message;
}

/**
 * The URL a webhook may be sent to, or why it is refused before any connection: https only (http too where
 * private addresses are allowed), no credentials, and an address written in the URL checked here, since it is
 * never looked up (the agent checks it again).
 */
function destinationOf(raw: string, policy: { readonly allowPrivate: boolean }): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'refused: not a URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) {
    return `refused: ${url.protocol} URLs are not allowed`;
  }
  if (url.username || url.password) return 'refused: URL contains credentials';
  if (parseIpAddress(url.hostname)) {
    const reason = blockedAddressReason(url.hostname, policy);
    if (reason) return blockedError(url.hostname, url.hostname, reason).message;
  }
  return url;
}

/**
 * The only way webhooks leave the service. Refuses, before and at connect time, any destination that is not
 * a public address (see domain/ipAddress.ts), through two independent checks: our own lookup, which checks
 * every address a name resolves to, and `request-filtering-agent`'s connection filter underneath it.
 * Never follows redirects (node:http does not), sends the body as given, and keeps at most 4 KiB of the answer.
 */
export function createWebhookSender(options: WebhookSenderOptions): ClosableWebhookSender {
  if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs < 1) throw new RangeError('bad timeout');
  const policy = { allowPrivate: options.allowPrivate };
  const lookup = filteringLookup(policy, options.lookup);
  const agentOptions = {
    keepAlive: true,
    maxSockets: 64,
    allowPrivateIPAddress: options.allowPrivate,
    allowMetaIPAddress: false,
  };
  const httpAgent = new RequestFilteringHttpAgent(agentOptions);
  const httpsAgent = new RequestFilteringHttpsAgent(agentOptions);
  const userAgent = options.userAgent ?? WEBHOOK_USER_AGENT;

  function send(request: { url: string; headers: Readonly<Record<string, string>>; body: string }) {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const refuse = (error: string): WebhookResponse => ({ kind: 'error', error, durationMs: elapsed() });

    const url = destinationOf(request.url, policy);
    if (typeof url === 'string') return Promise.resolve(refuse(url));
    const secure = url.protocol === 'https:';

    const body = Buffer.from(request.body, 'utf8');
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (result: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const outgoing = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? httpsAgent : httpAgent,
        lookup,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': userAgent,
        },
      });
      const timer = setTimeout(() => {
        const timeout: NodeJS.ErrnoException = new Error('timeout');
        timeout.code = 'EPAYLINKTIMEOUT';
        outgoing.destroy(timeout);
      }, options.timeoutMs);

      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const retryAfter = response.headers['retry-after'];
          finish({
            kind: 'response',
            statusCode: response.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
            // PostgreSQL text cannot hold NUL; a cut multi-byte character becomes U+FFFD.
            body: Buffer.concat(chunks)
              .subarray(0, RESPONSE_BODY_LIMIT_BYTES)
              .toString('utf8')
              .replaceAll('\u0000', '\uFFFD'),
            durationMs: elapsed(),
          });
        };
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT_BYTES) chunks.push(chunk);
          kept += chunk.length;
          // Enough kept: stop reading (and drop the connection) rather than download whatever is sent.
          if (kept >= RESPONSE_BODY_LIMIT_BYTES) {
            done();
            response.destroy();
          }
        });
        // The status decides the outcome; a body cut short by the timeout or a reset is kept as far as it got.
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      outgoing.on('error', (error) => finish(refuse(describeError(error, options.timeoutMs))));
      outgoing.end(body);
    });
  }

  return {
    send: (request) =>
      // The contract is "never throws": anything unexpected is a failed attempt, not a crashed dispatcher.
      send(request).catch((error: unknown) => ({
        kind: 'error',
        error: describeError(error, options.timeoutMs),
        durationMs: 0,
      })),
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
