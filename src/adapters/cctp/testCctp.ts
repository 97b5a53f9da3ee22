/**
 * CCTP v2 on local chains, for the sandbox and the tests: Circle's MessageTransmitterV2 and TokenMessengerV2 as
 * the project's test contracts (src/contracts/Test*V2.sol), over the chain's TestUSDC, then linked pairwise the
 * way Circle's token controller links real domains. The attesters are whatever keys the local attestation
 * service signs with.
 */
import { type Address, encodeAbiParameters, maxUint256, type PublicClient } from 'viem';
import { testTokenMessengerV2Abi, testUsdcAbi } from '../chain/contractAbis.ts';
import { loadContracts } from '../chain/contracts.ts';
import { type DeployWalletClient, deploy } from '../chain/deployContracts.ts';
import { addressToBytes32 } from './cctpMessage.ts';

export type TestCctpDeployment = {
  domain: number;
  usdc: Address;
  messageTransmitter: Address;
  tokenMessenger: Address;
};

/** Circle's per-message burn limit is in the millions of USDC; the test one is as generous. */
const BURN_LIMIT_PER_MESSAGE = 10_000_000_000_000n;

/**
 * Deploys the transmitter and the messenger on one chain and makes the messenger a minter of `usdc` (the
 * wallet must own the TestUSDC). `feeRecipient` receives what fast transfers pay.
 */
export async function deployTestCctp(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  options: {
    domain: number;
    usdc: Address;
    attesters: readonly Address[];
    signatureThreshold: number;
    feeRecipient: Address;
  },
): Promise<TestCctpDeployment> {
  const { TestMessageTransmitterV2, TestTokenMessengerV2 } = await loadContracts();
  const messageTransmitter = await deploy(
    walletClient,
    publicClient,
    TestMessageTransmitterV2.bytecode,
    encodeAbiParameters(
      [{ type: 'uint32' }, { type: 'address[]' }, { type: 'uint256' }],
      [options.domain, [...options.attesters], BigInt(options.signatureThreshold)],
    ),
  );
  const tokenMessenger = await deploy(
    walletClient,
    publicClient,
    TestTokenMessengerV2.bytecode,
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }],
      [messageTransmitter, options.feeRecipient],
    ),
  );
  const mined = async (hash: `0x${string}`) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`CCTP setup transaction ${hash} reverted`);
  };
  await mined(
    await walletClient.writeContract({
      address: options.usdc,
      abi: testUsdcAbi,
      functionName: 'configureMinter',
      args: [tokenMessenger, maxUint256],
    }),
  );
  await mined(
    await walletClient.writeContract({
      address: tokenMessenger,
      abi: testTokenMessengerV2Abi,
      functionName: 'setMaxBurnAmountPerMessage',
      args: [options.usdc, BURN_LIMIT_PER_MESSAGE],
    }),
  );
  return { domain: options.domain, usdc: options.usdc, messageTransmitter, tokenMessenger };
}

/** Makes `local` accept burns towards, and mints from, each of `remotes` (one direction: call it per chain). */
export async function linkTestCctp(
  walletClient: DeployWalletClient,
  publicClient: PublicClient,
  local: TestCctpDeployment,
  remotes: readonly TestCctpDeployment[],
): Promise<void> {
  for (const remote of remotes) {
    if (remote.domain === local.domain) continue;
    for (const hash of [
      await walletClient.writeContract({
        address: local.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        functionName: 'addRemoteTokenMessenger',
        args: [remote.domain, addressToBytes32(remote.tokenMessenger)],
      }),
      await walletClient.writeContract({
        address: local.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        functionName: 'linkTokenPair',
        args: [local.usdc, remote.domain, addressToBytes32(remote.usdc)],
      }),
    ]) {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`CCTP link transaction ${hash} reverted`);
    }
  }
}
