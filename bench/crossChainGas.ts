import { randomBytes, randomUUID } from 'node:crypto';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import { burnAttestation, createAttestationClient } from '../src/adapters/cctp/attestationClient.ts';
import { FINALITY_FAST, FINALITY_STANDARD } from '../src/adapters/cctp/cctpMessage.ts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testUsdcAbi,
} from '../src/adapters/chain/contractAbis.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
} from '../src/adapters/chain/forwarder.ts';
import { type CctpChain, CIRCLE, RELAYER, startCctpChains } from '../test/helpers/cctpChains.ts';
import { fmt, isMain } from './support.ts';

/**
 * Gas of a payment paid on another chain than Polygon (forwarder version 3 through CCTP v2): on the source chain,
 * deploying the forwarder and burning its USDC in one transaction (what the relayer pays there, per payment), or
 * the burn alone for a forwarder already deployed, or many payments' in one `burnBatch`; on Polygon, receiving the message (the mint) and the flush.
 * Measured against the project's CCTP test contracts, which model Circle's checks and message but not its
 * proxies or its separate TokenMinter: Circle's real contracts cost more per burn and per mint (see
 * docs/decisions/0028-one-address-every-chain.md). Gas is deterministic: one run of each is the figure.
 */
const DEPOSIT_BASE_UNITS = 27_000_000n;
const FEE_BPS = 100;
const BATCH = 50;

export async function runCrossChainGasBench(): Promise<string[]> {
  const net = await startCctpChains(
    [
      { name: 'polygon', chainId: 137, domain: 7 },
      { name: 'base', chainId: 8453, domain: 6, maxBurnFeeBps: 10 },
    ],
    { confirmations: { fast: 0, standard: 0 }, fastFeeBps: 1 },
  );
  try {
    const polygon = net.chain('polygon');
    const base = net.chain('base');
    const { factory, implementation } = net.factories.polygon!;
    const treasury = randomAddress();
    const mined = async (chain: CctpChain, hash: Hex) => {
      const receipt = await chain.anvil.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    const fund = async (chain: CctpChain, to: Address) =>
      mined(
        chain,
        await chain.anvil.wallet(CIRCLE).writeContract({
          address: chain.cctp.usdc,
          abi: testUsdcAbi,
          functionName: 'mint',
          args: [to, DEPOSIT_BASE_UNITS],
        }),
      );
    const burn = async (params: ForwarderParams, finality: number) => {
      const maxFee = finality === FINALITY_FAST ? DEPOSIT_BASE_UNITS / 10_000n : 0n;
      return mined(
        base,
        await base.anvil.wallet(RELAYER).writeContract({
          address: factory,
          abi: forwarderFactoryV3Abi,
          functionName: 'deployAndBurn',
          args: [toForwarderStruct(params), DEPOSIT_BASE_UNITS, maxFee, finality],
        }),
      );
    };
    // The treasury has received before on Polygon, as in production.
    await fund(polygon, treasury);

    const params = newParams(treasury);
    const address = predictDepositAddress({ factory, implementation, params, version: 3 });
    await fund(base, address);
    const first = await burn(params, FINALITY_STANDARD);
    await fund(base, address);
    const again = await burn(params, FINALITY_STANDARD);
    const fastParams = newParams(treasury);
    await fund(base, predictDepositAddress({ factory, implementation, params: fastParams, version: 3 }));
    const fast = await burn(fastParams, FINALITY_FAST);

    const batch = Array.from({ length: BATCH }, () => newParams(treasury));
    for (const member of batch)
      await fund(base, predictDepositAddress({ factory, implementation, params: member, version: 3 }));
    const batched = await mined(
      base,
      await base.anvil.wallet(RELAYER).writeContract({
        address: factory,
        abi: forwarderFactoryV3Abi,
        functionName: 'burnBatch',
        args: [
          batch.map((member) => ({
            params: toForwarderStruct(member),
            amount: DEPOSIT_BASE_UNITS,
            maxFee: 0n,
            minFinalityThreshold: FINALITY_STANDARD,
          })),
        ],
      }),
    );

    const found = burnAttestation(
      await createAttestationClient({ baseUrl: net.attestation.url, timeoutMs: 10_000 }).messagesOf(
        base.domain,
        first.transactionHash,
      ),
      { sourceDomain: base.domain, mintRecipient: address, amount: DEPOSIT_BASE_UNITS },
    );
    if (found.state !== 'complete') throw new Error(`the burn was not attested (${found.state})`);
    const minted = await mined(
      polygon,
      await polygon.anvil.wallet(RELAYER).writeContract({
        address: polygon.cctp.messageTransmitter,
        abi: testMessageTransmitterV2Abi,
        functionName: 'receiveMessage',
        args: [found.message.message, found.message.attestation],
      }),
    );
    const flushed = await mined(
      polygon,
      await polygon.anvil.wallet(RELAYER).writeContract({
        address: factory,
        abi: forwarderFactoryV3Abi,
        functionName: 'flushBatch',
        args: [[toForwarderStruct(params)], polygon.cctp.usdc],
      }),
    );
    return [
      `  cross-chain payment of ${fmt(Number(DEPOSIT_BASE_UNITS) / 1e6, 2)} USDC, forwarder v3 over CCTP v2 test contracts`,
      `    source chain, deploy + burn:   standard ${fmt(Number(first.gasUsed))}   fast ${fmt(Number(fast.gasUsed))}`,
      `    source chain, burn only (forwarder already deployed): ${fmt(Number(again.gasUsed))}`,
      `    source chain, deploy + burn in a batch of ${BATCH} (burnBatch): ${fmt(Number(batched.gasUsed / BigInt(BATCH)))} per payment`,
      `    Polygon, receiveMessage (mint): ${fmt(Number(minted.gasUsed))}   deploy + flush: ${fmt(Number(flushed.gasUsed))}`,
    ];
  } finally {
    await net.stop();
  }
}

function newParams(treasury: Address): ForwarderParams {
  return { merchant: randomAddress(), treasury, feeBps: FEE_BPS, paymentId: randomUUID() };
}

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

if (isMain(import.meta.url)) {
  for (const line of await runCrossChainGasBench()) process.stdout.write(`${line}\n`);
}
