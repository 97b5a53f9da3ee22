import { describe, expect, it } from 'vitest';
import { ConfigError, IRIS_MAINNET_URL, IRIS_TESTNET_URL, loadConfig } from '../index.ts';

const key = (byte: string) => `0x${byte.repeat(32)}`;
const polygon = {
  PAYLINK_NETWORK: 'polygon',
  PAYLINK_GASLESS_RELAYER_KEY: key('44'),
  PAYLINK_RPC_URL: 'https://polygon.example',
  PAYLINK_FACTORY_ADDRESS: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  PAYLINK_TREASURY_ADDRESS: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  PAYLINK_RELAYER_KEY: key('11'),
};
const withAmoy = {
  ...polygon,
  PAYLINK_TEST_NETWORK: 'amoy',
  PAYLINK_TEST_RPC_URL: 'https://amoy.example',
  PAYLINK_TEST_RELAYER_KEY: key('22'),
};

describe('source chains (PAYLINK_CHAINS, PAYLINK_TEST_CHAINS)', () => {
  it('lists per mode the home chain, then its sources, each with its preset and its own variables', () => {
    const config = loadConfig({
      ...withAmoy,
      PAYLINK_CHAINS: 'base, ethereum',
      PAYLINK_BASE_RPC_URL: 'https://base.example',
      PAYLINK_BASE_TRANSFER_SPEED: 'fast',
      PAYLINK_BASE_FAST_CONFIRMATIONS: '1',
      PAYLINK_BASE_FINALITY: 'confirmations:12',
      PAYLINK_BASE_RELAYER_LOW_BALANCE: '0.02',
      PAYLINK_ETHEREUM_RPC_URL: 'https://eth.example, https://eth2.example',
      PAYLINK_ETHEREUM_RELAYER_KEY: key('33'),
      PAYLINK_ETHEREUM_MAX_FEE_BPS: '3',
      PAYLINK_TEST_CHAINS: 'base-sepolia',
      PAYLINK_BASE_SEPOLIA_RPC_URL: 'https://base-sepolia.example',
    });
    expect(config.chains.map((c) => [c.mode, c.role, c.network, c.chainId, c.homeChainId])).toEqual([
      ['live', 'home', 'polygon', 137, 137],
      ['live', 'source', 'base', 8453, 137],
      ['live', 'source', 'ethereum', 1, 137],
      ['test', 'home', 'amoy', 80002, 80002],
      ['test', 'source', 'base-sepolia', 84532, 80002],
    ]);
    const [home, base, ethereum, amoy, baseSepolia] = config.chains;
    expect(home!.cctp).toEqual({
      domain: 7,
      tokenMessenger: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
      messageTransmitter: '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64',
      transferSpeed: 'standard',
      maxFeeBps: 0,
      // A home chain never burns: the default, unused.
      fastConfirmations: 2,
    });
    expect(base).toMatchObject({
      variablePrefix: 'PAYLINK_BASE_',
      rpcUrls: ['https://base.example'],
      usdcAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      acceptedTokens: [
        { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 },
      ],
      noticedTokens: [],
      cctp: {
        domain: 6,
        tokenMessenger: '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d',
        messageTransmitter: '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64',
        transferSpeed: 'fast',
        maxFeeBps: 10,
        fastConfirmations: 1,
      },
      finality: { kind: 'confirmations', confirmations: 12 },
      relayerLowBalanceWei: 2n * 10n ** 16n,
      // The relayer key defaults to the mode's home one; the factory is the mode's (one address everywhere).
      relayerKey: key('11'),
      factoryAddress: polygon.PAYLINK_FACTORY_ADDRESS,
      startBlock: undefined,
    });
    // So does the gasless relayer's key (decision 0012, on source chains), with the mode's switch and cap.
    expect(base!.gasless).toEqual(home!.gasless);
    expect(base!.gasless.relayerKey).toBe(key('44'));
    expect(baseSepolia!.gasless).toEqual(amoy!.gasless);
    expect(ethereum).toMatchObject({
      rpcUrls: ['https://eth.example', 'https://eth2.example'],
      relayerKey: key('33'),
      cctp: { domain: 0, transferSpeed: 'standard', maxFeeBps: 3, fastConfirmations: 2 },
      finality: { kind: 'finalized' },
      relayerLowBalanceWei: 5n * 10n ** 16n,
    });
    expect(amoy!.cctp).toMatchObject({
      domain: 7,
      messageTransmitter: '0xE737e5cEBEEBa77EFE34D4aa090756590b1CE275',
    });
    expect(baseSepolia).toMatchObject({
      mode: 'test',
      relayerKey: key('22'),
      usdcAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      cctp: { domain: 6, tokenMessenger: '0x8FE6B999Dc680CcFDD5Bf7EB0974218be2542DAA' },
      factoryAddress: undefined,
    });
    expect(config.liveHomeChain).toBe(home);
    expect(config.testHomeChain).toBe(amoy);
    expect(config.cctp).toEqual({
      attestationUrl: IRIS_MAINNET_URL,
      testAttestationUrl: IRIS_TESTNET_URL,
      pollIntervalMs: 5_000,
    });
  });

  it('has no source chain and no CCTP settings unless one is enabled (the sandbox aside)', () => {
    const config = loadConfig(withAmoy);
    expect(config.chains.map((c) => c.role)).toEqual(['home', 'home']);
    expect(config.cctp).toBeUndefined();
    // A sandbox whose contracts someone else deployed has one chain unless told.
    const shared = loadConfig({ PAYLINK_FACTORY_ADDRESS: polygon.PAYLINK_FACTORY_ADDRESS });
    expect(shared.chains.map((c) => c.network)).toEqual(['sandbox', 'sandbox']);
  });

  it('gives the sandbox its second chain and attestation service on the ports after its own', () => {
    const config = loadConfig({ PAYLINK_RPC_URL: 'http://127.0.0.1:9545' });
    const second = config.chains.find((c) => c.network === 'sandbox-2');
    expect(second).toMatchObject({
      chainId: 31338,
      rpcUrls: ['http://127.0.0.1:9546'],
      usdcAddress: undefined,
      cctp: { domain: 6, tokenMessenger: undefined, messageTransmitter: undefined },
    });
    expect(config.liveHomeChain.cctp).toMatchObject({ domain: 7, tokenMessenger: undefined });
    expect(config.cctp).toEqual({
      attestationUrl: 'http://127.0.0.1:9547',
      testAttestationUrl: 'http://127.0.0.1:9547',
      pollIntervalMs: 5_000,
    });
    const moved = loadConfig({
      PAYLINK_SANDBOX_2_RPC_URL: 'http://127.0.0.1:7000',
      PAYLINK_CCTP_ATTESTATION_URL: 'http://127.0.0.1:7001/',
      PAYLINK_CCTP_POLL_INTERVAL: '1s',
    });
    expect(moved.chains[1]!.rpcUrls).toEqual(['http://127.0.0.1:7000']);
    expect(moved.cctp).toMatchObject({ attestationUrl: 'http://127.0.0.1:7001', pollIntervalMs: 1_000 });
  });

  it.each([
    [{ ...polygon, PAYLINK_CHAINS: 'solana' }, 'PAYLINK_CHAINS: "solana" is not a chain Paylink knows'],
    [{ ...polygon, PAYLINK_CHAINS: 'base-sepolia' }, 'PAYLINK_CHAINS: base-sepolia is a testnet'],
    [{ ...withAmoy, PAYLINK_TEST_CHAINS: 'base' }, 'PAYLINK_TEST_CHAINS: base is a mainnet'],
    [
      { PAYLINK_NETWORK: 'amoy', PAYLINK_CHAINS: 'base' },
      'base burns to polygon, but the live network is amoy',
    ],
    [
      { ...polygon, PAYLINK_CHAINS: 'sandbox-2' },
      'sandbox-2 burns to sandbox, but the live network is polygon',
    ],
    [
      { ...withAmoy, PAYLINK_TEST_CHAINS: 'sandbox-2' },
      'sandbox-2 burns to sandbox, but the test network is amoy',
    ],
    [
      { ...polygon, PAYLINK_CHAINS: 'base' },
      'PAYLINK_BASE_RPC_URL is required: base is enabled in PAYLINK_CHAINS',
    ],
    [
      { ...withAmoy, PAYLINK_TEST_CHAINS: 'fuji' },
      'PAYLINK_FUJI_RPC_URL is required: fuji is enabled in PAYLINK_TEST_CHAINS',
    ],
    [{ ...polygon, PAYLINK_TEST_CHAINS: 'fuji' }, 'PAYLINK_TEST_CHAINS needs test mode'],
    [
      { ...polygon, PAYLINK_CHAINS: 'base,base', PAYLINK_BASE_RPC_URL: 'https://b.example' },
      'base is listed twice',
    ],
    [
      {
        ...polygon,
        PAYLINK_CHAINS: 'base',
        PAYLINK_BASE_RPC_URL: 'https://b',
        PAYLINK_BASE_TRANSFER_SPEED: 'warp',
      },
      'PAYLINK_BASE_TRANSFER_SPEED must be fast or standard',
    ],
    [
      {
        ...polygon,
        PAYLINK_CHAINS: 'base',
        PAYLINK_BASE_RPC_URL: 'https://b',
        PAYLINK_BASE_MAX_FEE_BPS: '101',
      },
      'PAYLINK_BASE_MAX_FEE_BPS must be whole basis points from 0 to 100',
    ],
    [
      {
        ...polygon,
        PAYLINK_CHAINS: 'base',
        PAYLINK_BASE_RPC_URL: 'https://b',
        PAYLINK_BASE_FINALITY: 'soon',
      },
      'PAYLINK_BASE_FINALITY must be finalized or confirmations:N',
    ],
    [
      { ...polygon, PAYLINK_CHAINS: 'optimism', PAYLINK_OPTIMISM_RPC_URL: 'ftp://op' },
      'PAYLINK_OPTIMISM_RPC_URL',
    ],
  ])('stops with a message naming the variable (%#)', (env, message) => {
    const load = () => loadConfig(env);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });

  it.each(['0', '65', '1.5', '-1', 'two'])(
    'refuses a fast depth of %s blocks, naming the variable',
    (blocks) => {
      const load = () =>
        loadConfig({
          ...polygon,
          PAYLINK_CHAINS: 'base',
          PAYLINK_BASE_RPC_URL: 'https://b',
          PAYLINK_BASE_FAST_CONFIRMATIONS: blocks,
        });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow('PAYLINK_BASE_FAST_CONFIRMATIONS must be a whole number of blocks from 1 to 64');
    },
  );

  it('takes the whole boundary of the fee cap, and never echoes a relayer key', () => {
    const base = { ...polygon, PAYLINK_CHAINS: 'base', PAYLINK_BASE_RPC_URL: 'https://b.example' };
    expect(loadConfig({ ...base, PAYLINK_BASE_MAX_FEE_BPS: '100' }).chains[1]!.cctp!.maxFeeBps).toBe(100);
    expect(loadConfig({ ...base, PAYLINK_BASE_MAX_FEE_BPS: '0' }).chains[1]!.cctp!.maxFeeBps).toBe(0);
    // And of the fast depth: 1 to 64 blocks (decision 0037).
    const depth = (blocks: string) =>
      loadConfig({ ...base, PAYLINK_BASE_FAST_CONFIRMATIONS: blocks }).chains[1]!.cctp!.fastConfirmations;
    expect(depth('1')).toBe(1);
    expect(depth('64')).toBe(64);
    const secret = `0x${'zz'.repeat(32)}`;
    const load = () => loadConfig({ ...base, PAYLINK_BASE_RELAYER_KEY: secret });
    expect(load).toThrow('PAYLINK_BASE_RELAYER_KEY');
    expect(load).not.toThrow(/zzzz/);
  });
});
