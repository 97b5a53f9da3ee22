import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../../../test/helpers/webhookReceiver.ts';
import { systemHostResolver } from './hostResolver.ts';
import { createWebhookSender, RESPONSE_BODY_LIMIT_BYTES, WEBHOOK_USER_AGENT } from './webhookSender.ts';

const body = '{"id":"evt_1","event":"payment.paid"}';
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,abc=' };

describe('webhook sender', () => {
  const receiver = new WebhookReceiver();
  const dev = createWebhookSender({ allowPrivate: true, timeoutMs: 1_000 });
  const production = createWebhookSender({ allowPrivate: false, timeoutMs: 1_000 });
  beforeAll(() => receiver.start());
  afterAll(async () => {
    dev.close();
    production.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => ({ status: 204 });
  });

  it('POSTs the body byte for byte with the given headers, JSON content type and our User-Agent', async () => {
    const result = await dev.send({ url: receiver.url('/hooks?x=1'), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 204, body: '' });
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hooks?x=1');
    expect(request?.body.toString('utf8')).toBe(body);
    expect(request?.headers).toMatchObject({
      ...headers,
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
    });
    expect(WEBHOOK_USER_AGENT).toMatch(/^Paylink-Webhook\/\d+\.\d+\.\d+/);
  });

  it('keeps the status, Retry-After and only the first 4 KiB of the response body', async () => {
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': '120' }, body: 'x'.repeat(100_000) });
    const result = await dev.send({ url: receiver.url(), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 503, retryAfter: '120' });
    expect(result.kind === 'response' && result.body).toBe('x'.repeat(RESPONSE_BODY_LIMIT_BYTES));
  });

  it('never follows a redirect', async () => {
    receiver.respond = (request) =>
      request.path === '/moved'
        ? { status: 302, headers: { location: receiver.url('/target') } }
        : { status: 200 };
    const result = await dev.send({ url: receiver.url('/moved'), headers, body });
    expect(result).toMatchObject({ kind: 'response', statusCode: 302 });
    expect(receiver.received.map((r) => r.path)).toStrictEqual(['/moved']);
  });

  it('gives up on a slow receiver after the timeout', async () => {
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 5_000));
    const result = await dev.send({ url: receiver.url(), headers, body });
    expect(result).toMatchObject({ kind: 'error', error: 'timeout: no response within 1000 ms' });
  });

  it('reports a refused connection as an error, never by throwing', async () => {
    const closed = new WebhookReceiver();
    await closed.start();
    const url = closed.url();
    await closed.stop();
    const result = await dev.send({ url, headers, body });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringContaining('ECONNREFUSED') });
  });

  describe('with private addresses not allowed', () => {
    it('refuses each blocked address family written in the URL, before connecting', async () => {
      const cases: [string, string][] = [
        [receiver.url().replace('http:', 'https:'), 'a loopback'],
        ['https://2130706433/', 'a loopback'],
        ['https://0x7f.0.0.1/', 'a loopback'],
        ['https://[::1]/', 'a loopback'],
        ['https://10.0.0.1/', 'a private'],
        ['https://192.168.1.1/', 'a private'],
        ['https://[fc00::1]/', 'a private'],
        ['https://169.254.0.1/', 'a link-local'],
        ['https://[fe80::1]/', 'a link-local'],
        ['https://100.64.0.1/', 'a carrier-grade NAT'],
        ['https://239.1.1.1/', 'a multicast'],
        ['https://[ff05::1]/', 'a multicast'],
        ['https://0.0.0.0/', 'an unspecified'],
        ['https://[::]/', 'an unspecified'],
        ['https://169.254.169.254/', 'a cloud metadata'],
        ['https://[::ffff:127.0.0.1]/', 'an IPv4-mapped'],
        ['https://[::ffff:a9fe:a9fe]/', 'an IPv4-mapped'],
      ];
      for (const [url, phrase] of cases) {
        const result = await production.send({ url, headers, body });
        expect(result, url).toMatchObject({
          kind: 'error',
          error: expect.stringMatching(`is ${phrase} address$`),
        });
      }
      expect(receiver.received).toHaveLength(0);
    });

    it('refuses plain http', async () => {
      const result = await production.send({ url: 'http://93.184.215.14/', headers, body });
      expect(result).toMatchObject({ kind: 'error', error: 'refused: http: URLs are not allowed' });
    });

    it('refuses at connect time a name that resolves to a blocked address (localhost → 127.0.0.1)', async () => {
      const port = new URL(receiver.base).port;
      const result = await production.send({ url: `https://localhost:${port}/hooks`, headers, body });
      expect(result).toMatchObject({
        kind: 'error',
        error: expect.stringMatching(
          /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address$/,
        ),
      });
      expect(receiver.received).toHaveLength(0);
    });

    it('refuses a name if any of its addresses is blocked (DNS rebinding, mixed answers)', async () => {
      const rebinding = createWebhookSender({
        allowPrivate: false,
        timeoutMs: 1_000,
        lookup: (_host, _options, callback) =>
          callback(null, [
            { address: '93.184.215.14', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]),
      });
      const result = await rebinding.send({ url: 'https://shop.example.test/hooks', headers, body });
      rebinding.close();
      expect(result).toMatchObject({
        kind: 'error',
        error: 'refused: shop.example.test resolves to 10.0.0.7, which is a private address',
      });
    });

    it('still never reaches cloud metadata when private addresses are allowed', async () => {
      const result = await dev.send({ url: 'http://169.254.169.254/latest/meta-data/', headers, body });
      expect(result).toMatchObject({ kind: 'error', error: expect.stringContaining('cloud metadata') });
    });
  });
});

describe('system host resolver', () => {
  it('resolves through /etc/hosts and DNS, and fails on unknown names', async () => {
    const resolver = systemHostResolver();
    expect(await resolver.resolve('localhost')).toContain('127.0.0.1');
    await expect(resolver.resolve('no-such-host.invalid')).rejects.toThrow();
  });
});
