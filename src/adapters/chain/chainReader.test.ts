import { BlockNotFoundError, type Hex, type PublicClient, pad, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { encodeBurnMessageV2 } from '../cctp/cctpMessage.ts';
import { chainReader, createRpcClient } from './chainReader.ts';

const HASH = `0x${'ab'.repeat(32)}`;

/** The few calls chainReader makes of a viem client, answered from a head number and a finalized block. */
function client(
  head: bigint,
  answers: { finalized?: bigint; getBlock?: () => unknown; logs?: unknown[] } = {},
) {
  const calls: { getBlockNumber: unknown[]; getBlock: unknown[]; getLogs: unknown[] } = {
    getBlockNumber: [],
    getBlock: [],
    getLogs: [],
  };
  const fake = {
    getBlockNumber: async (args: unknown) => {
      calls.getBlockNumber.push(args);
      return head;
    },
    getBlock: async (args: { blockTag?: string; blockNumber?: bigint }) => {
      calls.getBlock.push(args);
      if (answers.getBlock) return answers.getBlock();
      const number = args.blockTag === 'finalized' ? answers.finalized : args.blockNumber;
      return { number, hash: HASH, timestamp: 1_700_000_000n };
    },
    getLogs: async (args: unknown) => {
      calls.getLogs.push(args);
      return answers.logs ?? [];
    },
  };
  return { client: fake as unknown as PublicClient, calls };
}

describe('chainReader finality', () => {
  it('reads the node’s finalized block under PAYLINK_FINALITY=finalized', async () => {
    const { client: c, calls } = client(100n, { finalized: 64n });
    expect(await chainReader(c, { kind: 'finalized' }).finalizedBlockNumber()).toBe(64n);
    expect(calls.getBlock).toEqual([{ blockTag: 'finalized' }]);
  });

  // confirmations:N: a block is final with N blocks on top of it.
  it.each([
    [100n, 12, 88n],
    [13n, 12, 1n],
    [12n, 12, 0n],
    [5n, 12, 0n],
    [7n, 0, 7n],
  ])('takes head %s less %s confirmations as final: %s', async (head, confirmations, final) => {
    const { client: c, calls } = client(head);
    expect(await chainReader(c, { kind: 'confirmations', confirmations }).finalizedBlockNumber()).toBe(final);
    expect(calls.getBlock).toEqual([]);
    // The head itself, never a cached one: a stale head would make final what is not yet.
    expect(calls.getBlockNumber).toEqual([{ cacheTime: 0 }]);
  });

  it('reads the head uncached', async () => {
    const { client: c, calls } = client(42n);
    expect(await chainReader(c, { kind: 'finalized' }).latestBlockNumber()).toBe(42n);
    expect(calls.getBlockNumber).toEqual([{ cacheTime: 0 }]);
  });
});

describe('createRpcClient', () => {
  it('refuses no URL', () => {
    expect(() => createRpcClient([])).toThrow('no RPC URL configured');
  });

  it('uses one URL directly, with its timeout and one retry, and falls back across several; nothing cached', () => {
    const one = createRpcClient(['http://127.0.0.1:1'], 1234);
    expect(one.transport).toMatchObject({ type: 'http', timeout: 1234, retryCount: 1 });
    expect(one.cacheTime).toBe(0);
    const two = createRpcClient(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    expect(two.transport.type).toBe('fallback');
    const transports = (two.transport as unknown as { transports: { config: object }[] }).transports;
    expect(transports.map((t) => t.config)).toMatchObject([
      { type: 'http', timeout: 10_000, retryCount: 1 },
      { type: 'http', timeout: 10_000, retryCount: 1 },
    ]);
  });
});

describe('chainReader blocks', () => {
  it('answers a block’s number, hash and time', async () => {
    const { client: c } = client(10n);
    expect(await chainReader(c, { kind: 'finalized' }).blockAt(7n)).toEqual({
      number: 7n,
      hash: HASH,
      timestamp: new Date(1_700_000_000_000),
    });
  });

  it('answers no block above the head, and throws any other failure', async () => {
    const missing = client(10n, {
      getBlock: () => {
        throw new BlockNotFoundError({ blockNumber: 11n });
      },
    });
    expect(await chainReader(missing.client, { kind: 'finalized' }).blockAt(11n)).toBeUndefined();
    const down = client(10n, {
      getBlock: () => {
        throw new Error('connection refused');
      },
    });
    await expect(chainReader(down.client, { kind: 'finalized' }).blockAt(1n)).rejects.toThrow(
      'connection refused',
    );
  });

  it('refuses a pending block where a mined one was expected', async () => {
    const pending = client(10n, { getBlock: () => ({ number: null, hash: null, timestamp: 1n }) });
    await expect(chainReader(pending.client, { kind: 'finalized' }).blockAt(1n)).rejects.toThrow(
      'pending block where a mined one was expected',
    );
    const noNumber = client(10n, { getBlock: () => ({ number: null, hash: HASH, timestamp: 1n }) });
    await expect(chainReader(noNumber.client, { kind: 'finalized' }).blockAt(1n)).rejects.toThrow(
      'pending block',
    );
    const noHash = client(10n, { getBlock: () => ({ number: 1n, hash: null, timestamp: 1n }) });
    await expect(chainReader(noHash.client, { kind: 'finalized' }).blockAt(1n)).rejects.toThrow(
      'pending block',
    );
  });
});

describe('chainReader transfer logs', () => {
  const log = {
    address: '0x3C499c542cEF5E3811e1192ce70d8cC03d5c3359',
    eventName: 'Transfer',
    transactionHash: `0x${'01'.repeat(32)}`,
    logIndex: 3,
    blockNumber: 9n,
    blockHash: HASH,
    args: {
      from: '0x00000000000000000000000000000000000000aA',
      to: '0x00000000000000000000000000000000000000bB',
      value: 1_500_000n,
    },
  };

  it('reads every token’s Transfer logs of a range in one request, the token lowercase', async () => {
    const { client: c, calls } = client(10n, { logs: [log] });
    const tokens = [
      '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
      '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    ];
    expect(await chainReader(c, { kind: 'finalized' }).transferLogs(tokens, 4n, 9n)).toEqual([
      {
        token: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
        txHash: log.transactionHash,
        logIndex: 3,
        blockNumber: 9n,
        blockHash: HASH,
        from: log.args.from,
        to: log.args.to,
        amountBaseUnits: 1_500_000n,
      },
    ]);
    expect(calls.getLogs).toMatchObject([{ address: tokens, fromBlock: 4n, toBlock: 9n, strict: true }]);
  });

  it('asks nothing for no token', async () => {
    const { client: c, calls } = client(10n, { logs: [log] });
    expect(await chainReader(c, { kind: 'finalized' }).transferLogs([], 4n, 9n)).toEqual([]);
    expect(calls.getLogs).toEqual([]);
  });

  it.each(['transactionHash', 'logIndex', 'blockNumber', 'blockHash'])(
    'refuses a pending log (no %s)',
    async (field) => {
      const { client: c } = client(10n, { logs: [{ ...log, [field]: null }] });
      await expect(chainReader(c, { kind: 'finalized' }).transferLogs(['0x1'], 4n, 9n)).rejects.toThrow(
        'pending log where a mined one was expected',
      );
    },
  );
});

describe('chainReader CCTP mints', () => {
  const USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
  const TRANSMITTER = '0x81d40f21f12a8f0e3252bccb954d722d4c464b64';
  const DEPOSIT = '0x00000000000000000000000000000000000000dd';
  const CUSTOMER = '0x00000000000000000000000000000000000000cc';
  const FEE_RECIPIENT = '0x00000000000000000000000000000000000000fe';
  const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  let logIndex = 0;
  const mint = (txn: number, to: string, value: bigint) => ({
    address: USDC,
    eventName: 'Transfer',
    transactionHash: tx(txn),
    logIndex: logIndex++,
    blockNumber: 9n,
    blockHash: HASH,
    args: { from: zeroAddress, to, value },
  });
  const received = (txn: number, sender: string, recipient: string, from = TRANSMITTER) => ({
    address: from,
    eventName: 'MessageReceived',
    transactionHash: tx(txn),
    logIndex: logIndex++,
    blockNumber: 9n,
    blockHash: HASH,
    args: {
      messageBody: encodeBurnMessageV2({
        version: 1,
        burnToken: pad(USDC),
        mintRecipient: pad(recipient as Hex),
        amount: 10n,
        messageSender: pad(sender as Hex),
        maxFee: 0n,
        feeExecuted: 0n,
        expirationBlock: 0n,
        hookData: '0x',
      }),
    },
  });

  it('names the burn’s depositor on the mints its received message made, and on no other log', async () => {
    const logs = [
      // Our settlement: the fee's mint, the mint to the deposit address, then the transmitter's event.
      mint(1, FEE_RECIPIENT, 1n),
      mint(1, DEPOSIT, 9n),
      received(1, DEPOSIT, DEPOSIT),
      // A customer's own CCTP transfer to the address.
      mint(2, DEPOSIT, 5n),
      received(2, CUSTOMER, DEPOSIT),
      // A mint with no message (a USDC minter's), and one followed by a lookalike event of another contract.
      mint(3, DEPOSIT, 7n),
      mint(4, DEPOSIT, 8n),
      received(4, DEPOSIT, DEPOSIT, USDC),
    ];
    const { client: c, calls } = client(10n, { logs });
    const read = await chainReader(c, { kind: 'finalized' }).transferLogs([USDC], 4n, 9n, {
      messageTransmitter: TRANSMITTER,
    });
    expect(read.map((t) => [t.txHash, t.to, t.amountBaseUnits, t.cctpBurnSender])).toEqual([
      [tx(1), FEE_RECIPIENT, 1n, undefined],
      [tx(1), DEPOSIT, 9n, DEPOSIT],
      [tx(2), DEPOSIT, 5n, CUSTOMER],
      [tx(3), DEPOSIT, 7n, undefined],
      [tx(4), DEPOSIT, 8n, undefined],
    ]);
    expect(calls.getLogs).toMatchObject([{ address: [USDC, TRANSMITTER], fromBlock: 4n, toBlock: 9n }]);
  });

  it('without a transmitter asks for the tokens alone and names no depositor', async () => {
    const { client: c, calls } = client(10n, { logs: [mint(5, DEPOSIT, 9n)] });
    const read = await chainReader(c, { kind: 'finalized' }).transferLogs([USDC], 4n, 9n);
    expect(read.map((t) => t.cctpBurnSender)).toEqual([undefined]);
    expect(calls.getLogs).toMatchObject([{ address: [USDC] }]);
  });
});
