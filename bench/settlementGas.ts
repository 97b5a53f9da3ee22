import { randomBytes, randomUUID } from 'node:crypto';
import { type Address, createPublicClient, createWalletClient, getAddress, http, toHex } from 'viem';
import { spawnAnvil } from '../src/adapters/chain/anvilProcess.ts';
import {
  forwarderFactoryV1Abi,
  forwarderFactoryV2Abi,
  testUsdcAbi,
} from '../src/adapters/chain/contractAbis.ts';
import {
  deployFactory,
  deployTestUsdc,
  type ForwarderVersion,
} from '../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
} from '../src/adapters/chain/forwarder.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxChain } from '../src/main/sandboxChain.ts';
import { freePort } from '../test/helpers/net.ts';
import { fmt, isMain } from './support.ts';

/**
 * Gas of one settlement per payment — deploying a new forwarder and flushing one USDC deposit to the merchant and
 * the treasury — alone and in a batch of 50, for forwarder version 2 against version 1 in the same run (the
 * baseline; goal: version 2 at most 5 % over it). Gas is deterministic: one run of each is the figure.
 * Also, for information, what version 2 costs when one share is held back (the treasury blacklisted).
 */
const BATCH = 50;
/** 27.00 USDC at 1 %: a whole-cent amount, as payments priced in fiat are. */
const DEPOSIT_BASE_UNITS = 27_000_000n;
const FEE_BPS = 100;

export async function runSettlementGasBench(): Promise<string[]> {
  const node = await spawnAnvil({ port: await freePort(), chainId: 31337, args: ['--silent'] });
  try {
    const chain = sandboxChain(node.rpcUrl);
    const publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 20 });
    const owner = createWalletClient({
      account: sandboxAccount(SANDBOX_ACCOUNTS.relayer),
      chain,
      transport: http(node.rpcUrl),
    });
    const usdc = await deployTestUsdc(owner, publicClient);
    const factories = {
      1: await deployFactory(owner, publicClient, 1),
      2: await deployFactory(owner, publicClient, 2),
    } as const;
    const treasury = randomAddress();

    const mined = async (hash: `0x${string}`) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    /** Gas per payment of one flushBatch over `count` new forwarders, each holding one deposit. */
    const gasPerPayment = async (version: ForwarderVersion, count: number): Promise<bigint> => {
      const { factory, implementation } = factories[version];
      const batch: ForwarderParams[] = Array.from({ length: count }, () => ({
        merchant: randomAddress(),
        treasury,
        feeBps: FEE_BPS,
        paymentId: randomUUID(),
      }));
      for (const params of batch) {
        const deposit = predictDepositAddress({ factory, implementation, params });
        await mined(
          await owner.writeContract({
            address: usdc,
            abi: testUsdcAbi,
            functionName: 'mint',
            args: [deposit, DEPOSIT_BASE_UNITS],
          }),
        );
      }
      const receipt = await mined(
        await owner.writeContract({
          address: factory,
          abi: version === 1 ? forwarderFactoryV1Abi : forwarderFactoryV2Abi,
          functionName: 'flushBatch',
          args: [batch.map(toForwarderStruct), usdc],
        }),
      );
      return receipt.gasUsed / BigInt(count);
    };

    // The treasury has received commissions before (as in production): no run pays for its first balance write.
    await mined(
      await owner.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [treasury, 1n],
      }),
    );
    const v1 = { alone: await gasPerPayment(1, 1), batch: await gasPerPayment(1, BATCH) };
    const v2 = { alone: await gasPerPayment(2, 1), batch: await gasPerPayment(2, BATCH) };
    await mined(
      await owner.writeContract({
        address: usdc,
        abi: testUsdcAbi,
        functionName: 'blacklist',
        args: [treasury],
      }),
    );
    const held = { alone: await gasPerPayment(2, 1), batch: await gasPerPayment(2, BATCH) };

    const ratio = (a: bigint, b: bigint) => fmt(Number(a) / Number(b), 3);
    return [
      `  settlement gas per payment (deploy + flush of one ${fmt(Number(DEPOSIT_BASE_UNITS) / 1e6, 2)} USDC deposit)`,
      `    alone:          v1 ${fmt(Number(v1.alone))}   v2 ${fmt(Number(v2.alone))}   v2/v1 ${ratio(v2.alone, v1.alone)}   (goal ≤ 1.05)`,
      `    batch of ${BATCH}:    v1 ${fmt(Number(v1.batch))}   v2 ${fmt(Number(v2.batch))}   v2/v1 ${ratio(v2.batch, v1.batch)}   (goal ≤ 1.05)`,
      `    v2, commission held (treasury blacklisted): alone ${fmt(Number(held.alone))}, in a batch ${fmt(Number(held.batch))}`,
    ];
  } finally {
    await node.stop();
  }
}

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

if (isMain(import.meta.url)) {
  for (const line of await runSettlementGasBench()) process.stdout.write(`${line}\n`);
}
