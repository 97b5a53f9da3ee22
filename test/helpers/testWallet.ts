import type { Browser, BrowserContext } from 'playwright-core';
import type { Hex, TypedDataDefinition } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

// The init script runs in the page; the project's types have no DOM library, so its one global is declared.
declare const window: unknown;

/** The chain a test wallet is on: its node (which holds the accounts' keys, as anvil does) and its accounts. */
export interface WalletChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** The node's unlocked accounts, by index. */
  readonly accounts: readonly string[];
  /** The account the wallet holds when the options name none. */
  readonly defaultAccountIndex: number;
  /**
   * More chains the wallet reaches, each its own node with the same accounts (anvil's mnemonic): it knows them
   * when it knows `chainId` (`knowsChain`), and forwards to the node of the chain it is on.
   */
  readonly otherChains?: readonly { readonly chainId: number; readonly rpcUrl: string }[];
}

export interface WalletOptions {
  /** The anvil account the wallet holds. */
  readonly accountIndex?: number;
  /** The chain the wallet starts on; 0x1 by default, so the page must switch it. */
  readonly startChainId?: string;
  /** Whether the wallet already knows the payment's chain (else switching fails with 4902 until added). */
  readonly knowsChain?: boolean;
  /** Methods the user rejects (EIP-1193 code 4001). */
  readonly reject?: readonly string[];
  /**
   * Wallets announced through EIP-6963, each its own provider with its own anvil account and call log
   * (`__walletCallsBy[name]`); window.ethereum is then the first of them, as extensions do.
   */
  readonly announce?: readonly { readonly name: string; readonly accountIndex: number }[];
  /** No wallet at all: neither window.ethereum nor an announcement. */
  readonly none?: boolean;
  /**
   * A key of the wallet's own instead of an anvil account: it signs typed data (eth_signTypedData_v4) with
   * viem outside the page; anything it would send still goes to anvil, which does not hold the key.
   */
  readonly privateKey?: Hex;
}

export const WALLET_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#f59e0b"/><circle cx="12" cy="12" r="5" fill="#fff"/></svg>',
)}`;

/**
 * A browser context with a test wallet injected as `window.ethereum`, EIP-1193 style: account and chain
 * requests are answered by the shim itself, every other request is forwarded to anvil through a Playwright
 * binding (outside the page, as a wallet extension does, so the page's CSP connect-src is not involved).
 */
export async function walletContext(
  browser: Browser,
  chain: WalletChain,
  options: WalletOptions = {},
  contextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: 'en-GB', timezoneId: 'UTC', ...contextOptions });
  if (options.none) return context;
  const nodes = new Map([
    [`0x${chain.chainId.toString(16)}`, chain.rpcUrl],
    ...(chain.otherChains ?? []).map((c) => [`0x${c.chainId.toString(16)}`, c.rpcUrl] as const),
  ]);
  await context.exposeFunction('__anvilRpc', async (method: string, params: unknown[], on?: string) => {
    const response = await fetch((on && nodes.get(on)) ?? chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return response.json();
  });
  const own = options.privateKey ? privateKeyToAccount(options.privateKey) : undefined;
  if (own)
    await context.exposeFunction('__signTypedData', async (address: string, json: string) => {
      if (address.toLowerCase() !== own.address.toLowerCase()) throw new Error(`test wallet: not ${address}`);
      // What a wallet does with eth_signTypedData_v4: parse, sign (viem derives the EIP712Domain type itself).
      const { types, domain, primaryType, message } = JSON.parse(json) as TypedDataDefinition & {
        types: Record<string, unknown>;
      };
      const { EIP712Domain: _, ...messageTypes } = types;
      return own.signTypedData({
        domain,
        types: messageTypes,
        primaryType,
        message,
      } as TypedDataDefinition);
    });
  const account = own?.address ?? chain.accounts[options.accountIndex ?? chain.defaultAccountIndex]!;
  await context.addInitScript(
    ({ account, reachable, startChainId, knowsChain, reject, announce, icon, signsLocally }) => {
      type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };
      type Call = { method: string; params: unknown };
      const w = window as unknown as {
        __anvilRpc(method: string, params: unknown[], on?: string): Promise<RpcAnswer>;
        __signTypedData(address: string, json: string): Promise<string>;
        __walletCalls: Call[];
        __walletCallsBy: Record<string, Call[]>;
        ethereum: unknown;
        addEventListener(type: string, listener: () => void): void;
        dispatchEvent(event: unknown): boolean;
        CustomEvent: new (type: string, init: { detail: unknown }) => unknown;
      };
      const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
      const wallet = (account: string, calls: Call[]) => {
        let current = startChainId;
        const known = new Set(['0x1', ...(knowsChain ? reachable : [])]);
        return {
          isTestWallet: true,
          async request({ method, params }: { method: string; params?: unknown[] }) {
            calls.push({ method, params });
            if (reject.includes(method)) throw fail(4001, 'User rejected the request.');
            switch (method) {
              case 'eth_requestAccounts':
              case 'eth_accounts':
                return [account];
              case 'eth_chainId':
                return current;
              case 'wallet_switchEthereumChain': {
                const [{ chainId: wanted }] = params as [{ chainId: string }];
                if (!known.has(wanted)) throw fail(4902, `Unrecognized chain ID ${wanted}`);
                current = wanted;
                return null;
              }
              case 'wallet_addEthereumChain': {
                const [added] = params as [{ chainId: string }];
                known.add(added.chainId);
                current = added.chainId; // as MetaMask does once the user approves
                return null;
              }
              case 'eth_signTypedData_v4':
                if (signsLocally) {
                  const [address, json] = params as [string, string];
                  return w.__signTypedData(address, json);
                }
                return w.__anvilRpc(method, params ?? []).then((answer) => {
                  if (answer.error) throw fail(answer.error.code, answer.error.message);
                  return answer.result;
                });
              default: {
                if (!reachable.includes(current))
                  throw fail(4100, 'test wallet: the node is only reachable on anvil');
                const answer = await w.__anvilRpc(method, params ?? [], current);
                if (answer.error) throw fail(answer.error.code, answer.error.message);
                return answer.result;
              }
            }
          },
        };
      };
      w.__walletCalls = [];
      w.__walletCallsBy = {};
      if (announce.length === 0) {
        w.ethereum = wallet(account, w.__walletCalls);
        return;
      }
      // EIP-6963: each wallet answers every request for providers, and announces itself once at load.
      const wallets = announce.map(({ name, account }, i) => {
        w.__walletCallsBy[name] = [];
        const info = Object.freeze({
          uuid: `00000000-0000-4000-8000-00000000000${i}`,
          name,
          icon,
          rdns: `test.wallet${i}`,
        });
        return Object.freeze({ info, provider: wallet(account, w.__walletCallsBy[name]!) });
      });
      w.ethereum = wallets[0]!.provider;
      const announceAll = () => {
        for (const detail of wallets)
          w.dispatchEvent(new w.CustomEvent('eip6963:announceProvider', { detail }));
      };
      w.addEventListener('eip6963:requestProvider', announceAll);
      announceAll();
    },
    {
      account,
      reachable: [...nodes.keys()],
      startChainId: options.startChainId ?? '0x1',
      knowsChain: options.knowsChain ?? false,
      reject: [...(options.reject ?? [])],
      announce: (options.announce ?? []).map((a) => ({
        name: a.name,
        account: chain.accounts[a.accountIndex]!,
      })),
      icon: WALLET_ICON,
      signsLocally: own !== undefined,
    },
  );
  return context;
}
