import { describe, expect, it } from 'vitest';
import { testPayment } from '../../../test/fakes/paymentFixture.ts';
import type { TransferRecord } from '../../app/chain/ports.ts';
import type { Deposit, Payment } from '../../domain/payment.ts';
import { derivePaymentState } from '../../domain/paymentStatus.ts';
import { explorerTxUrl } from '../web/network.ts';
import { type CheckoutStage, checkoutStatusJson, checkoutView } from './checkoutView.ts';
import type { PaymentNetwork } from './paymentNetworks.ts';

const CREATED = new Date('2026-11-21T12:00:00.000Z');
const EXPIRES = new Date('2026-11-21T13:00:00.000Z');
const DEPOSIT: Deposit = {
  chainId: 137,
  tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  treasuryAddress: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  depositAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
};
const NETWORK: PaymentNetwork = {
  name: 'Polygon',
  chainId: 137,
  explorerUrl: 'https://polygonscan.com/',
  role: 'home',
  usdcAddress: DEPOSIT.tokenAddress,
  gasless: false,
};
const BASE: PaymentNetwork = {
  name: 'Base',
  chainId: 8453,
  explorerUrl: 'https://basescan.org',
  role: 'source',
  usdcAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  gasless: false,
};

function payment(toleranceBps = 0): Payment {
  return testPayment(1, {
    id: '7d1c3c0e-4b8e-4a53-9d43-0c1f1c2b3a4d',
    underpaymentToleranceBps: toleranceBps,
    orderId: 'private',
    customerEmail: 'private@example.com',
    expiresAt: EXPIRES,
    createdAt: CREATED,
    deposit: DEPOSIT,
  });
}

let block = 0n;
function transfer(amountBaseUnits: bigint, final: boolean): TransferRecord {
  block += 1n;
  return {
    id: `137:${block}:0`,
    chainId: 137,
    paymentId: 'p',
    txHash: `0x${block.toString(16).padStart(64, '0')}`,
    blockHash: `0x${block.toString(16).padStart(64, 'b')}`,
    blockNumber: block,
    logIndex: 0,
    blockTimestamp: CREATED,
    tokenAddress: DEPOSIT.tokenAddress.toLowerCase(),
    tokenSymbol: 'USDC',
    fromAddress: '0x0000000000000000000000000000000000000001',
    toAddress: DEPOSIT.depositAddress.toLowerCase(),
    amountBaseUnits,
    final,
    orphaned: false,
  };
}

function view(
  transfers: TransferRecord[],
  now: Date,
  toleranceBps = 0,
  networks: readonly PaymentNetwork[] = [NETWORK],
) {
  const p = payment(toleranceBps);
  const state = derivePaymentState(
    { requiredBaseUnits: p.quote.usdcBaseUnits, underpaymentToleranceBps: toleranceBps, expiresAt: EXPIRES },
    transfers,
    now,
  );
  return checkoutView({
    payment: p,
    deposit: DEPOSIT,
    state,
    transfers,
    merchantName: 'Shop',
    networks,
    now,
  });
}

const BEFORE = new Date('2026-11-21T12:30:00.000Z');
const AFTER = new Date('2026-11-21T13:00:01.000Z');

describe('checkoutView stage', () => {
  it.each<[string, TransferRecord[], Date, CheckoutStage, string]>([
    ['nothing yet', [], BEFORE, 'pay', '10.00'],
    ['a part, final', [transfer(4_000_000n, true)], BEFORE, 'pay', '6.00'],
    ['a part, not final', [transfer(4_000_000n, false)], BEFORE, 'pay', '6.00'],
    ['all of it, not final', [transfer(10_000_000n, false)], BEFORE, 'confirming', '0.00'],
    [
      'all of it in two transfers, final',
      [transfer(3_000_000n, true), transfer(7_000_000n, true)],
      BEFORE,
      'paid',
      '0.00',
    ],
    ['more than asked, final', [transfer(12_000_000n, true)], BEFORE, 'paid', '0.00'],
    ['nothing, after expiry', [], AFTER, 'expired', '10.00'],
    ['a part, final, after expiry', [transfer(4_000_000n, true)], AFTER, 'failed', '6.00'],
    // A transfer still awaiting finality past expiry may yet complete the payment: wait, never ask for more.
    ['a part, not final, after expiry', [transfer(4_000_000n, false)], AFTER, 'confirming', '6.00'],
  ])('%s → %s', (_name, transfers, now, stage, remaining) => {
    const v = view(transfers, now);
    expect(v.stage).toBe(stage);
    expect(checkoutStatusJson(v).amount_remaining).toBe(remaining);
  });

  it('with a tolerance, enough within it waits for confirmation instead of asking for the last cents', () => {
    // 1% of 10.00 = 0.10: 9.95 seen is enough.
    const v = view([transfer(9_950_000n, false)], BEFORE, 100);
    expect(v.stage).toBe('confirming');
    expect(v.remainingBaseUnits).toBe(50_000n);
    expect(view([transfer(9_850_000n, false)], BEFORE, 100).stage).toBe('pay');
  });

  it('asks for the remaining amount in the EIP-681 link, and counts down from the server clock', () => {
    const v = view([transfer(4_000_000n, true)], BEFORE);
    expect(v.paymentLink).toBe(
      `ethereum:${DEPOSIT.tokenAddress}@137/transfer?address=${DEPOSIT.depositAddress}&uint256=6000000`,
    );
    expect(v.secondsLeft).toBe(1800);
    expect(view([], AFTER).secondsLeft).toBe(0);
  });

  it('links the paying transaction on the explorer (without a doubled slash)', () => {
    const v = view([transfer(10_000_000n, true)], BEFORE);
    expect(v.txUrl).toBe(`https://polygonscan.com/tx/${v.txid}`);
  });
});

describe('checkoutView trust details', () => {
  it('lists every transfer that counts, oldest first, each on the explorer; orphaned and zero ones left out', () => {
    const first = transfer(3_000_000n, true);
    const orphaned = { ...transfer(5_000_000n, true), orphaned: true };
    const zero = transfer(0n, true);
    const second = transfer(7_000_000n, false);
    const v = view([second, zero, orphaned, first], BEFORE);
    expect(v.transfers).toEqual([
      {
        txid: first.txHash,
        amountBaseUnits: 3_000_000n,
        final: true,
        url: `https://polygonscan.com/tx/${first.txHash}`,
      },
      {
        txid: second.txHash,
        amountBaseUnits: 7_000_000n,
        final: false,
        url: `https://polygonscan.com/tx/${second.txHash}`,
      },
    ]);
    expect(checkoutStatusJson(v).transfers).toEqual([
      {
        txid: first.txHash,
        amount: '3.00',
        final: true,
        tx_url: `https://polygonscan.com/tx/${first.txHash}`,
      },
      {
        txid: second.txHash,
        amount: '7.00',
        final: false,
        tx_url: `https://polygonscan.com/tx/${second.txHash}`,
      },
    ]);
  });

  it('states an overpayment from final transfers only', () => {
    expect(checkoutStatusJson(view([transfer(13_500_000n, true)], BEFORE)).amount_overpaid).toBe('3.50');
    expect(view([transfer(10_000_000n, true)], BEFORE).overpaidBaseUnits).toBe(0n);
    // Not final yet: nothing is stated until it is.
    expect(view([transfer(10_000_000n, true), transfer(5_000_000n, false)], BEFORE).overpaidBaseUnits).toBe(
      0n,
    );
  });

  it('has no rate for a USDC price (it converts at exactly 1)', () => {
    expect(view([], BEFORE).rate).toBeNull();
  });

  it('links the explorer of each network, and none on the sandbox', () => {
    expect(explorerTxUrl('https://amoy.polygonscan.com', '0xab')).toBe(
      'https://amoy.polygonscan.com/tx/0xab',
    );
    expect(explorerTxUrl('https://polygonscan.com///', '0xab')).toBe('https://polygonscan.com/tx/0xab');
    expect(explorerTxUrl('', '0xab')).toBeNull();
  });
});

describe('checkoutView networks', () => {
  it('asks for what is due on each network: that chain id and its USDC, the same address', () => {
    const v = view([transfer(4_000_000n, true)], BEFORE, 0, [NETWORK, BASE]);
    const due = v.requiredBaseUnits - 4_000_000n;
    expect(v.offers.map((o) => o.paymentLink)).toEqual([
      `ethereum:${DEPOSIT.tokenAddress}@137/transfer?address=${DEPOSIT.depositAddress}&uint256=${due}`,
      `ethereum:${BASE.usdcAddress}@8453/transfer?address=${DEPOSIT.depositAddress}&uint256=${due}`,
    ]);
    // The home request stays the one the page and the API always had.
    expect(v.paymentLink).toBe(v.offers[0]?.paymentLink);
    expect(checkoutStatusJson(v).networks).toEqual([
      { chain_id: 137, payment_link: v.offers[0]?.paymentLink },
      { chain_id: 8453, payment_link: v.offers[1]?.paymentLink },
    ]);
  });

  it('links each transfer to the explorer of the chain it was sent on', () => {
    const onBase = { ...transfer(1_000_000n, true), chainId: 8453 };
    const onHome = transfer(1_000_000n, false);
    const v = view([onBase, onHome], BEFORE, 0, [NETWORK, BASE]);
    expect(v.transfers.map((t) => t.url)).toEqual([
      `https://basescan.org/tx/${onBase.txHash}`,
      `https://polygonscan.com/tx/${onHome.txHash}`,
    ]);
  });

  it('links the transaction that completed the payment to the explorer of its own chain (decision 0039)', () => {
    const onBase = { ...transfer(10_000_000n, true), chainId: 8453 };
    const paidOnBase = view([onBase], BEFORE, 0, [NETWORK, BASE]);
    expect(paidOnBase).toMatchObject({ status: 'paid', txid: onBase.txHash });
    expect(paidOnBase.txUrl).toBe(`https://basescan.org/tx/${onBase.txHash}`);
    const onHome = transfer(10_000_000n, true);
    expect(view([onHome], BEFORE, 0, [NETWORK, BASE]).txUrl).toBe(
      `https://polygonscan.com/tx/${onHome.txHash}`,
    );
  });

  it('refuses a list that does not start with the payment’s own chain', () => {
    expect(() => view([], BEFORE, 0, [BASE, NETWORK])).toThrow(/payment’s own/);
  });
});

describe('checkoutView return link', () => {
  it('sends the customer to the success_url with the payment id, ahead of the older return_url', () => {
    const withUrls: Payment = {
      ...payment(),
      returnUrl: 'https://shop.example/old',
      successUrl: 'https://shop.example/thanks?o=1',
      cancelUrl: 'https://shop.example/cart',
    };
    const state = derivePaymentState(
      { requiredBaseUnits: withUrls.quote.usdcBaseUnits, underpaymentToleranceBps: 0, expiresAt: EXPIRES },
      [],
      BEFORE,
    );
    const input = {
      deposit: DEPOSIT,
      state,
      transfers: [],
      merchantName: 'Shop',
      networks: [NETWORK],
      now: BEFORE,
    };
    expect(checkoutView({ ...input, payment: withUrls })).toMatchObject({
      returnUrl: `https://shop.example/thanks?o=1&payment_id=${withUrls.id}`,
      cancelUrl: `https://shop.example/cart?payment_id=${withUrls.id}`,
    });
    expect(checkoutView({ ...input, payment: { ...withUrls, successUrl: null } }).returnUrl).toBe(
      'https://shop.example/old',
    );
  });
});
