import { type Address, getAddress, isAddress } from 'viem';
import { ConfigError } from '../configError.ts';
import type { NetworkPreset, TokenSetting, VariablePrefix } from './networks.ts';

/**
 * PAYLINK_ACCEPTED_TOKENS and PAYLINK_NOTICED_TOKENS: comma-separated symbols of the network's known tokens
 * (`USDC,USDC.e`), or `SYMBOL:0xaddress[:decimals]` for others. USDC is always accepted, first, at `usdc`; an
 * accepted token must have 6 decimals (it is counted as USDC). Noticed by default: the network's usual mistakes.
 */
export function tokenSettings(
  preset: NetworkPreset,
  usdc: Address | undefined,
  acceptedSpec: string | undefined,
  noticedSpec: string | undefined,
  prefix: VariablePrefix,
): { acceptedTokens: TokenSetting[]; noticedTokens: TokenSetting[] } {
  const parse = (variable: string, spec: string): TokenSetting[] =>
    spec
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const [symbol = '', address, decimals] = entry.split(':').map((part) => part.trim());
        if (address === undefined) {
          const known = preset.knownTokens[symbol];
          if (!known) {
            throw new ConfigError(
              `Invalid configuration:\n  ${variable}: ${JSON.stringify(symbol)} is not a token known on this network (${Object.keys(preset.knownTokens).join(', ')}); give SYMBOL:0xaddress`,
            );
          }
          return symbol === 'USDC' ? { ...known, address: usdc } : known;
        }
        if (
          !/^[A-Za-z][\w.]{0,15}$/.test(symbol) ||
          !isAddress(address, { strict: false }) ||
          !/^\d{0,2}$/.test(decimals ?? '')
        ) {
          throw new ConfigError(
            `Invalid configuration:\n  ${variable}: "${entry}" is not SYMBOL:0xaddress[:decimals]`,
          );
        }
        return { symbol, address: getAddress(address), decimals: decimals ? Number(decimals) : 6 };
      });
  const acceptedVariable = `${prefix}ACCEPTED_TOKENS`;
  const accepted = parse(acceptedVariable, acceptedSpec ?? 'USDC');
  if (accepted[0]?.symbol !== 'USDC') {
    throw new ConfigError(
      `Invalid configuration:\n  ${acceptedVariable} must start with USDC, the token payments ask for`,
    );
  }
  for (const token of accepted) {
    if (token.decimals !== 6) {
      throw new ConfigError(
        `Invalid configuration:\n  ${acceptedVariable}: ${token.symbol} has ${token.decimals} decimals; an accepted token is counted as USDC and must have 6`,
      );
    }
  }
  const isAccepted = (token: TokenSetting) => accepted.some((a) => a.symbol === token.symbol);
  const noticed = (
    noticedSpec === undefined
      ? preset.noticedByDefault.map((symbol) => preset.knownTokens[symbol]!)
      : parse(`${prefix}NOTICED_TOKENS`, noticedSpec)
  ).filter((token) => !isAccepted(token));
  return { acceptedTokens: accepted, noticedTokens: noticed };
}
