import fc from 'fast-check';
import { decodeAbiParameters, getAddress, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  bytes16ToUuid,
  type ForwarderParams,
  forwarderArgs,
  forwarderSalt,
  predictDepositAddress,
  uuidToBytes16,
} from './forwarder.ts';

const params: ForwarderParams = {
  merchant: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  treasury: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  feeBps: 150,
  paymentId: '0f8fad5b-d9cb-469f-a165-70867728950e',
};
const factory = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const implementation = '0xa16E02E87b7454126E5E10d957A927A7F5B5d2be';

describe('uuidToBytes16', () => {
  it('drops the dashes and lower-cases', () => {
    expect(uuidToBytes16('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe('0x0f8fad5bd9cb469fa16570867728950e');
  });

  it('round-trips through bytes16ToUuid', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        const bytes = uuidToBytes16(uuid);
        expect(bytes).toMatch(/^0x[0-9a-f]{32}$/);
        expect(bytes16ToUuid(bytes)).toBe(uuid.toLowerCase());
      }),
    );
  });

  it.each([
    '',
    '0f8fad5bd9cb469fa16570867728950e',
    '0f8fad5b-d9cb-469f-a165-70867728950',
    '0f8fad5b-d9cb-469f-a165-70867728950e0',
    'gf8fad5b-d9cb-469f-a165-70867728950e',
    ' 0f8fad5b-d9cb-469f-a165-70867728950e',
  ])('rejects %j', (value) => {
    expect(() => uuidToBytes16(value)).toThrow(TypeError);
  });
});

describe('forwarderArgs and forwarderSalt', () => {
  it('abi-encode the four params in the contract order', () => {
    const [merchant, treasury, feeBps, paymentId] = decodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint16' }, { type: 'bytes16' }],
      forwarderArgs(params),
    );
    expect([merchant, treasury, feeBps, paymentId]).toEqual([
      params.merchant,
      params.treasury,
      150,
      '0x0f8fad5bd9cb469fa16570867728950e',
    ]);
  });

  it('salt is the hash of the args, and does not depend on address or UUID spelling', () => {
    const respelled = {
      ...params,
      merchant: params.merchant.toLowerCase() as ForwarderParams['merchant'],
      paymentId: params.paymentId.toUpperCase(),
    };
    expect(forwarderSalt(params)).toBe(keccak256(forwarderArgs(params)));
    expect(forwarderSalt(respelled)).toBe(forwarderSalt(params));
  });

  it('salt and address change with every parameter', () => {
    const variants: ForwarderParams[] = [
      params,
      { ...params, merchant: getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906') },
      { ...params, treasury: getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906') },
      { ...params, feeBps: 151 },
      { ...params, paymentId: '0f8fad5b-d9cb-469f-a165-70867728950f' },
    ];
    expect(new Set(variants.map(forwarderSalt)).size).toBe(variants.length);
    const addresses = variants.map((p) => predictDepositAddress({ factory, implementation, params: p }));
    expect(new Set(addresses).size).toBe(variants.length);
  });

  it('address depends on the factory and the implementation', () => {
    const base = predictDepositAddress({ factory, implementation, params });
    expect(predictDepositAddress({ factory: implementation, implementation, params })).not.toBe(base);
    expect(predictDepositAddress({ factory, implementation: factory, params })).not.toBe(base);
  });

  it.each([
    { feeBps: -1 },
    { feeBps: 10_001 },
    { feeBps: 1.5 },
    { merchant: '0x0000000000000000000000000000000000000000' },
    { treasury: '0x1234' },
  ] as Partial<ForwarderParams>[])('refuses params the factory would refuse: %j', (override) => {
    expect(() => forwarderArgs({ ...params, ...override })).toThrow();
  });

  it('accepts the fee bounds', () => {
    expect(() => forwarderArgs({ ...params, feeBps: 0 })).not.toThrow();
    expect(() => forwarderArgs({ ...params, feeBps: 10_000 })).not.toThrow();
  });
});
