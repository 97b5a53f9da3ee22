import { randomBytes } from 'node:crypto';
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  toHex,
} from 'viem';
import { spawnAnvil } from '../src/adapters/chain/anvilProcess.ts';
import { subscriptionChargerAbi, testUsdcAbi } from '../src/adapters/chain/contractAbis.ts';
import { deploySubscriptionCharger, deployTestUsdc } from '../src/adapters/chain/deployContracts.ts';
import { type MandateTerms, mandateDomain, mandateTypedData } from '../src/domain/subscriptionMandate.ts';
import { SANDBOX_ACCOUNTS, sandboxAccount, sandboxChain } from '../src/sandbox/chain.ts';
import { freePort } from '../test/helpers/net.ts';
import { deployPackedUsdc } from './packedUsdc.ts';
import { fmt, isMain } from './support.ts';

/**
 * Gas of one pull renewal charge (SubscriptionCharger.charge, decision 0061: the customer's 10.00 USDC split
 * between the merchant and the treasury at 2.5 %) against a plain USDC `transferFrom` of the same amount by a
 * spender in the same run (goal: at most 1.6×). Both pay a merchant and a treasury that already hold USDC, as
 * they do after a first payment. The first charge of a mandate also checks the customer's signature and writes its
 * state's slot for the first time; every later period reads and rewrites it. On the two tokens of the settlement
 * bench: Circle's FiatToken v2.2 profile (what production pays) and the sandbox's TestUSDC.
 */
const AMOUNT = 10_000_000n;
const MONTH_START = BigInt(Date.parse('2030-01-31T10:00:00Z') / 1000);

export async function runPullChargeGasBench(): Promise<string[]> {
  const node = await spawnAnvil({ port: await freePort(), chainId: 31337, args: ['--silent'] });
  try {
    const chain = sandboxChain(node.rpcUrl);
    const transport = http(node.rpcUrl);
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 }) as PublicClient;
    const testClient = createTestClient({ mode: 'anvil', chain, transport });
    const wallet = (index: number) =>
      createWalletClient({ account: sandboxAccount(index), chain, transport });
    const relayer = wallet(SANDBOX_ACCOUNTS.relayer);
    const customer = wallet(SANDBOX_ACCOUNTS.customer);
    const mined = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt.gasUsed;
    };
    const charger = await deploySubscriptionCharger(relayer, publicClient);
    const domain = mandateDomain(chain.id, charger);
    const tokens: [string, Address][] = [
      [
        "Circle's FiatToken v2.2 profile",
        await deployPackedUsdc(relayer, publicClient, sandboxAccount(3).address),
      ],
      ['TestUSDC', await deployTestUsdc(relayer, publicClient)],
    ];
    let month = 0;
    const lines: string[] = [];
    for (const [title, usdc] of tokens) {
      const write = (from: typeof relayer, functionName: string, args: readonly unknown[]) =>
        from.writeContract({ address: usdc, abi: testUsdcAbi, functionName, args } as never);
      const [merchant, treasury] = [randomAddress(), randomAddress()];
      for (const holder of [merchant, treasury]) await mined(await write(relayer, 'mint', [holder, 1n]));
      await mined(await write(relayer, 'mint', [customer.account.address, 1_000n * AMOUNT]));
      // Allowances that stay non-zero after every spend, as a year's grant does.
      await mined(await write(customer, 'approve', [relayer.account.address, 100n * AMOUNT]));
      await mined(await write(customer, 'approve', [charger, 100n * AMOUNT]));
      const transferFrom = await mined(
        await write(relayer, 'transferFrom', [customer.account.address, merchant, AMOUNT]),
      );
      const terms: MandateTerms = {
        customer: customer.account.address,
        merchant,
        treasury,
        feeBps: 250,
        token: usdc,
        cap: AMOUNT,
        periodSeconds: 0,
        periodMonths: 1,
        start: MONTH_START,
        periods: 0,
        end: 0n,
        salt: toHex(randomBytes(32)),
      };
      const signature = await customer.signTypedData(mandateTypedData(domain, terms));
      // Each charge in the next month of the one chain (its clock only moves forward): the 15th of month m + 2
      // is in period m of terms starting Jan 31.
      const chargeIn = async (sig: Hex) => {
        const period = BigInt(month);
        const inMonth = String(month++ + 2).padStart(2, '0');
        await testClient.setNextBlockTimestamp({
          timestamp: BigInt(Date.parse(`2030-${inMonth}-15T00:00:00Z`) / 1000),
        });
        return mined(
          await relayer.writeContract({
            address: charger,
            abi: subscriptionChargerAbi,
            functionName: 'charge',
            args: [terms, sig, period, AMOUNT],
          }),
        );
      };
      const first = await chargeIn(signature);
      const later = await chargeIn('0x');
      const ratio = (gas: bigint) => fmt(Number(gas) / Number(transferFrom), 3);
      lines.push(
        `  ${title}`,
        `    plain transferFrom of 10.00 USDC by a spender: ${fmt(Number(transferFrom))}`,
        `    pull charge, a later period: ${fmt(Number(later))}   /transferFrom ${ratio(later)}   (goal ≤ 1.6)`,
        `    pull charge, the mandate's first (signature checked, state written): ${fmt(Number(first))}   /transferFrom ${ratio(first)}`,
      );
    }
    return lines;
  } finally {
    await node.stop();
  }
}

function randomAddress(): Address {
  return getAddress(toHex(randomBytes(20)));
}

if (isMain(import.meta.url)) {
  for (const line of await runPullChargeGasBench()) process.stdout.write(`${line}\n`);
}
