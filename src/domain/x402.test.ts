import { describe, expect, it } from 'vitest';
import type { TransferAuthorization } from './transferAuthorization.ts';
import {
  caip2Of,
  chainIdOfCaip2,
  refuseX402,
  X402_MIN_VALIDITY_LEFT_S,
  X402_REFUSALS,
  type X402Requirements,
} from './x402.ts';

const PAY_TO = '0x1111111111111111111111111111111111111111';
const PAYER = '0x2222222222222222222222222222222222222222';
const USDC = '0x3333333333333333333333333333333333333333';
const CHAIN = 137;
const NOW_S = 1_800_000_000n;
// Mid-second: the token compares whole seconds, so the boundary is the second `now` falls in.
const now = new Date(Number(NOW_S) * 1000 + 400);
const terms = { payTo: PAY_TO, asset: USDC, now };
const requirements: X402Requirements = {
  scheme: 'exact',
  network: 'eip155:137',
  // Checksummed, as a resource server writes it: compared without case.
  asset: '0x3333333333333333333333333333333333333333'.toUpperCase().replace('0X', '0x'),
  amountBaseUnits: 10_000n,
  payTo: PAY_TO,
};
const fits: TransferAuthorization = {
  from: PAYER,
  to: PAY_TO,
  valueBaseUnits: 10_000n,
  validAfter: NOW_S - 600n,
  validBefore: NOW_S + 60n,
  nonce: `0x${'ab'.repeat(32)}`,
};
const refusal = (
  changes: Partial<TransferAuthorization>,
  req: Partial<X402Requirements> = {},
  accepted: Partial<X402Requirements> = {},
) =>
  refuseX402(
    { ...requirements, ...req },
    { ...requirements, ...req, ...accepted },
    { ...fits, ...changes },
    CHAIN,
    terms,
  );

describe('refuseX402', () => {
  it('accepts an authorization of exactly the price to the merchant’s address, valid now', () => {
    expect(refusal({})).toBeUndefined();
  });

  it('refuses a value one base unit short of the price, and one above', () => {
    expect(refusal({ valueBaseUnits: 9_999n })).toBe('invalid_exact_evm_authorization_value');
    expect(refusal({ valueBaseUnits: 10_001n })).toBe('invalid_exact_evm_authorization_value');
  });

  it('refuses a price of nothing, even signed for nothing', () => {
    expect(refusal({ valueBaseUnits: 0n }, { amountBaseUnits: 0n })).toBe(
      'invalid_exact_evm_authorization_value',
    );
  });

  it('refuses an authorization whose validBefore is exactly now, and accepts the least validity left', () => {
    expect(refusal({ validBefore: NOW_S })).toBe('invalid_exact_evm_payload_authorization_valid_before');
    expect(refusal({ validBefore: NOW_S + X402_MIN_VALIDITY_LEFT_S - 1n })).toBe(
      'invalid_exact_evm_payload_authorization_valid_before',
    );
    expect(refusal({ validBefore: NOW_S + X402_MIN_VALIDITY_LEFT_S })).toBeUndefined();
  });

  it('refuses validAfter at now (the token wants it strictly past) and accepts one second before', () => {
    expect(refusal({ validAfter: NOW_S + 1n })).toBe('invalid_exact_evm_payload_authorization_valid_after');
    expect(refusal({ validAfter: NOW_S })).toBe('invalid_exact_evm_payload_authorization_valid_after');
    expect(refusal({ validAfter: NOW_S - 1n })).toBeUndefined();
  });

  it('refuses a payment to another address than the merchant’s, in the authorization or the requirements', () => {
    const other = '0x4444444444444444444444444444444444444444';
    expect(refusal({ to: other })).toBe('invalid_exact_evm_recipient_mismatch');
    expect(refusal({}, { payTo: other })).toBe('invalid_exact_evm_recipient_mismatch');
  });

  it('refuses another network, another namespace, and a payload accepted on another network', () => {
    expect(refusal({}, { network: 'eip155:1' })).toBe('invalid_exact_evm_network_mismatch');
    expect(refusal({}, { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' })).toBe(
      'invalid_exact_evm_network_mismatch',
    );
    expect(refusal({}, {}, { network: 'eip155:8453' })).toBe('invalid_exact_evm_network_mismatch');
  });

  it('refuses another token than the chain’s USDC', () => {
    expect(refusal({}, { asset: '0x5555555555555555555555555555555555555555' })).toBe(
      'invalid_exact_evm_asset_mismatch',
    );
  });

  it('refuses a payload that accepted a lower price than the requirements it is checked against', () => {
    expect(refusal({}, {}, { amountBaseUnits: 1n })).toBe(
      'invalid_exact_evm_payload_authorization_value_mismatch',
    );
  });

  it('refuses another scheme', () => {
    expect(refusal({}, { scheme: 'upto' })).toBe('unsupported_scheme');
  });

  it('refuses a transfer from the receiving address to itself', () => {
    expect(refusal({ from: PAY_TO })).toBe('invalid_exact_evm_self_transfer');
  });

  it('words every refusal', () => {
    for (const message of Object.values(X402_REFUSALS)) expect(message.length).toBeGreaterThan(10);
  });
});

describe('CAIP-2 network ids', () => {
  it('reads and writes eip155 ids, and nothing else', () => {
    expect(caip2Of(80002)).toBe('eip155:80002');
    expect(chainIdOfCaip2('eip155:80002')).toBe(80002);
    expect(chainIdOfCaip2('eip155:0')).toBeUndefined();
    expect(chainIdOfCaip2('eip155:01')).toBeUndefined();
    expect(chainIdOfCaip2('eip155:137 ')).toBeUndefined();
    expect(chainIdOfCaip2('cosmos:137')).toBeUndefined();
  });
});
