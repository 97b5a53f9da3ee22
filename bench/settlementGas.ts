import { randomBytes, randomUUID } from 'node:crypto';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  toHex,
} from 'viem';
import { spawnAnvil } from '../src/adapters/chain/anvilProcess.ts';
import {
  forwarderFactoryV1Abi,
  forwarderFactoryV2Abi,
  forwarderFactoryV3Abi,
  testUsdcAbi,
} from '../src/adapters/chain/contractAbis.ts';
import {
  type DeployWalletClient,
  deployFactory,
  deployTestUsdc,
  type ForwarderVersion,
} from '../src/adapters/chain/deployContracts.ts';
import {
  type ForwarderParams,
  predictDepositAddress,
  toForwarderStruct,
} from '../src/adapters/chain/forwarder.ts';
import { deployFactoryV3 } from '../src/adapters/chain/multiChainFactory.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxChain } from '../src/sandbox/chain.ts';
import { freePort } from '../test/helpers/net.ts';
import { deployPackedUsdc } from './packedUsdc.ts';
import { fmt, isMain } from './support.ts';

/**
 * Gas of one settlement per payment — deploying a new forwarder and flushing one USDC deposit to the merchant and
 * the treasury — alone and in a batch of 50, for forwarder version 2 against version 1 in the same run (the
 * baseline; goal: version 2 at most 5 % over it). Gas is deterministic: one run of each is the figure.
 * Measured on two tokens, each against a plain transfer of it in the same run: first one with the cost profile of
 * Circle's native USDC (FiatToken v2.2 behind its proxy: bench/packedUsdc.ts), what production pays; then the
 * sandbox's TestUSDC, whose figures the earlier decisions quote (0031).
 * Also, for information, what version 2 costs when one share is held back (the treasury blacklisted).
 *
 * Then version 3 (a bare 45-byte clone, its params in calldata: decision 0031) per payment in a batch of 50 over 5
 * merchants, deploying the forwarders and again once deployed, against the goal of 70k and against today's
 * settlement (version 2's `flushBatch`) in the same run: `flushBatchDeploying` (the settler says which forwarders
 * are new: no code probe, no deploy event) and the probing `flushBatch`.
 */
const BATCH = 50;
const PAYOUT_GOAL = 70_000n;
/** 27.00 USDC at 1 %: a whole-cent amount, as payments priced in fiat are. */
const DEPOSIT_BASE_UNITS = 27_000_000n;
const FEE_BPS = 100;

type Clients = {
  publicClient: PublicClient;
  owner: DeployWalletClient;
  mined: (hash: Hex) => Promise<{ gasUsed: bigint }>;
};
type Factories = Record<ForwarderVersion | 3, { factory: Address; implementation: Address }>;

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
    const mined = async (hash: Hex) => {
      // A batch of 50 deploys takes anvil a while on a busy machine: wait for it rather than time out.
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 300_000 });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    const clients: Clients = { publicClient: publicClient as PublicClient, owner, mined };
    // Native USDC's profile (decision 0038): FiatToken v2.2's packed balance and blacklist behind a proxy, whose
    // admin is an account of its own.
    const packed = await deployPackedUsdc(owner, publicClient as PublicClient, sandboxAccount(3).address);
    const plain = await deployTestUsdc(owner, publicClient);
    const factories: Factories = {
      1: await deployFactory(owner, publicClient, 1),
      2: await deployFactory(owner, publicClient, 2),
      // This chain as the home chain of version 3's table: its forwarders flush USDC here (the row's token and
      // messenger are informative on the home chain: one factory serves both tokens).
      3: await deployFactoryV3(owner, publicClient, [
        { chainId: chain.id, domain: 7, usdc: plain, tokenMessenger: plain, maxBurnFeeBps: 0 },
      ]),
    };
    return [
      ...(await benchToken(
        clients,
        factories,
        packed,
        "Circle's FiatToken v2.2 profile (TestPackedUSDC behind TestTokenProxy)",
      )),
      ...(await benchToken(
        clients,
        factories,
        plain,
        'TestUSDC (the sandbox and tests: separate blacklist mapping, no proxy)',
      )),
    ];
  } finally {
    await node.stop();
  }
}

/** Every figure on one token, each also as a ratio to a plain transfer of that token in the same run. */
async function benchToken(
  { owner, mined }: Clients,
  factories: Factories,
  usdc: Address,
  title: string,
): Promise<string[]> {
  const treasury = randomAddress();
  const write = (functionName: 'mint' | 'blacklist' | 'transfer', args: readonly unknown[]) =>
    owner.writeContract({ address: usdc, abi: testUsdcAbi, functionName, args } as never);
  /**
   * Gas per payment of one batch over `count` new forwarders, each holding one deposit, whose merchants are
   * `merchants` new addresses taken in turn.
   */
  const gasPerPayment = async (
    version: ForwarderVersion | 3,
    count: number,
    {
      merchants = count,
      deployedToo = false,
      sayNew = false,
    }: { merchants?: number; deployedToo?: boolean; sayNew?: boolean } = {},
  ): Promise<{ first: bigint; again: bigint }> => {
    const { factory, implementation } = factories[version];
    const merchantAddresses = Array.from({ length: merchants }, randomAddress);
    const batch: ForwarderParams[] = Array.from({ length: count }, (_, i) => ({
      merchant: merchantAddresses[i % merchants]!,
      treasury,
      feeBps: FEE_BPS,
      paymentId: randomUUID(),
    }));
    const abi = { 1: forwarderFactoryV1Abi, 2: forwarderFactoryV2Abi, 3: forwarderFactoryV3Abi }[version];
    const settle = async (allNew: boolean) => {
      for (const params of batch) {
        const deposit = predictDepositAddress({ factory, implementation, params, version });
        await mined(await write('mint', [deposit, DEPOSIT_BASE_UNITS]));
      }
      const structs = batch.map(toForwarderStruct);
      const receipt = await mined(
        sayNew
          ? await owner.writeContract({
              address: factory,
              abi: forwarderFactoryV3Abi,
              functionName: 'flushBatchDeploying',
              args: [structs, usdc, allNew ? (1n << BigInt(count)) - 1n : 0n],
            })
          : await owner.writeContract({
              address: factory,
              abi: abi as typeof forwarderFactoryV3Abi,
              functionName: 'flushBatch',
              args: [structs, usdc],
            }),
      );
      return receipt.gasUsed / BigInt(count);
    };
    const first = await settle(true);
    // The same forwarders paid again: what the settlement costs apart from deploying them.
    return { first, again: deployedToo ? await settle(false) : 0n };
  };

  // The treasury has received commissions before (as in production): no run pays for its first balance write.
  await mined(await write('mint', [treasury, 1n]));
  // The baseline: a customer's plain transfer of a deposit to a new address, and to one that holds some already.
  const customer = owner.account.address;
  await mined(await write('mint', [customer, 10n * DEPOSIT_BASE_UNITS]));
  const transfer = {
    fresh: (await mined(await write('transfer', [randomAddress(), DEPOSIT_BASE_UNITS]))).gasUsed,
    held: (await mined(await write('transfer', [treasury, DEPOSIT_BASE_UNITS]))).gasUsed,
  };
  const once = async (...args: Parameters<typeof gasPerPayment>) => (await gasPerPayment(...args)).first;
  const v1 = { alone: await once(1, 1), batch: await once(1, BATCH) };
  const v2 = { alone: await once(2, 1), batch: await once(2, BATCH) };
  const today = await gasPerPayment(2, BATCH, { merchants: 5, deployedToo: true });
  const v3Probing = await gasPerPayment(3, BATCH, { merchants: 5, deployedToo: true });
  const v3 = await gasPerPayment(3, BATCH, { merchants: 5, deployedToo: true, sayNew: true });
  const v3Alone = await once(3, 1, { sayNew: true });
  await mined(await write('blacklist', [treasury]));
  const held = { alone: await once(2, 1), batch: await once(2, BATCH) };

  const ratio = (a: bigint, b: bigint) => fmt(Number(a) / Number(b), 3);
  const gas = (value: bigint) => fmt(Number(value));
  return [
    `  ${title}`,
    `    baseline, a plain transfer of ${fmt(Number(DEPOSIT_BASE_UNITS) / 1e6, 2)} USDC: to a new address ${gas(transfer.fresh)}, to one holding USDC ${gas(transfer.held)}`,
    '    settlement gas per payment (deploy + flush of one deposit)',
    `      alone:          v1 ${gas(v1.alone)}   v2 ${gas(v2.alone)}   v3 ${gas(v3Alone)}   v2/v1 ${ratio(v2.alone, v1.alone)}   (goal ≤ 1.05)`,
    `      batch of ${BATCH}:    v1 ${gas(v1.batch)}   v2 ${gas(v2.batch)}   v2/v1 ${ratio(v2.batch, v1.batch)}   (goal ≤ 1.05)`,
    `      v2, commission held (treasury blacklisted): alone ${gas(held.alone)}, in a batch ${gas(held.batch)}`,
    `    per payment in a batch of ${BATCH}, 5 merchants, deploying each forwarder / forwarders already deployed`,
    `      v2 flushBatch:              ${gas(today.first)} / ${gas(today.again)}   /transfer ${ratio(today.first, transfer.fresh)} / ${ratio(today.again, transfer.fresh)}`,
    ...(
      [
        ['v3 flushBatchDeploying:', v3],
        ['v3 flushBatch (probing):', v3Probing],
      ] as const
    ).map(
      ([name, figures]) =>
        `      ${name.padEnd(27)} ${gas(figures.first)} / ${gas(figures.again)}` +
        `   /transfer ${ratio(figures.first, transfer.fresh)} / ${ratio(figures.again, transfer.fresh)}` +
        `   /goal ${ratio(figures.first, PAYOUT_GOAL)} / ${ratio(figures.again, PAYOUT_GOAL)}` +
        `   /v2 ${ratio(figures.first, today.first)} / ${ratio(figures.again, today.again)}   (goal: /goal ≤ 1.000)`,
    ),
  ];
}

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

if (isMain(import.meta.url)) {
  for (const line of await runSettlementGasBench()) process.stdout.write(`${line}\n`);
}
