import fc from 'fast-check';
import {
  type Address,
  concat,
  decodeAbiParameters,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  keccak256,
  numberToHex,
  size,
} from 'viem';
import { describe, expect, it } from 'vitest';
import {
  bytes16ToUuid,
  depositAddressPredictor,
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
const bytesHex = (bytes: Uint8Array): Address => `0x${Buffer.from(bytes).toString('hex')}`;
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

  it('address equals viem’s CREATE2 of the clone init code, for any params', () => {
    forAnyForwarder((p, someFactory, someImplementation) => {
      const args = encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'uint16' }, { type: 'bytes16' }],
        [p.merchant, p.treasury, p.feeBps, `0x${p.paymentId.replaceAll('-', '')}`],
      );
      const initCode = concat([
        '0x61',
        numberToHex(size(args) + 0x2d, { size: 2 }),
        '0x3d81600a3d39f3363d3d373d3d3d363d73',
        someImplementation,
        '0x5af43d82803e903d91602b57fd5bf3',
        args,
      ]);
      const reference = getContractAddress({
        opcode: 'CREATE2',
        from: someFactory,
        salt: keccak256(args),
        bytecode: initCode,
      });
      expect(forwarderArgs(p)).toBe(args);
      expect(
        predictDepositAddress({ factory: someFactory, implementation: someImplementation, params: p }),
      ).toBe(reference);
    });
  });

  it('version 3: viem’s CREATE2 of the bare 45-byte clone, salt the hash of the args, for any params', () => {
    forAnyForwarder((p, someFactory, someImplementation) => {
      const reference = getContractAddress({
        opcode: 'CREATE2',
        from: someFactory,
        salt: keccak256(forwarderArgs(p)),
        bytecode: concat([
          '0x3d602d80600a3d3981f3363d3d373d3d3d363d73',
          someImplementation,
          '0x5af43d82803e903d91602b57fd5bf3',
        ]),
      });
      const v3 = {
        factory: someFactory,
        implementation: someImplementation,
        params: p,
        version: 3,
      } as const;
      expect(predictDepositAddress(v3)).toBe(reference);
      expect(depositAddressPredictor(someFactory, someImplementation, 3)(p)).toBe(reference);
      // Versions 1 and 2 (the default) keep the clone with args: another address.
      expect(predictDepositAddress({ ...v3, version: 2 })).not.toBe(reference);
      expect(predictDepositAddress({ ...v3, version: 1 })).toBe(predictDepositAddress({ ...v3, version: 2 }));
      const { version: _, ...unsaid } = v3;
      expect(predictDepositAddress(unsaid)).toBe(predictDepositAddress({ ...v3, version: 2 }));
    });
  });

  it('one predictor gives every payment its own address, as a fresh computation does', () => {
    // The predictor copies its fixed parts for each payment: nothing of one payment may leak into the next.
    const predict = depositAddressPredictor(factory, implementation);
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(bytesHex(b)));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            merchant: address,
            treasury: address,
            feeBps: fc.integer({ min: 0, max: 10_000 }),
            paymentId: fc.uuid(),
          }),
          {
            minLength: 2,
            maxLength: 5,
          },
        ),
        (many) => {
          for (const p of many) {
            fc.pre(!/^0x0{40}$/.test(p.merchant) && !/^0x0{40}$/.test(p.treasury));
            expect(predict(p)).toBe(predictDepositAddress({ factory, implementation, params: p }));
          }
        },
      ),
    );
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

/** Runs `check` for any forwarder params (no zero merchant or treasury), any factory and any implementation. */
function forAnyForwarder(
  check: (
    p: { merchant: Address; treasury: Address; feeBps: number; paymentId: string },
    someFactory: Address,
    someImplementation: Address,
  ) => void,
): void {
  const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(bytesHex(b)));
  fc.assert(
    fc.property(
      address,
      address,
      address,
      address,
      fc.integer({ min: 0, max: 10_000 }),
      fc.uuid(),
      (merchant, treasury, someFactory, someImplementation, feeBps, paymentId) => {
        fc.pre(!/^0x0{40}$/.test(merchant) && !/^0x0{40}$/.test(treasury));
        check({ merchant, treasury, feeBps, paymentId }, someFactory, someImplementation);
      },
    ),
  );
}
