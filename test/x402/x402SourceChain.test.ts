/**
 * An x402 call paid on a source chain (decision 0059, with 0028, 0029 and 0032), on two real anvil nodes wired with
 * CCTP v2: "Polygon" (137, the home chain) and "Base" (8453, a source chain with a gasless relayer of its own). The
 * merchant's x402 address is one version 3 forwarder, the same address on both: /supported offers both networks
 * with it, /verify and /settle check and relay against Base's USDC through Base's relayer, and the money then takes
 * the bridge path every payment paid on Base takes — credited by Base's watcher, burnt, attested, minted to the
 * same address on Polygon and flushed there with the commission split on chain.
 */
import { randomBytes } from 'node:crypto';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainReader, createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { depositPlanner } from '../../src/adapters/chain/depositPlanner.ts';
import { authorizationChain, readAuthorizationDomain } from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import { x402Repository } from '../../src/adapters/db/x402Repository.ts';
import { attestOnce } from '../../src/app/bridge/attestStep.ts';
import { burnOnce } from '../../src/app/bridge/burnStep.ts';
import type { SourceBridgeOptions } from '../../src/app/bridge/options.ts';
import { pollChainOnce } from '../../src/app/chain/watchChain.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import { createMerchant } from '../../src/app/merchants/merchantAdmin.ts';
import { recordMinedCall, settleX402, type X402SettleDeps } from '../../src/app/x402/settlePayment.ts';
import {
  supportedKinds,
  verifyX402,
  type X402Chain,
  type X402Payment,
} from '../../src/app/x402/verifyPayment.ts';
import type { Merchant } from '../../src/domain/merchant.ts';
import { DEFAULT_PAYOUT_POLICY } from '../../src/domain/payout.ts';
import type { TransferAuthorization } from '../../src/domain/transferAuthorization.ts';
import { createStores } from '../../src/main/wiring.ts';
import { ANVIL_MNEMONIC } from '../helpers/anvil.ts';
import { bridgeWorker, mined, mintAndFlush, usdcOf } from '../helpers/bridgeWorker.ts';
import { type CctpChain, type CctpChains, CIRCLE, startCctpChains } from '../helpers/cctpChains.ts';
import { TestClock } from '../helpers/clock.ts';
import { alignChainClocks, HOME_SETTLE_OPTIONS, sourceWatch } from '../helpers/crossChainScene.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

const PRICE = 1_000_000n; // 1 USDC
const CONFIRMATIONS = { fast: 1, standard: 2 };
/** Base's gasless relayer (anvil's accounts 0 and 1 are Circle and the bridge's relayer), and the payer. */
const GASLESS_RELAYER = 2;
const PAYER = 3;
const gaslessRelayerKey: Hex = toHex(
  mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: GASLESS_RELAYER }).getHdKey().privateKey!,
);
const randomAddress = (): Address => getAddress(toHex(randomBytes(20)));

let net: CctpChains;
let polygon: CctpChain;
let base: CctpChain;

beforeAll(async () => {
  net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: 10 },
    ],
    { confirmations: CONFIRMATIONS, fastFeeBps: 1 },
  );
  polygon = net.chain('polygon');
  base = net.chain('base');
}, 120_000);
afterAll(async () => {
  await net?.stop();
});

/** The facilitator's view of a chain: its USDC and its gasless relayer. */
function x402Chain(chain: CctpChain): X402Chain {
  const relayerAddress = privateKeyToAccount(gaslessRelayerKey).address;
  return {
    ...authorizationChain(chain.anvil.publicClient, chain.chainId, relayerAddress),
    tokenAddress: chain.cctp.usdc,
    relayerAddress,
  };
}

describe.each(dialects)('an x402 call paid on a source chain, on %s', (dialect) => {
  let database: TestDatabase;
  let clock: TestClock;
  let merchant: Merchant;
  let facilitator: X402SettleDeps;
  const treasury = randomAddress();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const stores = createStores(database.handle);
    clock = new TestClock(await alignChainClocks([polygon, base]));
    const { logger } = capturingLogger();
    ({ merchant } = await createMerchant(
      { merchants: stores.merchants, clock, webhookAllowPrivate: true },
      { name: 'Metered API', wallet: randomAddress(), commissionPercent: '2.5' },
    ));
    const x402 = x402Repository(database.handle);
    // Base's gasless relayer, as the worker runs it there: it reports what it mined, and the call is paid.
    const baseRelaying: RelayAuthorizationsDeps = {
      gasless: gaslessRepository(database.handle),
      chain: authorizationChain(
        base.anvil.publicClient,
        base.chainId,
        privateKeyToAccount(gaslessRelayerKey).address,
      ),
      relayer: createRelayer({
        client: createRpcClient([base.anvil.rpcUrl]),
        chainId: base.chainId,
        relayerKey: gaslessRelayerKey,
      }),
      payments: stores.payments,
      ledger: stores.ledger,
      clock,
      logger,
      onMined: (authorization) =>
        recordMinedCall({ x402, clock, payoutPolicy: DEFAULT_PAYOUT_POLICY }, authorization),
    };
    facilitator = {
      x402,
      modes: {
        live: {
          planner: depositPlanner({
            chainId: polygon.chainId,
            tokenAddress: polygon.cctp.usdc,
            factoryAddress: net.factories.polygon!.factory,
            treasuryAddress: treasury,
            forwarderVersion: 3,
          }),
          chains: [x402Chain(polygon), x402Chain(base)],
        },
      },
      clock,
      payoutPolicy: DEFAULT_PAYOUT_POLICY,
      settleTimeoutMs: 30_000,
      pollIntervalMs: 100,
      sleep: async (ms) => {
        await relayOnce(baseRelaying);
        clock.advance(ms);
      },
    };
  }, 60_000);
  afterAll(() => database?.drop());

  const sourceOptions: SourceBridgeOptions = {
    homeChainId: 137,
    tokenAddress: '',
    speed: 'standard',
    maxFeeBps: 10,
    fastConfirmations: 1,
    dustThresholdBaseUnits: DEFAULT_PAYOUT_POLICY.dustThresholdBaseUnits,
    relayerLowBalanceWei: 10n ** 18n,
    attestationPollMs: 2_000,
    attestationExpectedMs: 60_000,
  };

  /** The payer's authorization of the price to `payTo` on Base's USDC, with the requirements it pays. */
  async function paymentOnBase(payTo: string, network = `eip155:${base.chainId}`): Promise<X402Payment> {
    const payer = base.anvil.wallet(PAYER);
    const nowS = BigInt(Math.floor(clock.now().getTime() / 1000));
    const authorization: TransferAuthorization = {
      from: payer.account.address.toLowerCase(),
      to: payTo.toLowerCase(),
      valueBaseUnits: PRICE,
      validAfter: nowS - 600n,
      validBefore: nowS + 300n,
      nonce: toHex(randomBytes(32)),
    };
    const domain = (await readAuthorizationDomain(base.anvil.publicClient, base.cctp.usdc, base.chainId))!;
    const requirements = { scheme: 'exact', network, asset: base.cctp.usdc, amountBaseUnits: PRICE, payTo };
    return {
      requirements,
      accepted: requirements,
      authorization,
      signature: await signAuthorization(payer, domain, authorization),
    };
  }

  it('offers Base at the same payTo; a call paid there is relayed by Base’s relayer, bridged home and flushed split', async () => {
    const caller = { merchant, mode: 'live' as const };
    const watch = await sourceWatch(base, polygon, net.factories.polygon!.factory);
    const { kinds } = await supportedKinds(facilitator, caller);
    expect(kinds.map((kind) => kind.network)).toEqual(['eip155:137', 'eip155:8453']);
    const payTo = kinds[0]!.extra.payTo;
    expect(kinds[1]!.extra).toMatchObject({ payTo, asset: base.cctp.usdc });

    // The payer holds USDC on Base, and no gas.
    await mined(
      base,
      await base.anvil.wallet(CIRCLE).writeContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [base.anvil.wallet(PAYER).account.address, PRICE],
      }),
    );
    // Signed on Base and named for Polygon: refused. (The test chains' USDC share one address, so it is the
    // signature, over Base's EIP-712 domain and chain id, that does not hold on Polygon.)
    const elsewhere = await verifyX402(facilitator, caller, await paymentOnBase(payTo, 'eip155:137'));
    expect(elsewhere.verdict).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });

    const payment = await paymentOnBase(payTo);
    expect((await verifyX402(facilitator, caller, payment)).verdict).toMatchObject({ isValid: true });
    const settled = await settleX402(facilitator, caller, payment);
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', amount: PRICE.toString() });
    expect(await usdcOf(base, payTo)).toBe(PRICE);
    const call = (await facilitator.x402.findCall(
      base.chainId,
      base.cctp.usdc,
      payment.authorization.from,
      payment.authorization.nonce,
    ))!;
    expect(call.payment).toMatchObject({ status: 'paid', txid: settled.transaction });
    expect(call.network).toBe('eip155:8453');

    // Base's watcher credits the x402 address there, as it credits any version 3 deposit address.
    await base.anvil.testClient.mine({ blocks: 3 });
    const reader = chainReader(createRpcClient([base.anvil.rpcUrl]), {
      kind: 'confirmations',
      confirmations: 2,
    });
    const { logger } = capturingLogger();
    await pollChainOnce(
      { ledger: createStores(database.handle).ledger, chain: reader, clock, logger },
      watch,
    );

    // Burnt on Base, attested, minted to the same address on Polygon and flushed there.
    const worker = bridgeWorker({
      handle: database.handle,
      clock,
      home: polygon,
      source: base,
      attestationUrl: net.attestation.url,
    });
    const options = { ...sourceOptions, tokenAddress: base.cctp.usdc };
    const sent = await burnOnce(worker.source, options);
    if (sent.kind !== 'sent') throw new Error(`expected a burn sent, got ${sent.kind}`);
    await mined(base, sent.txHash as Hex);
    expect((await burnOnce(worker.source, options)).kind).toBe('burnt');
    await base.anvil.testClient.mine({ blocks: CONFIRMATIONS.standard });
    clock.advance(60_000);
    expect((await attestOnce(worker.source, options)).attested).toHaveLength(1);
    await mintAndFlush(worker, polygon, HOME_SETTLE_OPTIONS);

    const commission = (PRICE * 250n) / 10_000n;
    expect(await usdcOf(polygon, merchant.walletAddress!)).toBe(PRICE - commission);
    expect(await usdcOf(polygon, treasury)).toBe(commission);
    expect(await usdcOf(base, payTo)).toBe(0n);
    expect(await usdcOf(polygon, payTo)).toBe(0n);
  });
});
