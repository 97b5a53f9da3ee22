import { randomBytes, randomUUID } from 'node:crypto';
import { type Address, getAddress, type Hex, type PublicClient, toHex } from 'viem';
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
import { deployPackedUsdc } from './packedUsdc.ts';
import { fmt, isMain } from './support.ts';

/**
 * Gas of a payment paid on another chain than Polygon (forwarder version 3 through CCTP v2): on the source chain,
 * deploying the forwarder and burning its USDC in one transaction (what the relayer pays there, per payment), or
 * the burn alone for a forwarder already deployed, or many payments' in one `burnBatch`; on Polygon, receiving the message (the mint) and the flush.
 * Measured against the project's CCTP test contracts, which model Circle's checks and message but not its
 * proxies or its separate TokenMinter, with a USDC of native USDC's cost profile (bench/packedUsdc.ts): Circle's
 * real CCTP contracts cost more per burn and per mint (measured on them: deploy + burn about 175k,
 * `receiveMessage` about 172k standard / 203k fast; docs/any-chain.md). The baseline, in the same run: a plain
 * USDC transfer to a new address on the source chain. Gas is deterministic: one run of each is the figure.
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
    {
      confirmations: { fast: 0, standard: 0 },
      fastFeeBps: 1,
      // Native USDC's cost profile: FiatToken v2.2's packed balance and blacklist, behind a proxy (decision 0038).
      deployUsdc: (anvil) =>
        deployPackedUsdc(anvil.wallet(CIRCLE), anvil.publicClient as PublicClient, anvil.addresses[3]!),
    },
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
    // The baseline: a customer's plain transfer of the same amount to a new address, on the source chain.
    // Its sender keeps some USDC, as a customer's wallet does (emptying it would earn a storage refund).
    const circle = base.anvil.addresses[CIRCLE]!;
    await fund(base, circle);
    await fund(base, circle);
    const transfer = await mined(
      base,
      await base.anvil.wallet(CIRCLE).writeContract({
        address: base.cctp.usdc,
        abi: testUsdcAbi,
        functionName: 'transfer',
        args: [randomAddress(), DEPOSIT_BASE_UNITS],
      }),
    );
    const gas = (value: bigint) =>
      `${fmt(Number(value))} (${fmt(Number(value) / Number(transfer.gasUsed), 3)})`;
    return [
      `  cross-chain payment of ${fmt(Number(DEPOSIT_BASE_UNITS) / 1e6, 2)} USDC, forwarder v3 over CCTP v2 test contracts, USDC of native USDC's profile`,
      `    baseline, a plain transfer to a new address: ${fmt(Number(transfer.gasUsed))}; each figure (× that baseline)`,
      `    source chain, deploy + burn:   standard ${gas(first.gasUsed)}   fast ${gas(fast.gasUsed)}   (on Circle's contracts: about 175,000)`,
      `    source chain, burn only (forwarder already deployed): ${gas(again.gasUsed)}`,
      `    source chain, deploy + burn in a batch of ${BATCH} (burnBatch): ${gas(batched.gasUsed / BigInt(BATCH))} per payment`,
      `    Polygon, receiveMessage (mint): ${gas(minted.gasUsed)}   (on Circle's contracts: about 172,000 standard / 203,000 fast)`,
      `    Polygon, deploy + flush: ${gas(flushed.gasUsed)}`,
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
