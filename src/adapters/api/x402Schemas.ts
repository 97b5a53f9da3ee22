import { z } from 'zod';
import { JsonNumber } from './losslessJson.ts';

/**
 * The x402 v2 facilitator's request and response shapes (`VerifyRequest`, `SettleRequest`, `VerifyResponse`,
 * `SettleResponse`, `SupportedResponse` of `@x402/core/types`), for the exact scheme on EVM. Unknown fields are
 * kept out, not refused: x402 grows by adding fields (extensions), and a resource server must not break on them.
 */

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 0x-prefixed 20-byte address' });
const uint = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, { error: 'must be a decimal integer string' });

/** A small JSON integer in [min, max] (the API's JSON keeps numbers as written: losslessJson.ts). */
const smallInteger = (min: number, max: number, error: string) =>
  z
    .custom<JsonNumber>((value) => value instanceof JsonNumber && /^-?[0-9]{1,9}$/.test(value.text), {
      error,
    })
    .transform((value) => Number(value.text))
    .refine((value) => value >= min && value <= max, { error })
    .meta({ type: 'integer', minimum: min, maximum: max });

const version2 = smallInteger(2, 2, 'must be 2: this facilitator answers x402 v2');

const Requirements = z.object(
  {
    scheme: z.string().max(40),
    network: z.string().max(100).meta({ description: 'CAIP-2, eip155:<chain id>' }),
    asset: address.meta({ description: 'The token (this network’s USDC)' }),
    amount: uint.meta({ description: 'The price in the token’s base units' }),
    payTo: address.meta({ description: 'The merchant’s Paylink x402 address on this network' }),
    maxTimeoutSeconds: smallInteger(1, 86_400, 'must be a number of seconds from 1 to 86400'),
    extra: z.record(z.string(), z.unknown()).optional(),
  },
  { error: 'must be x402 payment requirements' },
);

const ExactEvmPayload = z.object(
  {
    signature: z
      .string()
      .regex(/^0x([0-9a-fA-F]{2}){65,4096}$/, { error: 'must be a 0x-prefixed signature' }),
    authorization: z.object({
      from: address,
      to: address,
      value: uint,
      validAfter: uint,
      validBefore: uint,
      nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a 0x-prefixed 32-byte nonce' }),
    }),
  },
  { error: 'must be an exact EVM payload: an EIP-3009 authorization and its signature' },
);

export const X402PaymentBody = z.object(
  {
    x402Version: version2,
    paymentPayload: z.object({
      x402Version: version2,
      resource: z
        .object({ url: z.string().max(2048), description: z.string().max(500).optional() })
        .optional(),
      accepted: Requirements,
      payload: ExactEvmPayload,
    }),
    paymentRequirements: Requirements,
  },
  { error: 'must be an x402 verify or settle request' },
);

export type X402PaymentBodyType = z.infer<typeof X402PaymentBody>;

export const X402VerifyResponse = z.object({
  isValid: z.boolean(),
  invalidReason: z
    .string()
    .optional()
    .meta({ description: 'x402’s reason code, e.g. invalid_exact_evm_signature' }),
  invalidMessage: z.string().optional(),
  payer: z.string().optional(),
});

export const X402SettleResponse = z.object({
  success: z.boolean(),
  errorReason: z.string().optional(),
  errorMessage: z.string().optional(),
  payer: z.string().optional(),
  transaction: z.string().meta({ description: 'The transfer’s transaction hash; empty when not settled' }),
  network: z.string(),
  amount: z.string().optional().meta({ description: 'Base units settled' }),
});

export const X402SupportedResponse = z.object({
  kinds: z.array(
    z.object({
      x402Version: z.number().int(),
      scheme: z.string(),
      network: z.string(),
      extra: z
        .object({
          payTo: z
            .string()
            .meta({ description: 'The merchant’s Paylink x402 address: the payTo of its routes' }),
          asset: z.string().meta({ description: 'The token (USDC)' }),
          name: z.string().optional().meta({ description: 'The token’s EIP-712 domain name' }),
          version: z.string().optional().meta({ description: 'The token’s EIP-712 domain version' }),
        })
        .optional(),
    }),
  ),
  extensions: z.array(z.string()),
  signers: z.record(z.string(), z.array(z.string())),
});
