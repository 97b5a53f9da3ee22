import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, requireChainSetting } from '../index.ts';

describe('the test-mode chain', () => {
  it('is the sandbox chain itself on the sandbox, and off elsewhere by default', () => {
    const sandbox = loadConfig({ PAYLINK_RELAYER_KEY: `0x${'11'.repeat(32)}` });
    expect(sandbox.testHomeChain).toMatchObject({
      network: 'sandbox',
      chainId: 31337,
      rpcUrls: sandbox.liveHomeChain.rpcUrls,
      relayerKey: sandbox.liveHomeChain.relayerKey,
    });
    expect(loadConfig({ PAYLINK_NETWORK: 'polygon' }).testHomeChain).toBeUndefined();
    expect(loadConfig({ PAYLINK_TEST_NETWORK: 'off' }).testHomeChain).toBeUndefined();
  });

  it('reads its own settings on another network, with the preset USDC and nothing live borrowed', () => {
    const config = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_RPC_URL: 'https://polygon.example',
      PAYLINK_FACTORY_ADDRESS: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      PAYLINK_RELAYER_KEY: `0x${'11'.repeat(32)}`,
      PAYLINK_START_BLOCK: '5000000',
      PAYLINK_TEST_NETWORK: 'amoy',
      PAYLINK_TEST_RPC_URL: 'https://amoy.example, https://amoy2.example',
      PAYLINK_TEST_FACTORY_ADDRESS: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    });
    expect(config.testHomeChain).toMatchObject({
      network: 'amoy',
      chainId: 80002,
      rpcUrls: ['https://amoy.example', 'https://amoy2.example'],
      usdcAddress: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
      factoryAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      treasuryAddress: undefined,
      relayerKey: undefined,
      startBlock: undefined,
    });
    expect(config.liveHomeChain.chainId).toBe(137);
  });

  it('refuses a bad value naming the variable, without echoing a key', () => {
    expect(() => loadConfig({ PAYLINK_TEST_NETWORK: 'polygon' })).toThrow(/PAYLINK_TEST_NETWORK/);
    expect(() => loadConfig({ PAYLINK_TEST_RPC_URL: 'ftp://x' })).toThrow(/PAYLINK_TEST_RPC_URL/);
    const secret = `0x${'zz'.repeat(32)}`;
    try {
      loadConfig({ PAYLINK_TEST_RELAYER_KEY: secret });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(String(error)).toContain('PAYLINK_TEST_RELAYER_KEY');
      expect(String(error)).not.toContain(secret);
    }
  });
});

describe('PAYLINK_PUBLIC_RPC_URL', () => {
  it("overrides the network preset's public RPC, for the wallet button only", () => {
    expect(loadConfig({ PAYLINK_NETWORK: 'polygon' }).liveHomeChain.publicRpcUrl).toBe(
      'https://polygon-rpc.com',
    );
    const config = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_RPC_URL: 'https://polygon.provider.example/v2/secret-key',
      PAYLINK_PUBLIC_RPC_URL: 'https://rpc.pay.example.com/',
    });
    expect(config.liveHomeChain.publicRpcUrl).toBe('https://rpc.pay.example.com');
    expect(config.liveHomeChain.rpcUrls).toEqual(['https://polygon.provider.example/v2/secret-key']);
    // Another test network keeps its own preset.
    const withAmoy = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_TEST_NETWORK: 'amoy',
      PAYLINK_PUBLIC_RPC_URL: 'https://rpc.pay.example.com',
    });
    expect(withAmoy.testHomeChain?.publicRpcUrl).toBe('https://rpc-amoy.polygon.technology');
    // The sandbox has none unless told (the service offers its own node), and then both modes share it.
    expect(loadConfig({}).liveHomeChain.publicRpcUrl).toBeUndefined();
    const sandbox = loadConfig({ PAYLINK_PUBLIC_RPC_URL: 'http://192.168.1.5:8545' });
    expect(sandbox.liveHomeChain.publicRpcUrl).toBe('http://192.168.1.5:8545');
    expect(sandbox.testHomeChain?.publicRpcUrl).toBe('http://192.168.1.5:8545');
  });

  it('takes http only on the sandbox or a loopback host', () => {
    expect(
      loadConfig({ PAYLINK_NETWORK: 'amoy', PAYLINK_PUBLIC_RPC_URL: 'http://127.0.0.1:8545' }).liveHomeChain
        .publicRpcUrl,
    ).toBe('http://127.0.0.1:8545');
    expect(
      loadConfig({ PAYLINK_NETWORK: 'amoy', PAYLINK_PUBLIC_RPC_URL: 'http://localhost:8545' }).liveHomeChain
        .publicRpcUrl,
    ).toBe('http://localhost:8545');
  });

  it.each([
    ['polygon', 'http://rpc.example.com'],
    ['polygon', 'ftp://rpc.example.com'],
    ['polygon', 'wss://rpc.example.com'],
    ['polygon', 'not a url'],
    ['sandbox', 'https://user:hunter2@rpc.example.com'],
  ])('stops on %s with %s, naming it and never echoing it', (network, value) => {
    const load = () => loadConfig({ PAYLINK_NETWORK: network, PAYLINK_PUBLIC_RPC_URL: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow('PAYLINK_PUBLIC_RPC_URL');
    expect(load).not.toThrow(/hunter2/);
  });
});

describe('gasless payment settings', () => {
  const key = `0x${'22'.repeat(32)}`;
  it('is on by default with a 5 POL hourly cap, and off with PAYLINK_GASLESS=off', () => {
    expect(loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: key }).liveHomeChain.gasless).toEqual({
      enabled: true,
      relayerKey: key,
      maxFeeWeiPerHour: 5n * 10n ** 18n,
    });
    expect(loadConfig({ PAYLINK_GASLESS: 'off' }).liveHomeChain.gasless.enabled).toBe(false);
    expect(
      loadConfig({ PAYLINK_GASLESS_MAX_FEE_PER_HOUR: '0.25' }).liveHomeChain.gasless.maxFeeWeiPerHour,
    ).toBe(25n * 10n ** 16n);
  });

  it('lends the key to a test chain only when it is the live network', () => {
    const sandbox = loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: key });
    expect(sandbox.testHomeChain?.gasless.relayerKey).toBe(key);
    const polygon = loadConfig({
      PAYLINK_NETWORK: 'polygon',
      PAYLINK_GASLESS_RELAYER_KEY: key,
      PAYLINK_TEST_NETWORK: 'amoy',
    });
    expect(polygon.testHomeChain?.gasless.relayerKey).toBeUndefined();
  });

  it('refuses a bad value naming the variable, without echoing a key', () => {
    expect(() => loadConfig({ PAYLINK_GASLESS: 'maybe' })).toThrow(/PAYLINK_GASLESS/);
    expect(() => loadConfig({ PAYLINK_GASLESS_MAX_FEE_PER_HOUR: '1e3' })).toThrow(
      /PAYLINK_GASLESS_MAX_FEE_PER_HOUR/,
    );
    expect(() => loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: '0xdeadbeef' })).toThrow(
      /PAYLINK_GASLESS_RELAYER_KEY/,
    );
    expect(() => loadConfig({ PAYLINK_GASLESS_RELAYER_KEY: '0xdeadbeef' })).not.toThrow(/deadbeef/);
  });
});

describe('the list of chains', () => {
  it('holds the live chain first, then the test one when test mode is on; liveHomeChain and testHomeChain are its entries', () => {
    const sandbox = loadConfig({ PAYLINK_CHAINS: '' });
    expect(sandbox.chains.map((c) => [c.mode, c.network, c.chainId])).toEqual([
      ['live', 'sandbox', 31337],
      ['test', 'sandbox', 31337],
    ]);
    expect(sandbox.liveHomeChain).toBe(sandbox.chains[0]);
    expect(sandbox.testHomeChain).toBe(sandbox.chains[1]);
    // The sandbox's second chain, by default a source of both modes (test mode is the live chain there).
    const two = loadConfig({});
    expect(two.chains.map((c) => [c.mode, c.role, c.network, c.chainId])).toEqual([
      ['live', 'home', 'sandbox', 31337],
      ['live', 'source', 'sandbox-2', 31338],
      ['test', 'home', 'sandbox', 31337],
      ['test', 'source', 'sandbox-2', 31338],
    ]);
    expect(two.testHomeChain).toBe(two.chains[2]);
    const polygon = loadConfig({ PAYLINK_NETWORK: 'polygon' });
    expect(polygon.chains.map((c) => c.mode)).toEqual(['live']);
    const both = loadConfig({ PAYLINK_NETWORK: 'polygon', PAYLINK_TEST_NETWORK: 'amoy' });
    expect(both.chains.map((c) => [c.mode, c.chainId, c.variablePrefix])).toEqual([
      ['live', 137, 'PAYLINK_'],
      ['test', 80002, 'PAYLINK_TEST_'],
    ]);
  });

  it('names the missing variable of the chain that needs it', () => {
    const config = loadConfig({ PAYLINK_NETWORK: 'polygon', PAYLINK_TEST_NETWORK: 'amoy' });
    expect(() => requireChainSetting(config.liveHomeChain, 'factoryAddress')).toThrow(
      'PAYLINK_FACTORY_ADDRESS is required on polygon',
    );
    expect(() => requireChainSetting(config.testHomeChain!, 'rpcUrls')).toThrow(
      'PAYLINK_TEST_RPC_URL is required on amoy',
    );
    expect(requireChainSetting(config.testHomeChain!, 'usdcAddress')).toBe(
      '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582',
    );
  });
});
