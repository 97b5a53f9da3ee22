import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';

/**
 * The sandbox demo merchant's webhook endpoint: receives its webhooks on loopback, verifies each signature with
 * the `standardwebhooks` package exactly as a merchant's server would, and logs what arrived — so a newcomer
 * sees the whole flow, signature included, without writing a receiver first. Sandbox only.
 */
export async function startSandboxWebhookInbox(
  options: { host: string; port: number; secret: string; merchantId: string },
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<{ url: string; close(): Promise<void> }> {
  const verifier = new Webhook(options.secret);
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET') {
      // Whose inbox this is: another process of the same sandbox shares it, another sandbox must not.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sandbox_merchant: options.merchantId }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      try {
        const event = verifier.verify(body, headers) as {
          event?: string;
          payment_id?: string;
          status?: string;
          merchant_received_base_units?: string;
          treasury_received_base_units?: string;
        };
        logger.info(
          {
            webhookId: headers['webhook-id'],
            event: event.event,
            paymentId: event.payment_id,
            status: event.status,
            // payment.payout_sent: exactly what the payout moved to each side, as the README's walk-through shows.
            ...(event.merchant_received_base_units !== undefined
              ? {
                  merchantReceivedBaseUnits: event.merchant_received_base_units,
                  treasuryReceivedBaseUnits: event.treasury_received_base_units,
                }
              : {}),
          },
          'sandbox merchant received a webhook (signature verified)',
        );
        response.writeHead(204).end();
      } catch {
        logger.warn(
          { webhookId: headers['webhook-id'] },
          'sandbox merchant received a webhook whose signature does not verify',
        );
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return {
    url: `http://${options.host}:${options.port}/webhooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The demo merchant whose inbox answers on that port, or undefined when none does (or not a sandbox inbox). */
export async function sandboxInboxMerchant(host: string, port: number): Promise<string | undefined> {
  try {
    const response = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/webhooks`, {
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { sandbox_merchant?: unknown };
    return typeof body.sandbox_merchant === 'string' ? body.sandbox_merchant : undefined;
  } catch {
    return undefined;
  }
}
