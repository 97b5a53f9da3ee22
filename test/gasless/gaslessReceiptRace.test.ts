/**
 * The gasless relayer behind an RPC that answers "no receipt" for its own transfer after it was mined, as a node
 * lagging behind a load balancer does (decision 0040): a real anvil behind a local JSON-RPC proxy
 * (test/helpers/rpcProxy.ts) that withholds receipt answers for one hash. The transfer is recorded mined, with its
 * fee, counted in the hourly cap; only a nonce really taken by another transaction fails it.
 */
import { randomBytes } from 'node:crypto';
import { type Hex, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/adapters/chain/chainReader.ts';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { authorizationChain, readAuthorizationDomain } from '../../src/adapters/chain/eip3009.ts';
import { createRelayer } from '../../src/adapters/chain/relayer.ts';
import { gaslessRepository } from '../../src/adapters/db/gaslessRepository.ts';
import {
  type AcceptAuthorizationDeps,
  acceptAuthorization,
} from '../../src/app/gasless/acceptAuthorization.ts';
import type { GaslessAuthorization } from '../../src/app/gasless/ports.ts';
import { type RelayAuthorizationsDeps, relayOnce } from '../../src/app/gasless/relayAuthorizations.ts';
import type { Payment } from '../../src/domain/payment.ts';
import type { AuthorizationDomain, TransferAuthorization } from '../../src/domain/transferAuthorization.ts';
import { sandboxPrivateKey } from '../../src/sandbox/chain.ts';
import { type ChainHarness, ROLES, startChainHarness } from '../helpers/chainHarness.ts';
import { dialects } from '../helpers/database.ts';
import { capturingLogger } from '../helpers/logCapture.ts';
import { type RpcProxy, startRpcProxy } from '../helpers/rpcProxy.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

/** Anvil account 5: the gasless relayer's own key, as in test/gasless/gasless.test.ts. */
const GASLESS_RELAYER = 5;

describe.each(dialects)('the gasless relayer when a receipt read lags behind the nonce, on %s', (dialect) => {
  let h: ChainHarness;
  let proxy: RpcProxy;
  let accepting: AcceptAuthorizationDeps;
  let relaying: RelayAuthorizationsDeps;
  let domain: AuthorizationDomain;
  beforeEach(async () => {
    h = await startChainHarness(dialect);
    proxy = await startRpcProxy(h.anvil.rpcUrl);
    // Every read and write of the relayer, as the worker wires it, goes through the proxy.
    const client = createRpcClient([proxy.url]);
    const relayer = createRelayer({
      client,
      chainId: h.anvil.chain.id,
      relayerKey: sandboxPrivateKey(GASLESS_RELAYER),
    });
    const chain = authorizationChain(client, h.anvil.chain.id, relayer.address);
    const gasless = gaslessRepository(h.database.handle);
    accepting = {
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      gasless,
      chains: [chain],
      clock: h.clock,
      minValueBaseUnits: 500_000n,
    };
    relaying = {
      gasless,
      chain,
      relayer,
      payments: h.stores.payments,
      ledger: h.stores.ledger,
      clock: h.clock,
      logger: capturingLogger().logger,
    };
    domain = (await readAuthorizationDomain(h.anvil.publicClient, h.usdc, h.anvil.chain.id))!;
  });
  afterEach(async () => {
    await proxy.close();
    await h.close();
  });

  /** A customer who holds USDC and no POL, and signs for the whole payment. */
  const signedFor = async (payment: Payment) => {
    const customer = privateKeyToAccount(generatePrivateKey());
    const minted = await h.anvil.wallet(ROLES.relayer).writeContract({
      address: h.usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [customer.address, payment.quote.usdcBaseUnits],
    });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash: minted });
    const authorization: TransferAuthorization = {
      from: customer.address.toLowerCase(),
      to: payment.deposit!.depositAddress.toLowerCase(),
      valueBaseUnits: payment.quote.usdcBaseUnits,
      validAfter: 0n,
      validBefore: BigInt(payment.expiresAt.getTime() / 1000),
      nonce: toHex(randomBytes(32)),
    };
    const signature = await signAuthorization(customer, domain, authorization);
    return acceptAuthorization(accepting, {
      paymentId: payment.id,
      authorization,
      signature,
      clientAddress: '198.51.100.4',
    });
  };
  /** Sends the waiting authorization with the receipt answers for it withheld `times` times, and waits for its block. */
  const sendWithheld = async (times: number) => {
    const sent = await relayOnce(relaying);
    if (sent.kind !== 'sent') throw new Error(`expected a transaction sent, not ${sent.kind}`);
    proxy.withholdReceipt(sent.txHash, times);
    const receipt = await h.anvil.publicClient.waitForTransactionReceipt({ hash: sent.txHash as Hex });
    expect(receipt.status).toBe('success');
    return { sent, receipt };
  };
  /** Persists the signed transfer, as a process killed before broadcasting it leaves it: never on chain. */
  const persistUnsent = async () => {
    const crashing = {
      ...relaying,
      relayer: {
        ...relaying.relayer,
        broadcast: async () => {
          throw new Error('process killed before broadcasting');
        },
      },
    };
    await expect(relayOnce(crashing)).rejects.toThrow('process killed');
  };
  /** Another transaction of the gasless relayer's key takes the next nonce (an operator's, another process's). */
  const takeRelayerNonce = async () => {
    const wallet = h.anvil.wallet(GASLESS_RELAYER);
    const hash = await wallet.sendTransaction({ to: wallet.account.address, value: 0n });
    await h.anvil.publicClient.waitForTransactionReceipt({ hash });
  };
  const recordOf = async (payment: Payment): Promise<GaslessAuthorization> => {
    const [record] = await relaying.gasless.listForPayment(payment.id);
    return record!;
  };

  it('records the transfer mined, with its fee, when the first receipt read after mining answers none', async () => {
    const payment = await h.createPayment('27');
    const accepted = await signedFor(payment);
    const { sent, receipt } = await sendWithheld(1);

    const mined = await relayOnce(relaying);
    expect(proxy.withheld(sent.txHash)).toBe(1); // the first read did answer "no receipt"
    const feeWei = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(mined).toEqual({ kind: 'mined', id: accepted.id, feeWei });
    expect(await recordOf(payment)).toMatchObject({
      status: 'mined',
      gasUsed: receipt.gasUsed,
      feeWei,
      failureReason: null,
    });
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(27_000_000n);

    // Its fee is counted in the hour: with a cap of exactly that fee, the next payer waits.
    const waiting = await signedFor(await h.createPayment('27'));
    expect(await relayOnce(relaying, { maxFeeWeiPerHour: feeWei })).toEqual({
      kind: 'capped',
      id: waiting.id,
      spentWei: feeWei,
    });
    expect(await relayOnce(relaying, { maxFeeWeiPerHour: feeWei + 1n })).toMatchObject({ kind: 'sent' });
  });

  it('waits for the receipt of a transfer in a block while both reads answer none, then records it mined', async () => {
    const payment = await h.createPayment('27');
    const accepted = await signedFor(payment);
    const { sent, receipt } = await sendWithheld(2);
    const rawTx = (await recordOf(payment)).rawTx;

    expect(await relayOnce(relaying)).toEqual({ kind: 'awaiting-receipt', id: accepted.id });
    expect(proxy.withheld(sent.txHash)).toBe(2);
    expect(await recordOf(payment)).toMatchObject({ status: 'sent', rawTx, feeWei: null });

    expect(await relayOnce(relaying)).toEqual({
      kind: 'mined',
      id: accepted.id,
      feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
    });
    expect(await recordOf(payment)).toMatchObject({ status: 'mined', gasUsed: receipt.gasUsed });
  });

  it('still fails, with no fee, a transfer whose nonce another transaction really took', async () => {
    const payment = await h.createPayment('27');
    const accepted = await signedFor(payment);
    await persistUnsent();
    const persisted = await recordOf(payment);
    await takeRelayerNonce();

    const reason = `nonce ${persisted.relayerNonce} was used by a transaction that is not this one`;
    expect(await relayOnce(relaying)).toEqual({ kind: 'failed', id: accepted.id, reason });
    expect(await recordOf(payment)).toMatchObject({
      status: 'failed',
      failureReason: reason,
      feeWei: null,
      gasUsed: null,
    });
    // Its own transaction never reached the chain, nor therefore the customer's money.
    expect(
      await h.anvil.publicClient.getTransactionReceipt({ hash: persisted.txHash as Hex }).catch(() => null),
    ).toBe(null);
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(0n);
    expect(await relayOnce(relaying)).toEqual({ kind: 'idle' });
  });

  it('records mined by the other transaction, at no fee, a transfer whose nonce and authorization were both taken by other transactions', async () => {
    const payment = await h.createPayment('27');
    const accepted = await signedFor(payment);
    await persistUnsent();
    const persisted = await recordOf(payment);
    // Someone else submits the customer's authorization (the money arrives), and the relayer's nonce goes too.
    const submitted = await h.anvil.wallet(ROLES.relayer).sendTransaction({
      to: h.usdc,
      data: relaying.chain.callData(persisted, persisted.signature) as Hex,
    });
    expect((await h.anvil.publicClient.waitForTransactionReceipt({ hash: submitted })).status).toBe(
      'success',
    );
    await takeRelayerNonce();

    // The customer's money arrived as signed, by the other transaction: that is what the record says (decision 0059).
    expect(await relayOnce(relaying)).toEqual({ kind: 'mined', id: accepted.id, feeWei: 0n });
    expect(await recordOf(payment)).toMatchObject({
      status: 'mined',
      txHash: submitted.toLowerCase(),
      failureReason: null,
      feeWei: null,
    });
    expect(await h.balanceOf(payment.deposit!.depositAddress)).toBe(27_000_000n);
  });
});
