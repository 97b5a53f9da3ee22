import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  type PublicClient,
  parseAbiItem,
  parseSignature,
} from 'viem';
import type { ChargerLogReader } from '../../app/subscriptions/chainCancels.ts';
import type { ChargerCalls, Mandate } from '../../app/subscriptions/mandatePorts.ts';
import type { Finality } from '../../config/index.ts';
import { chainReader } from './chainReader.ts';
import { subscriptionChargerAbi } from './contractAbis.ts';
import { blockOfTransaction } from './eip3009.ts';

/**
 * The SubscriptionCharger's calldata (decision 0061): a subscription's period n is the contract's n − 1. With the
 * customer's permit, `permitAndCharge` (a permit already used is ignored by the contract); else `charge`. The
 * signature is sent each time: the contract reads it only at a mandate's first charge.
 */
export function chargeCallData(mandate: Mandate, period: number, amountBaseUnits: bigint): Hex {
  const { terms } = mandate;
  const args = [terms, mandate.signature as Hex, BigInt(period - 1), amountBaseUnits] as const;
  if (mandate.permit === null)
    return encodeFunctionData({ abi: subscriptionChargerAbi, functionName: 'charge', args });
  const { v, r, s } = parseSignature(mandate.permit.signature as Hex);
  return encodeFunctionData({
    abi: subscriptionChargerAbi,
    functionName: 'permitAndCharge',
    args: [...args, mandate.permit.value, mandate.permit.deadline, Number(v), r, s],
  });
}

export function chargerCalls(client: PublicClient, chainId: number): ChargerCalls {
  return { chainId, chargeData: chargeCallData, blockOf: (txHash) => blockOfTransaction(client, txHash) };
}

/** `cancel(terms)`: what the customer's wallet sends to revoke the mandate on chain (its sender the customer). */
export function cancelCallData(mandate: Pick<Mandate, 'terms'>): Hex {
  return encodeFunctionData({ abi: subscriptionChargerAbi, functionName: 'cancel', args: [mandate.terms] });
}

/** USDC's `approve(charger, value)`: what the customer's wallet sends to allow more periods (the portal's top-up). */
export function approveCallData(charger: string, value: bigint): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [charger as Hex, value] });
}

/** What the charger may still take from the customer's wallet; undefined when the node cannot say. */
export async function allowanceLeft(
  client: PublicClient,
  mandate: Pick<Mandate, 'charger' | 'terms'>,
): Promise<bigint | undefined> {
  return client
    .readContract({
      address: mandate.terms.token as Hex,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [mandate.terms.customer as Hex, mandate.charger as Hex],
    })
    .catch(() => undefined);
}

const canceledEvent = parseAbiItem('event Canceled(bytes32 indexed mandate, address indexed customer)');

/**
 * The charger's `Canceled` logs, and finality as the chain's watcher reads it (the chain's `finalized` tag or its
 * confirmations): what the job of mandates canceled on chain reads.
 */
export function chargerLogReader(client: PublicClient, finality: Finality): ChargerLogReader {
  const blocks = chainReader(client, finality);
  return {
    finalizedBlockNumber: () => blocks.finalizedBlockNumber(),
    blockAt: (number) => blocks.blockAt(number),
    async canceledLogs(charger, fromBlock, toBlock) {
      const logs = await client.getLogs({
        address: charger as Address,
        event: canceledEvent,
        fromBlock,
        toBlock,
        strict: true,
      });
      return logs.map((log) => {
        if (log.transactionHash === null || log.blockNumber === null)
          throw new Error('pending log where a mined one was expected');
        return {
          mandateId: log.args.mandate.toLowerCase(),
          customer: log.args.customer.toLowerCase(),
          txHash: log.transactionHash.toLowerCase(),
          blockNumber: log.blockNumber,
        };
      });
    },
  };
}
