/**
 * A source chain's burns and the home chain's mints as the bridge steps (src/app/bridge) read and call them: the
 * forwarder factory's `deployAndBurn`, TokenMessengerV2's `DepositForBurn` logs, MessageTransmitterV2's
 * `MessageSent` and `receiveMessage` and its used nonces. The test contracts have Circle's interfaces, so these
 * calls are the ones made on mainnets.
 */
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  getAddress,
  type Hex,
  type PublicClient,
  parseEventLogs,
} from 'viem';
import type { HomeMints, SourceBurns } from '../../app/bridge/ports.ts';
import type { ChainReader } from '../../app/chain/ports.ts';
import {
  forwarderFactoryV3Abi,
  testMessageTransmitterV2Abi,
  testTokenMessengerV2Abi,
} from '../chain/contractAbis.ts';
import { forwarderParams } from '../chain/flushCalls.ts';
import { toForwarderStruct } from '../chain/forwarder.ts';
import { receiptOf } from '../chain/receiptOf.ts';
import { tokenBalanceOf } from '../chain/tokenBalance.ts';
import { bytes32ToAddress, decodeBurnMessageV2, decodeMessageV2 } from './cctpMessage.ts';

type Finality = Pick<ChainReader, 'finalizedBlockNumber'>;

export function createSourceBurns(options: {
  client: PublicClient;
  chainId: number;
  domain: number;
  usdc: Address;
  tokenMessenger: Address;
  messageTransmitter: Address;
  finality: Finality;
}): SourceBurns {
  const { client } = options;
  return {
    chainId: options.chainId,
    domain: options.domain,
    burnCall(forwarder, burn) {
      return {
        to: getAddress(forwarder.factoryAddress),
        data: encodeFunctionData({
          abi: forwarderFactoryV3Abi,
          functionName: 'deployAndBurn',
          args: [
            toForwarderStruct(forwarderParams(forwarder)),
            burn.amountBaseUnits,
            burn.maxFeeBaseUnits,
            burn.minFinalityThreshold,
          ],
        }),
      };
    },
    usdcBalance: (address) => tokenBalanceOf(client, options.usdc, address),
    async burnsBy(forwarder, fromBlock) {
      const logs = await client.getContractEvents({
        address: options.tokenMessenger,
        abi: testTokenMessengerV2Abi,
        eventName: 'DepositForBurn',
        args: { depositor: getAddress(forwarder) },
        fromBlock,
        toBlock: 'latest',
        strict: true,
      });
      return logs.map((log) => ({
        txHash: log.transactionHash,
        blockNumber: log.blockNumber,
        amountBaseUnits: log.args.amount,
        maxFeeBaseUnits: log.args.maxFee,
        minFinalityThreshold: log.args.minFinalityThreshold,
      }));
    },
    async burnReceipt(txHash, mintRecipient) {
      const receipt = await receiptOf(client, txHash as Hex);
      if (receipt === undefined) return undefined;
      const recipient = mintRecipient.toLowerCase();
      const message = parseEventLogs({
        abi: testMessageTransmitterV2Abi,
        eventName: 'MessageSent',
        logs: receipt.logs.filter(
          (log) => log.address.toLowerCase() === options.messageTransmitter.toLowerCase(),
        ),
      })
        .map((log) => log.args.message)
        .find((bytes) => {
          const body = decodeMessageV2(bytes).messageBody;
          return bytes32ToAddress(decodeBurnMessageV2(body).mintRecipient).toLowerCase() === recipient;
        });
      return {
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        message: message ?? null,
      };
    },
    finalizedBlockNumber: () => options.finality.finalizedBlockNumber(),
    async minimumBurnFee(amountBaseUnits) {
      try {
        return await client.readContract({
          address: options.tokenMessenger,
          abi: testTokenMessengerV2Abi,
          functionName: 'getMinFeeAmount',
          args: [amountBaseUnits],
        });
      } catch (error) {
        if (predatesMinimumFee(error)) return 0n;
        throw error;
      }
    },
    async burnFeeCapBps(factoryAddress) {
      const route = await client.readContract({
        address: getAddress(factoryAddress),
        abi: forwarderFactoryV3Abi,
        functionName: 'route',
      });
      return route.maxBurnFeeBps;
    },
    // Uncached: how deep a transfer is decides whether a fast burn may go.
    latestBlockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async blockHashAt(blockNumber) {
      const block = await client.getBlock({ blockNumber }).catch(() => undefined);
      return block?.hash ?? undefined;
    },
  };
}

/**
 * A TokenMessengerV2 from before v2.1 has no `getMinFeeAmount`: the call reverts with no data at all (no
 * function, no fallback), which no refusal of the function itself does ("Amount too low" says why; the node's
 * own words, "execution reverted", are not the contract's). It asks no minimum. Anything else (a node that did
 * not answer, a reason given) is an error: the burn waits.
 */
export function predatesMinimumFee(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return (
    reverted instanceof ContractFunctionRevertedError &&
    reverted.data === undefined &&
    reverted.signature === undefined &&
    (reverted.raw === undefined || reverted.raw === '0x')
  );
}

export function createHomeMints(options: {
  client: PublicClient;
  chainId: number;
  usdc: Address;
  messageTransmitter: Address;
  finality: Finality;
}): HomeMints {
  const { client } = options;
  return {
    chainId: options.chainId,
    usdcAddress: getAddress(options.usdc),
    mintCall: (message, attestation) => ({
      to: options.messageTransmitter,
      data: encodeFunctionData({
        abi: testMessageTransmitterV2Abi,
        functionName: 'receiveMessage',
        args: [message as Hex, attestation as Hex],
      }),
    }),
    async nonceUsed(cctpNonce) {
      const used = await client.readContract({
        address: options.messageTransmitter,
        abi: testMessageTransmitterV2Abi,
        functionName: 'usedNonces',
        args: [cctpNonce as Hex],
      });
      return used !== 0n;
    },
    async mintReceipt(txHash) {
      const receipt = await receiptOf(client, txHash as Hex);
      return receipt && { success: receipt.status === 'success', blockNumber: receipt.blockNumber };
    },
    finalizedBlockNumber: () => options.finality.finalizedBlockNumber(),
    // Uncached: whether a message has expired is read against the block the mint is about to follow.
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    expirationBlockOf: (message) =>
      decodeBurnMessageV2(decodeMessageV2(message as Hex).messageBody).expirationBlock,
  };
}
