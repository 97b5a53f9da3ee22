/*
 * The payment page's "Pay with browser wallet": every wallet the browser announces through EIP-6963, else
 * window.ethereum. Where the checkout offers gasless payment (EIP-3009: data-gasless-url), the wallet signs a
 * TransferWithAuthorization that the server's relayer sends, paying the gas; a normal transfer (with gas) stays
 * one click away, and is the fallback. The one contract call it makes, an ERC-20 transfer, is encoded by hand
 * below. Served between statusPoll.js and checkout.js, as one script; `browserWallet` is called by checkout.js.
 */

const TRANSFER_SELECTOR = '0xa9059cbb'; // transfer(address,uint256)
const BALANCE_OF_SELECTOR = '0x70a08231'; // balanceOf(address)
const USER_REJECTED = 4001; // EIP-1193
const UNSUPPORTED_METHOD = 4200; // EIP-1193
const METHOD_NOT_FOUND = -32601; // JSON-RPC
const UNRECOGNIZED_CHAIN = 4902; // wallet_switchEthereumChain: the wallet does not know the chain

const isProvider = (p) => p && typeof p === 'object' && typeof p.request === 'function';
// Only image data URIs: the CSP allows `data:` images and nothing else from outside the page.
const safeIcon = (icon) =>
  typeof icon === 'string' && /^data:image\/(svg\+xml|png|webp|jpeg|gif)[;,]/i.test(icon) ? icon : '';

/**
 * Finds the wallets, keeps the buttons' state, and pays with the one chosen; returns `update`, which the live
 * status calls after each answer (the buttons wait while a payment is on its way or nothing is due).
 */
// biome-ignore lint/correctness/noUnusedVariables: called by checkout.js, served after this file.
function browserWallet(page) {
  const { $, state } = page;
  const walletList = $('[data-wallet-list]');
  const wallet = {
    page,
    payButton: document.getElementById('pay-wallet'),
    gasButton: $('[data-pay-with-gas]')?.querySelector('button'),
    /** Announced wallets by uuid, in the order they announced: { info: { uuid, name, icon, rdns }, provider }. */
    announced: new Map(),
    /** A wallet request is under way: every wallet button waits. */
    busy: false,
    /** The wallet last used, for "pay with a normal transfer instead". */
    lastProvider: null,
    /** The customer chose the transfer with gas: no signature is asked for any more. */
    preferGas: false,
    gaslessProbed: false,
    buttons: () => (walletList ? Array.from(walletList.querySelectorAll('button')) : []),
    update() {
      const disabled =
        wallet.busy || state.pendingTx !== null || state.remaining <= 0n || state.stage !== 'pay';
      if (wallet.payButton) wallet.payButton.disabled = disabled;
      if (wallet.gasButton) wallet.gasButton.disabled = disabled;
      for (const button of wallet.buttons()) button.disabled = disabled;
    },
    message(kind, fields = {}) {
      for (const [field, text] of Object.entries(fields)) page.setText(field, text);
      for (const el of page.$$('[data-wallet-message]')) el.hidden = el.dataset.walletMessage !== kind;
    },
    /** Whether the payment can be paid with a signature alone (gasless.json answered), on the networks that take it. */
    gaslessOffered: false,
    showGasless(offered) {
      wallet.gaslessOffered = offered;
      const shown = offered && state.network.gasless && !wallet.preferGas;
      const hint = $('[data-gasless-hint]');
      const gasBox = $('[data-pay-with-gas]');
      if (hint) hint.hidden = !shown;
      if (gasBox) gasBox.hidden = !shown;
    },
  };
  listenForWallets(wallet, walletList);
  if (wallet.gasButton)
    wallet.gasButton.addEventListener('click', () => {
      wallet.preferGas = true;
      wallet.showGasless(false);
      const [only, second] = wallet.announced.values();
      const provider = wallet.lastProvider ?? (second ? null : only ? only.provider : window.ethereum);
      // Several wallets and none chosen yet: the chooser's buttons now pay with gas.
      if (provider) payWithWallet(wallet, provider);
      else wallet.buttons()[0]?.focus();
    });
  // One wallet announced: that one; none: window.ethereum (several: the chooser's buttons).
  if (wallet.payButton)
    wallet.payButton.addEventListener('click', () => {
      const [only] = wallet.announced.values();
      payWithWallet(wallet, only ? only.provider : window.ethereum);
    });
  wallet.update();
  return {
    update() {
      wallet.update();
      wallet.showGasless(wallet.gaslessOffered);
    },
  };
}

/** EIP-6963 discovery, and window.ethereum where it comes late: each find redraws the wallet buttons. */
function listenForWallets(wallet, walletList) {
  const show = () => showWallets(wallet, walletList);
  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = event.detail;
    const uuid = detail?.info?.uuid;
    if (typeof uuid !== 'string' || !isProvider(detail.provider) || wallet.announced.has(uuid)) return;
    wallet.announced.set(uuid, { info: detail.info, provider: detail.provider });
    show();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  // Wallets that inject window.ethereum late (some in-app browsers) say so with this event, or by load.
  window.addEventListener('ethereum#initialized', show, { once: true });
  window.addEventListener('load', show, { once: true });
  show();
}

/** The button for one wallet, or the chooser for several; nothing without a wallet. */
function showWallets(wallet, walletList) {
  const { $, config } = wallet.page;
  const chooser = $('[data-wallet-chooser]');
  const walletBox = $('[data-wallet]');
  const walletTemplate = $('template[data-wallet-template]');
  const wallets = Array.from(wallet.announced.values());
  const fallback = isProvider(window.ethereum) ? window.ethereum : null;
  if (walletBox) walletBox.hidden = wallets.length === 0 && !fallback;
  if ((wallets.length > 0 || fallback) && config.gaslessUrl && !wallet.gaslessProbed) {
    // (Asked whatever the network shown: the hint follows the choice, showGasless.)
    // A wallet is there: ask once whether this payment can be paid with a signature alone, to say so.
    wallet.gaslessProbed = true;
    // What is due is the same on every network: one that takes signatures answers for them all.
    const taking = config.networks.find((n) => n.gasless);
    if (taking) gaslessTerms(config, taking).then((terms) => wallet.showGasless(terms !== null));
  }
  if (wallet.payButton) wallet.payButton.hidden = wallets.length > 1;
  if (!chooser || !walletList || !walletTemplate) return;
  chooser.hidden = wallets.length <= 1;
  if (wallets.length <= 1) return;
  walletList.replaceChildren(
    ...wallets.map(({ info, provider }) => {
      const item = walletTemplate.content.firstElementChild.cloneNode(true);
      const button = item.querySelector('button');
      item.querySelector('[data-wallet-name]').textContent = String(info.name || info.rdns || '').slice(
        0,
        60,
      );
      const icon = safeIcon(info.icon);
      if (icon) {
        const img = item.querySelector('img');
        img.src = icon;
        img.hidden = false;
      }
      button.addEventListener('click', () => payWithWallet(wallet, provider));
      return item;
    }),
  );
  wallet.update();
}

/**
 * What to sign for this payment now on `network` ({ domain, to, value, valid_before }: the domain is that chain's
 * USDC), or null: pay with gas.
 */
async function gaslessTerms(config, network) {
  try {
    const response = await fetch(`${config.gaslessUrl}?chain=${network.chainId}`, {
      cache: 'no-store',
      headers: { accept: 'application/json' },
    });
    return response.status === 200 ? await response.json() : null;
  } catch {
    return null;
  }
}

function randomNonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A wallet that cannot sign typed data: the transfer with gas is the way. */
function unsupported(error) {
  const code = errorCode(error);
  if (code === UNSUPPORTED_METHOD || code === METHOD_NOT_FOUND) return true;
  const message = error && typeof error.message === 'string' ? error.message : '';
  return /not supported|unsupported|does not exist/i.test(message);
}

/**
 * Asks the wallet to sign a transfer of what is due to the deposit address, and posts it: true once the
 * server took it or refused it (the page says which), false when the payment should go with gas instead.
 */
async function payGasless(wallet, ethereum, from, network) {
  const { config, state } = wallet.page;
  const terms = await gaslessTerms(config, network);
  if (!terms) return false;
  wallet.showGasless(true);
  const nonce = randomNonce();
  const message = {
    from,
    to: terms.to,
    value: terms.value,
    validAfter: '0',
    validBefore: terms.valid_before,
    nonce,
  };
  const typedData = {
    types: terms.types,
    domain: terms.domain,
    primaryType: terms.primary_type,
    message,
  };
  wallet.message('signing');
  let signature;
  try {
    signature = await ethereum.request({
      method: 'eth_signTypedData_v4',
      params: [from, JSON.stringify(typedData)],
    });
  } catch (error) {
    if (errorCode(error) !== USER_REJECTED && unsupported(error)) return false;
    throw error;
  }
  const response = await fetch(config.authorizationUrl, {
    method: 'POST',
    cache: 'no-store',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      from,
      to: terms.to,
      value: terms.value,
      valid_after: '0',
      valid_before: terms.valid_before,
      nonce,
      signature,
      chain_id: network.chainId,
    }),
  });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 202) {
    state.pendingTx = String(answer.authorization_id || nonce);
    wallet.message('signed');
    wallet.page.pollNow();
    return true;
  }
  if (answer.code === 'GASLESS_UNAVAILABLE') {
    wallet.showGasless(false);
    return false;
  }
  // The server's refusals are written for customers: shown as they are.
  const reason = typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`;
  wallet.message('refused', { 'wallet-refusal': reason.slice(0, 300) });
  return true;
}

/** One 32-byte ABI word: an address or an unsigned integer, left-padded with zeros. */
function abiWord(value) {
  if (typeof value === 'bigint') {
    if (value < 0n || value >= 2n ** 256n) throw new RangeError('uint256 out of range');
    return value.toString(16).padStart(64, '0');
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error('not an address');
  return value.slice(2).toLowerCase().padStart(64, '0');
}

/** USDC base units as a decimal string with at least two places (1234500 → "1.2345"). */
function formatUsdc(baseUnits) {
  const whole = baseUnits / 1_000_000n;
  let fraction = (baseUnits % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${whole}.${fraction}`;
}

function errorCode(error) {
  if (!error || typeof error !== 'object') return undefined;
  // Some wallets nest the EIP-1193 code (MetaMask mobile: error.data.originalError.code).
  return error.code ?? error.data?.originalError?.code ?? error.cause?.code;
}

class WrongChainError extends Error {}

/**
 * The network to pay on (decision 0033): the chain the wallet is on, where the payment is offered there and the
 * customer did not choose another — no switch; else the network chosen (home by default), switching the wallet.
 */
async function networkToPayOn(page, ethereum) {
  const { state, config } = page;
  const current = Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16);
  const walletsOwn = config.networks.find((n) => n.chainId === current);
  if (walletsOwn && (!state.networkPicked || walletsOwn === state.network)) {
    // The page then shows the network the payment goes on (its token, its link), as the wallet will.
    if (walletsOwn !== state.network) page.chooseNetwork(walletsOwn);
    return walletsOwn;
  }
  const chosen = state.network;
  await ensureChain(ethereum, chosen, current);
  return chosen;
}

async function ensureChain(ethereum, network, current) {
  const wanted = `0x${network.chainId.toString(16)}`;
  if (current === network.chainId) return;
  try {
    await ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: wanted }] });
  } catch (error) {
    if (errorCode(error) !== UNRECOGNIZED_CHAIN || !network.rpcUrl) throw new WrongChainError();
    await ethereum.request({
      method: 'wallet_addEthereumChain',
      params: [
        {
          chainId: wanted,
          chainName: network.chainName,
          nativeCurrency: { name: network.nativeSymbol, symbol: network.nativeSymbol, decimals: 18 },
          rpcUrls: [network.rpcUrl],
          ...(network.explorerUrl ? { blockExplorerUrls: [network.explorerUrl] } : {}),
        },
      ],
    });
  }
  // Some wallets add a chain without switching to it, or resolve the switch without switching: check, and
  // ask once more before giving up.
  if (Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16) === network.chainId) return;
  try {
    await ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: wanted }] });
  } catch {
    throw new WrongChainError();
  }
  const after = await ethereum.request({ method: 'eth_chainId' });
  if (Number.parseInt(after, 16) !== network.chainId) throw new WrongChainError();
}

async function payWithWallet(wallet, ethereum) {
  const { config, state, amountText } = wallet.page;
  const { deposit, gaslessUrl, authorizationUrl } = config;
  if (!isProvider(ethereum)) return;
  const amount = state.remaining;
  if (amount <= 0n || wallet.busy) return;
  wallet.busy = true;
  wallet.lastProvider = ethereum;
  wallet.update();
  wallet.message('working');
  try {
    const accounts = await ethereum.request({ method: 'eth_requestAccounts' });
    const from = Array.isArray(accounts) ? accounts[0] : undefined;
    if (!from) throw Object.assign(new Error('no account'), { code: USER_REJECTED });
    const network = await networkToPayOn(wallet.page, ethereum);

    const balanceWord = await ethereum.request({
      method: 'eth_call',
      params: [{ to: network.token, data: BALANCE_OF_SELECTOR + abiWord(from) }, 'latest'],
    });
    const balance = balanceWord && balanceWord !== '0x' ? BigInt(balanceWord) : 0n;
    if (balance < amount) {
      wallet.message('insufficient', { 'wallet-balance': amountText(formatUsdc(balance)) });
      return;
    }

    if (
      gaslessUrl &&
      authorizationUrl &&
      network.gasless &&
      !wallet.preferGas &&
      (await payGasless(wallet, ethereum, from, network))
    )
      return;
    wallet.message('working');
    const hash = await ethereum.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from,
          to: network.token,
          value: '0x0',
          data: TRANSFER_SELECTOR + abiWord(deposit) + abiWord(amount),
        },
      ],
    });
    state.pendingTx = hash;
    wallet.message('sent', { 'wallet-tx': String(hash) });
    wallet.page.pollNow();
  } catch (error) {
    if (error instanceof WrongChainError) wallet.message('wrong-chain');
    else if (errorCode(error) === USER_REJECTED) wallet.message('rejected');
    else {
      const message = error && typeof error.message === 'string' ? error.message : String(error);
      wallet.message('error', { 'wallet-error': message.slice(0, 300) });
    }
  } finally {
    wallet.busy = false;
    wallet.update();
  }
}
