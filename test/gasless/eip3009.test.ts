/**
 * EIP-3009 read from a real token on anvil (the USDC stand-in implements FiatToken's transferWithAuthorization):
 * the domain comes from the token, a signature is recovered exactly as the token checks it, and the submitted
 * call moves the money without the customer paying gas.
 */
import { randomBytes } from 'node:crypto';
import { type Address, type Hex, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUsdcAbi } from '../../src/adapters/chain/contractAbis.ts';
import { deployFactory, deployTestUsdc } from '../../src/adapters/chain/deployContracts.ts';
import {
  isAuthorizationUsed,
  readAuthorizationDomain,
  recoverAuthorizer,
  transferWithAuthorizationCall,
} from '../../src/adapters/chain/eip3009.ts';
import type { AuthorizationDomain, TransferAuthorization } from '../../src/domain/transferAuthorization.ts';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { signAuthorization } from '../helpers/transferAuthorization.ts';

describe('EIP-3009 on a USDC-like token', () => {
  let anvil: Anvil;
  let usdc: Address;
  let domain: AuthorizationDomain;
  const CUSTOMER = 2;
  const RELAYER = 0;
  const recipient = '0x00000000000000000000000000000000000c0ffe';

  beforeAll(async () => {
    anvil = await startAnvil();
    usdc = await deployTestUsdc(anvil.wallet(RELAYER), anvil.publicClient);
    const mint = await anvil.wallet(RELAYER).writeContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'mint',
      args: [anvil.addresses[CUSTOMER]!, 100_000_000n],
    });
    await anvil.publicClient.waitForTransactionReceipt({ hash: mint });
    const read = await readAuthorizationDomain(anvil.publicClient, usdc, anvil.chain.id);
    if (!read) throw new Error('the USDC stand-in should support EIP-3009');
    domain = read;
  });
  afterAll(() => anvil?.stop());

  const authorization = (changes: Partial<TransferAuthorization> = {}): TransferAuthorization => ({
    from: anvil.addresses[CUSTOMER]!.toLowerCase(),
    to: recipient,
    valueBaseUnits: 27_000_000n,
    validAfter: 0n,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 3_600),
    nonce: toHex(randomBytes(32)),
    ...changes,
  });
  const sign = (auth: TransferAuthorization, signingDomain = domain): Promise<Hex> =>
    signAuthorization(anvil.wallet(CUSTOMER), signingDomain, auth);

  it('reads the domain from the token itself, checked against its DOMAIN_SEPARATOR', async () => {
    expect(domain).toEqual({
      name: await anvil.publicClient.readContract({ address: usdc, abi: testUsdcAbi, functionName: 'name' }),
      version: '2',
      chainId: anvil.chain.id,
      verifyingContract: usdc,
    });
  });

  it('says a token without EIP-3009 (another contract, or no contract) is not supported', async () => {
    const { factory } = await deployFactory(anvil.wallet(RELAYER), anvil.publicClient);
    expect(await readAuthorizationDomain(anvil.publicClient, factory, anvil.chain.id)).toBeUndefined();
    expect(await readAuthorizationDomain(anvil.publicClient, recipient, anvil.chain.id)).toBeUndefined();
    // The right token on the wrong chain id: its separator would not match what the wallet signs.
    expect(await readAuthorizationDomain(anvil.publicClient, usdc, 137)).toBeUndefined();
  });

  it('recovers the signer of an authorization; a changed field or another domain recovers someone else', async () => {
    const auth = authorization();
    const signature = await sign(auth);
    expect(await recoverAuthorizer(domain, auth, signature)).toBe(auth.from);
    expect(await recoverAuthorizer(domain, { ...auth, valueBaseUnits: 27_000_001n }, signature)).not.toBe(
      auth.from,
    );
    const otherChain = await sign(auth, { ...domain, chainId: 137 });
    expect(await recoverAuthorizer(domain, auth, otherChain)).not.toBe(auth.from);
    expect(await recoverAuthorizer(domain, auth, '0x1234')).toBeUndefined();
    expect(await recoverAuthorizer(domain, auth, 'not hex')).toBeUndefined();
  });

  it('the call it builds moves exactly the value, paid for by the relayer; the nonce is then used', async () => {
    const auth = authorization();
    const signature = await sign(auth);
    const customerGasBefore = await anvil.publicClient.getBalance({ address: anvil.addresses[CUSTOMER]! });
    expect(await isAuthorizationUsed(anvil.publicClient, usdc, auth.from, auth.nonce)).toBe(false);
    const hash = await anvil.wallet(RELAYER).sendTransaction({
      to: usdc,
      data: transferWithAuthorizationCall(auth, signature),
    });
    const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const balance = await anvil.publicClient.readContract({
      address: usdc,
      abi: testUsdcAbi,
      functionName: 'balanceOf',
      args: [recipient],
    });
    expect(balance).toBe(27_000_000n);
    expect(await isAuthorizationUsed(anvil.publicClient, usdc, auth.from, auth.nonce)).toBe(true);
    expect(await anvil.publicClient.getBalance({ address: anvil.addresses[CUSTOMER]! })).toBe(
      customerGasBefore,
    );
  });
});
