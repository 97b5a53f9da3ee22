import type { Address, Hex } from 'viem';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc, TEST_TOKENS } from '../../src/adapters/chain/deployContracts.ts';
import { deployFactoryV3 } from '../../src/adapters/chain/multiChainFactory.ts';
import { SANDBOX_ACCOUNTS } from '../../src/main/sandboxChain.ts';
import { type Anvil, type AnvilOptions, reconnectAnvil, startAnvil } from './anvil.ts';
import { atFileEnd } from './fileEnd.ts';

type Contracts = {
  readonly usdc: Address;
  readonly bridgedUsdc: Address;
  readonly factory: Address;
  readonly factoryV1: Address;
  readonly factoryV3: Address;
};

/** The chain of a chain harness (test/helpers/chainHarness.ts): the node, its contracts, the customer funded. */
export type DeployedChain = Contracts & {
  /** This test's clients of the node; `stop()` stops the node for good (a test of a chain gone away). */
  readonly anvil: Anvil;
  /** The test is over: the chain goes back to its state right after the deployment, for the file's next test. */
  release(): Promise<void>;
};

/** What the customer holds of each token at the start: far more than any test pays. */
const CUSTOMER_FUNDS = 1_000_000_000_000n;

/**
 * A chain at the state a new anvil (`finalized` trailing latest by 2 blocks) has once the relayer deployed
 * TestUSDC, its USDC.e stand-in and the factories of versions 2, 1 and 3 (this chain the home of its table) and
 * gave the customer both tokens: the same blocks, transactions and addresses every time.
 *
 * A test file's chains are kept for its next tests (decision 0045): starting a node and deploying took most of
 * a short test's time. A chain given back is reverted to the snapshot taken after the deployment (`evm_revert`),
 * its pending transactions dropped and automine back on; when taken again, its clock is set to its latest
 * block's time, as on a node just deployed to. One whose block number is not the deployment's by then
 * (something still writing to it) is stopped instead, and the test gets a new one. Nodes started with arguments
 * of their own (`--block-time` …) are not kept.
 */
export async function startDeployedChain(anvilOptions: AnvilOptions = {}): Promise<DeployedChain> {
  const key = JSON.stringify(anvilOptions);
  const keepable = (anvilOptions.args ?? []).length === 0;
  const chain = (keepable ? await takeKept(key) : undefined) ?? (await deployChain(anvilOptions));
  let state: 'in use' | 'given back' | 'stopped' = 'in use';
  const stop = async () => {
    if (state === 'stopped') return;
    state = 'stopped';
    await chain.node.stop();
  };
  return {
    ...chain.contracts,
    anvil: reconnectAnvil(chain.node, stop),
    async release() {
      if (state !== 'in use') return;
      if (!keepable) return stop();
      state = 'given back';
      try {
        await revertToDeployed(chain);
      } catch {
        await chain.node.stop(); // Gone or in a state a revert does not undo: the next test gets a new one.
        return;
      }
      keep(key, chain);
    },
  };
}

type KeptChain = { node: Anvil; contracts: Contracts; deployedAt: bigint; snapshot: Hex };

const kept = new Map<string, KeptChain[]>();
let stoppedAtFileEnd = false;

function keep(key: string, chain: KeptChain): void {
  if (!stoppedAtFileEnd) {
    stoppedAtFileEnd = true;
    atFileEnd(async () => {
      const all = [...kept.values()].flat();
      kept.clear();
      stoppedAtFileEnd = false; // A worker that goes on to another file keeps that file's chains anew.
      await Promise.all(all.map((each) => each.node.stop()));
    });
  }
  kept.set(key, [...(kept.get(key) ?? []), chain]);
}

/** A kept chain still at its deployed state, its clock set to now; undefined when there is none. */
async function takeKept(key: string): Promise<KeptChain | undefined> {
  for (let chain = kept.get(key)?.pop(); chain !== undefined; chain = kept.get(key)?.pop()) {
    try {
      if ((await chain.node.publicClient.getBlockNumber({ cacheTime: 0 })) !== chain.deployedAt) {
        throw new Error('the chain moved after it was given back');
      }
      // The node's clock goes on from its latest block's time, as on a node that has just been deployed to (the
      // harness's clock starts there too): the blocks' times are the snapshot's, older than the wall clock.
      const latest = await chain.node.publicClient.getBlock({ blockTag: 'latest' });
      await chain.node.testClient.request({
        method: 'evm_setTime',
        params: [Number(latest.timestamp)],
      } as never);
      return chain;
    } catch {
      await chain.node.stop();
    }
  }
  return undefined;
}

async function revertToDeployed(chain: KeptChain): Promise<void> {
  const { testClient, publicClient } = chain.node;
  await testClient.revert({ id: chain.snapshot });
  // A revert keeps the mempool and the mining mode as the test left them.
  await testClient.request({ method: 'anvil_dropAllTransactions' } as never);
  await testClient.setAutomine(true);
  chain.snapshot = await testClient.snapshot();
  if ((await publicClient.getBlockNumber({ cacheTime: 0 })) !== chain.deployedAt) {
    throw new Error('the revert did not bring the chain back to its deployment');
  }
}

async function deployChain(anvilOptions: AnvilOptions): Promise<KeptChain> {
  const node = await startAnvil({
    ...anvilOptions,
    args: ['--slots-in-an-epoch', '1', ...(anvilOptions.args ?? [])],
  });
  try {
    const relayerWallet = node.wallet(SANDBOX_ACCOUNTS.relayer);
    const usdc = await deployTestUsdc(relayerWallet, node.publicClient);
    const bridgedUsdc = await deployTestUsdc(relayerWallet, node.publicClient, TEST_TOKENS['USDC.e']);
    const { factory } = await deployFactory(relayerWallet, node.publicClient, 2);
    const { factory: factoryV1 } = await deployFactory(relayerWallet, node.publicClient, 1);
    // Version 3 with this chain as the home chain of its table: USDC is flushed here, never burnt.
    const { factory: factoryV3 } = await deployFactoryV3(relayerWallet, node.publicClient, [
      { chainId: node.chain.id, domain: 7, usdc, tokenMessenger: usdc, maxBurnFeeBps: 0 },
    ]);
    const customer = node.addresses[SANDBOX_ACCOUNTS.customer]!;
    for (const token of [usdc, bridgedUsdc]) {
      const mint = await relayerWallet.writeContract({
        address: token,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [customer, CUSTOMER_FUNDS],
      });
      await node.publicClient.waitForTransactionReceipt({ hash: mint });
    }
    return {
      node,
      contracts: { usdc, bridgedUsdc, factory, factoryV1, factoryV3 },
      deployedAt: await node.publicClient.getBlockNumber({ cacheTime: 0 }),
      snapshot: await node.testClient.snapshot(),
    };
  } catch (error) {
    await node.stop();
    throw error;
  }
}
