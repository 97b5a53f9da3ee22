/**
 * Why a call reverted, in words an operator can act on: the token's own message ("Blacklistable: account is
 * blacklisted", "Pausable: paused"), a custom error with its name and arguments
 * ("ERC20InsufficientBalance(sender=0x…, balance=1, needed=2)"), or a panic with its meaning. Stored per payment and
 * shown wherever a payout failure is (logs, status, webhooks, CLI, metrics).
 */
import {
  type Abi,
  BaseError,
  decodeErrorResult,
  ExecutionRevertedError,
  type Hex,
  isHex,
  parseAbi,
  RpcRequestError,
} from 'viem';

/** Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require"). */
const PANICS: Readonly<Record<number, string>> = {
  1: 'assertion failed',
  17: 'arithmetic overflow or underflow',
  18: 'division or modulo by zero',
  33: 'invalid enum value',
  34: 'corrupt storage byte array',
  49: 'pop on an empty array',
  50: 'array index out of bounds',
  65: 'out of memory',
  81: 'call to an uninitialised function',
};

/**
 * OpenZeppelin's ERC-6093 errors of an ERC-20 token, which viem's erc20Abi does not list, written as Solidity
 * declares them: added to the ABI a revert is decoded against, so that a token built on them says why in words
 * (FiatToken reverts with strings, which need no entry).
 */
export const ERC20_ERRORS = parseAbi([
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
]);

/** A stored reason stays readable in a log line, a metric label and a webhook. */
const MAX_REASON_LENGTH = 200;

/** The revert data's meaning, decoded against `abi` (plus `Error(string)` and `Panic(uint256)`). */
export function describeRevertData(data: Hex | undefined, abi: Abi): string {
  if (data === undefined || data === '0x') return 'reverted without a reason';
  let decoded: { abiItem: unknown; args: readonly unknown[] | undefined; errorName: string };
  try {
    decoded = decodeErrorResult({ abi, data });
  } catch {
    return `reverted with unknown error ${data.slice(0, 10)}`;
  }
  const args = decoded.args ?? [];
  if (decoded.errorName === 'Error') return truncate(String(args[0]));
  if (decoded.errorName === 'Panic') {
    const code = Number(args[0]);
    return `panic 0x${code.toString(16).padStart(2, '0')}: ${PANICS[code] ?? 'unknown panic'}`;
  }
  const inputs = (decoded.abiItem as { inputs?: readonly { name?: string }[] }).inputs ?? [];
  const named = args.map((value, i) => {
    const name = inputs[i]?.name;
    return name ? `${name}=${String(value)}` : String(value);
  });
  return truncate(`${decoded.errorName}(${named.join(', ')})`);
}

/**
 * The reason if `error` is the call reverting; undefined for any other failure (the node unreachable, a timeout),
 * which callers treat as "try again later", never as the payment's fault.
 */
export function revertReasonOf(error: unknown, abi: Abi): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ExecutionRevertedError);
  if (!(reverted instanceof ExecutionRevertedError)) return undefined;
  const withData = error.walk((e) => e instanceof RpcRequestError && isHex(e.data));
  const data = withData instanceof RpcRequestError ? (withData.data as Hex) : undefined;
  // No revert data at all (a bare `revert()`, or a node that drops it) says only that it reverted.
  return describeRevertData(data !== undefined && data.length >= 10 ? data : undefined, abi);
}

function truncate(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > MAX_REASON_LENGTH ? `${clean.slice(0, MAX_REASON_LENGTH - 1)}…` : clean;
}
