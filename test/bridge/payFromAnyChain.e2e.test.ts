/**
 * Issue 30's "done when": a newcomer's sandbox (two local chains, CCTP test contracts, the local attestation
 * service, decision 0032) takes a payment on its second chain, `sandbox-2` (31338), and pays the merchant and the
 * treasury on the home chain (31337): paid from the checkout page's wallet button in Chromium with the wallet on
 * 31338 (no switch, decision 0033), paid by a plain USDC transfer on 31338, and paid half on each chain. Each is
 * credited with its transfers' chains (decision 0030), burnt at standard speed (no fee), minted to the same
 * deposit address on the home chain and flushed (decision 0029): the merchant's wallet and the treasury receive
 * exactly their shares, to the base unit, and the demo merchant's endpoint verifies payment.paid and
 * payment.payout_sent. The payments run one after another, so that each one's balance changes are its own.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  type Address,
  createPublicClient,
  defineChain,
  getAddress,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount } from '../../src/sandbox/chain.ts';
import {
  accessibilityViolations,
  SCREENSHOTS,
  scrollsSideways,
  UI_TIMEOUT_MS,
  useChromium,
} from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { eventually } from '../helpers/net.ts';
import { type SandboxWithSecondChain, startSandboxWithSecondChain } from '../helpers/sandboxProcess.ts';
import { walletContext } from '../helpers/testWallet.ts';

// The callbacks given to page.evaluate run in the browser; the project's types have no DOM library.
declare const window: unknown;

const HOME_CHAIN_ID = 31337;
const SECOND_CHAIN_ID = 31338;
/** The demo merchant's commission: 1 % (100 bps), which the treasury receives. */
const COMMISSION_BPS = 100n;

const clientOf = (rpcUrl: string, id: number) =>
  createPublicClient({
    chain: defineChain({
      id,
      name: `anvil ${id}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    }),
    transport: http(rpcUrl),
  }) as PublicClient;

interface PaymentStatus {
  readonly status: string;
  readonly amount_received: string;
  readonly deposit_address: Address;
  readonly chain_id: number;
  readonly token_address: Address;
  readonly txid?: string;
  readonly payout_txid?: string;
  readonly transfers?: readonly { chain_id: number; txid: string; amount: string; final: boolean }[];
}

/** What the sandbox's own webhook endpoint logs once it verified a webhook's signature. */
interface VerifiedWebhook {
  readonly webhookId: string;
  readonly event: string;
  readonly paymentId: string;
  readonly merchantReceivedBaseUnits?: string;
  readonly treasuryReceivedBaseUnits?: string;
}

// Real processes and a real bridge (burn, 3 blocks, attestation, mint, flush): a safety net, not a speed limit.
describe('paying from the sandbox’s second chain, as a newcomer runs it', { timeout: 180_000 }, () => {
  let sandbox: SandboxWithSecondChain;
  let home: PublicClient;
  let second: PublicClient;
  let secondUsdc: Address;
  const chromium = useChromium();
  const merchantWallet = sandboxAccount(SANDBOX_ACCOUNTS.merchant).address;
  const treasury = sandboxAccount(SANDBOX_ACCOUNTS.treasury).address;

  beforeAll(async () => {
    // Attestations asked for every half second rather than every 5 (the waits double from there): the same
    // steps, less idle time between them, as PAYLINK_POLL_INTERVAL is for the watcher.
    sandbox = await startSandboxWithSecondChain({ PAYLINK_CCTP_POLL_INTERVAL: '500ms' });
    home = clientOf(sandbox.rpcUrl, HOME_CHAIN_ID);
    second = clientOf(sandbox.secondRpcUrl, SECOND_CHAIN_ID);
    const stateDir = dirname(sandbox.env.PAYLINK_DATABASE_URL!.slice('sqlite:'.length));
    const saved = JSON.parse(readFileSync(join(stateDir, 'sandbox-chain-2.json'), 'utf8')) as {
      second: { usdc: string };
    };
    secondUsdc = getAddress(saved.second.usdc);
  });

  afterAll(async () => {
    await sandbox?.stop();
  });

  const api = async <T>(path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${sandbox.apiUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-api-key': sandbox.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  /** A payment of `amount` USDC, created through the API as a merchant does. */
  async function newPayment(amount: string): Promise<{ id: string; deposit: Address; homeUsdc: Address }> {
    const created = await api<{ payment_id: string }>('/payments/api/create/', { amount, currency: 'USDC' });
    expect(created.status).toBe(201);
    const id = created.body.payment_id;
    const status = await statusOf(id);
    expect(status).toMatchObject({ status: 'pending', chain_id: HOME_CHAIN_ID });
    return { id, deposit: getAddress(status.deposit_address), homeUsdc: getAddress(status.token_address) };
  }

  const statusOf = async (id: string) => (await api<PaymentStatus>(`/payments/api/status/${id}/`)).body;

  const usdcOf = (client: PublicClient, token: Address, owner: Address) =>
    client.readContract({ address: token, abi: testUsdcAbi, functionName: 'balanceOf', args: [owner] });

  /** The merchant's wallet and the treasury on the home chain: what each holds now. */
  const payees = async (homeUsdc: Address) => ({
    merchant: await usdcOf(home, homeUsdc, merchantWallet),
    treasury: await usdcOf(home, homeUsdc, treasury),
  });

  const verifiedWebhooks = (id: string): VerifiedWebhook[] =>
    sandbox
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('signature verified'))
      .map((line) => JSON.parse(line) as VerifiedWebhook)
      .filter((line) => line.paymentId === id);

  /** The demo merchant's verified `payment.payout_sent` webhooks of `id`, one per event (a redelivery is one). */
  const payoutsSent = (id: string): VerifiedWebhook[] => [
    ...new Map(
      verifiedWebhooks(id)
        .filter((w) => w.event === 'payment.payout_sent')
        .map((w) => [w.webhookId, w] as const),
    ).values(),
  ];

  /**
   * Waits for the payout and checks what settled: the payout transaction, payment.paid and payment.payout_sent
   * verified by the demo merchant's endpoint, and exactly `amount` − commission to the merchant's wallet and the
   * commission to the treasury on the home chain, as the webhooks told (one per flush: a payment paid on two
   * chains may be flushed in two, decision 0029), with nothing left at the deposit address on either chain.
   * Returns how many flushes paid it out.
   */
  async function expectPaidOut(
    payment: { id: string; deposit: Address; homeUsdc: Address },
    before: { merchant: bigint; treasury: bigint },
    amountBaseUnits: bigint,
  ): Promise<number> {
    const commission = (amountBaseUnits * COMMISSION_BPS) / 10_000n;
    const share = amountBaseUnits - commission;
    const settled = await eventually(
      () => statusOf(payment.id),
      (s) => typeof s.payout_txid === 'string',
    );
    expect(settled.payout_txid).toMatch(/^0x[0-9a-f]{64}$/);
    const told = () => {
      const sent = payoutsSent(payment.id);
      const sum = (key: 'merchantReceivedBaseUnits' | 'treasuryReceivedBaseUnits') =>
        sent.reduce((total, w) => total + BigInt(w[key] ?? '0'), 0n);
      return { merchant: sum('merchantReceivedBaseUnits'), treasury: sum('treasuryReceivedBaseUnits') };
    };
    expect(
      await eventually(
        async () => told(),
        (t) => t.merchant === share && t.treasury === commission,
      ),
    ).toEqual({ merchant: share, treasury: commission });
    expect(verifiedWebhooks(payment.id).map((w) => w.event)).toContain('payment.paid');
    // Every part has reached the home chain and been flushed: what each holds moved by exactly its share.
    const after = await payees(payment.homeUsdc);
    expect(after.merchant - before.merchant).toBe(share);
    expect(after.treasury - before.treasury).toBe(commission);
    expect(await usdcOf(home, payment.homeUsdc, payment.deposit)).toBe(0n);
    expect(await usdcOf(second, secondUsdc, payment.deposit)).toBe(0n);
    // The mint into the deposit address on the home chain is our own settlement, never a customer's payment.
    const final = await statusOf(payment.id);
    expect(final.transfers?.map((t) => t.txid).sort()).toEqual(settled.transfers?.map((t) => t.txid).sort());
    expect(final.amount_received).toBe(settled.amount_received);
    return payoutsSent(payment.id).length;
  }

  /** The transaction hash `paylink sandbox pay` printed ("Sent … USDC to 0x…: 0x…"). */
  async function sandboxPay(id: string, args: string[]): Promise<Hex> {
    const result = await runCli(['sandbox', 'pay', id, ...args], sandbox.env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const hash = /: (0x[0-9a-f]{64})$/m.exec(result.stdout)?.[1];
    expect(hash).toBeDefined();
    return hash as Hex;
  }

  it('pays on sandbox-2 from the checkout’s wallet button, the wallet on 31338: paid, then paid out at home', async () => {
    const payment = await newPayment('27.00');
    const before = await payees(payment.homeUsdc);
    const accounts = Array.from({ length: 10 }, (_, i) => sandboxAccount(i).address);
    const context = await walletContext(
      chromium.browser,
      {
        rpcUrl: sandbox.secondRpcUrl,
        chainId: SECOND_CHAIN_ID,
        accounts,
        defaultAccountIndex: SANDBOX_ACCOUNTS.customer,
        otherChains: [{ chainId: HOME_CHAIN_ID, rpcUrl: sandbox.rpcUrl }],
      },
      { startChainId: `0x${SECOND_CHAIN_ID.toString(16)}`, knowsChain: true },
      { viewport: { width: 1280, height: 900 } },
    );
    try {
      const page: Page = await context.newPage();
      chromium.watch(page);
      const response = await page.goto(`${sandbox.checkoutUrl}/pay/${payment.id}`);
      expect(response?.status()).toBe(200);
      await page.locator('section[data-stage="pay"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      expect(await page.getByRole('group', { name: 'Network to pay on' }).isVisible()).toBe(true);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        expect(await accessibilityViolations(page)).toEqual([]);
        expect(await scrollsSideways(page)).toBe(false);
        await page.screenshot({ path: `${SCREENSHOTS}/pay-from-any-chain-${width}.png`, fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // sandbox-2 has a gasless relayer, so the button's way there is a signature (EIP-3009) that the sandbox's
      // relayer on 31338 submits; paying with gas from the button is checkoutNetworks.browser.test.ts's.
      await page.getByRole('button', { name: 'Pay with browser wallet' }).click();
      await page
        .locator('[data-wallet-message="signed"]')
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      const methods = await page.evaluate(() =>
        (window as { __walletCalls: { method: string }[] }).__walletCalls.map((c) => c.method),
      );
      expect(methods).toContain('eth_signTypedData_v4');
      expect(methods).not.toContain('eth_sendTransaction');
      expect(methods).not.toContain('wallet_switchEthereumChain');
      expect(methods).not.toContain('wallet_addEthereumChain');

      const paid = await eventually(
        () => statusOf(payment.id),
        (s) => s.status === 'paid',
      );
      expect(paid).toMatchObject({ status: 'paid', amount_received: '27.00', chain_id: HOME_CHAIN_ID });
      expect(paid.transfers).toHaveLength(1);
      expect(paid.transfers![0]).toMatchObject({ chain_id: SECOND_CHAIN_ID, amount: '27.00' });
      const hash = paid.transfers![0]!.txid as Hex;
      expect((await second.waitForTransactionReceipt({ hash })).status).toBe('success');
      // The customer's page follows: it says paid.
      await page.locator('section[data-stage="paid"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      await page.screenshot({ path: `${SCREENSHOTS}/pay-from-any-chain-paid.png`, fullPage: true });
    } finally {
      await context.close();
    }
    expect(await expectPaidOut(payment, before, 27_000_000n)).toBe(1);
  });

  it('pays on sandbox-2 by a plain USDC transfer to the same deposit address', async () => {
    const payment = await newPayment('12.50');
    const before = await payees(payment.homeUsdc);
    const hash = await sandboxPay(payment.id, ['--chain', 'sandbox-2']);
    const paid = await eventually(
      () => statusOf(payment.id),
      (s) => s.status === 'paid',
    );
    expect(paid).toMatchObject({ status: 'paid', amount_received: '12.50' });
    expect(paid.transfers).toEqual([expect.objectContaining({ chain_id: SECOND_CHAIN_ID, txid: hash })]);
    expect(await expectPaidOut(payment, before, 12_500_000n)).toBe(1);
  });

  it('pays half on sandbox-2 and half on the home chain: paid once both are final, each side its exact share', async () => {
    const payment = await newPayment('10.02');
    const before = await payees(payment.homeUsdc);
    const onSecond = await sandboxPay(payment.id, ['--chain', 'sandbox-2', '--amount', '5.01']);
    const part = await eventually(
      () => statusOf(payment.id),
      (s) => s.status !== 'pending' && (s.transfers ?? []).every((t) => t.final),
    );
    // Half is not enough, whichever chain it came on.
    expect(part).toMatchObject({ status: 'processing', amount_received: '5.01' });
    const onHome = await sandboxPay(payment.id, []);
    const paid = await eventually(
      () => statusOf(payment.id),
      (s) => s.status === 'paid',
    );
    expect(paid).toMatchObject({ status: 'paid', amount_received: '10.02' });
    expect(paid.transfers?.map((t) => [t.chain_id, t.txid, t.final]).sort()).toEqual(
      [
        [SECOND_CHAIN_ID, onSecond, true],
        [HOME_CHAIN_ID, onHome, true],
      ].sort(),
    );
    // Once or in two flushes (the home half may go before the other is minted): the sums are what count.
    expect([1, 2]).toContain(await expectPaidOut(payment, before, 10_020_000n));
  });
});
