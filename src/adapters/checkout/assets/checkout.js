/*
 * Paylink checkout: live status, countdown, copy buttons and "Pay with browser wallet" (every wallet the
 * browser announces through EIP-6963, else window.ethereum). Where the checkout offers gasless payment
 * (EIP-3009: data-gasless-url), the wallet signs a TransferWithAuthorization that the server's relayer sends,
 * paying the gas; a normal transfer (with gas) stays one click away, and is the fallback.
 *
 * Served by the checkout itself (the CSP allows scripts from 'self' only). No dependencies: the one contract
 * call it makes, an ERC-20 transfer, is encoded by hand below. It never writes markup — every text it shows
 * is set with textContent into elements the server rendered (and escaped) — so nothing a status response
 * carries can become script.
 */

(() => {
  const root = document.getElementById('checkout');
  if (!root) return;

  const TRANSFER_SELECTOR = '0xa9059cbb'; // transfer(address,uint256)
  const BALANCE_OF_SELECTOR = '0x70a08231'; // balanceOf(address)
  const USER_REJECTED = 4001; // EIP-1193
  const UNSUPPORTED_METHOD = 4200; // EIP-1193
  const METHOD_NOT_FOUND = -32601; // JSON-RPC
  const UNRECOGNIZED_CHAIN = 4902; // wallet_switchEthereumChain: the wallet does not know the chain
  const SLOW_POLL_MS = 15_000; // expired/failed may still turn paid (late), so keep looking, slowly
  const MAX_BACKOFF_MS = 30_000;

  const data = root.dataset;
  const config = {
    statusUrl: data.statusUrl,
    qrUrl: data.qrUrl,
    pollMs: Math.max(250, Number(data.pollMs) || 3000),
    chainId: Number(data.chainId),
    chainName: data.chainName,
    rpcUrl: data.rpcUrl,
    nativeSymbol: data.nativeSymbol || 'POL',
    explorerUrl: data.explorerUrl,
    token: data.token,
    deposit: data.deposit,
    locale: data.locale || 'en-GB',
    gaslessUrl: data.gaslessUrl,
    authorizationUrl: data.authorizationUrl,
  };

  // Numbers and times in the page's language, with the options localeFormat.ts uses on the server. Amounts
  // are formatted from their exact decimal strings (Intl.NumberFormat reads a string as a decimal).
  const number = (min, max) =>
    new Intl.NumberFormat(config.locale, {
      minimumFractionDigits: min,
      maximumFractionDigits: max,
      roundingMode: 'trunc',
    });
  const usdcFormat = number(2, 6);
  const amountText = (decimal) => usdcFormat.format(decimal);
  const momentFormats = {
    time: new Intl.DateTimeFormat(config.locale, {
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    }),
    date: new Intl.DateTimeFormat(config.locale, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    }),
  };

  let stage = data.stage;
  let remaining = BigInt(data.remaining || '0');
  // The deadline is kept on the page's monotonic clock from the server's "seconds left", so a customer whose
  // computer clock is wrong still sees the right countdown.
  let deadline = performance.now() + Number(data.secondsLeft || 0) * 1000;
  let pollTimer;
  let failures = 0;
  let pendingTx = null;
  let lastDetected = null;

  const $ = (selector) => root.querySelector(selector);
  const $$ = (selector) => Array.from(root.querySelectorAll(selector));

  // Progressive enhancement: controls that need this script are hidden in the HTML and shown here (the
  // wallet button only once a wallet is found, below).
  for (const el of $$('[data-copy]')) el.hidden = false;

  // Times: the server wrote UTC; the customer reads their own zone.
  for (const el of $$('time[data-moment]')) {
    const format = momentFormats[el.dataset.moment];
    const date = new Date(el.getAttribute('datetime'));
    if (format && !Number.isNaN(date.getTime())) el.textContent = format.format(date);
  }

  /* ---------- QR code: shown on wide screens, behind "Show QR code" on phones (the wallet link comes first) */
  const qrDetails = $('[data-qr-details]');
  const narrow = window.matchMedia('(max-width: 600px)');
  const fitQr = () => {
    if (qrDetails) qrDetails.open = !narrow.matches;
  };
  fitQr();
  narrow.addEventListener('change', fitQr);

  /* ---------- copy buttons ---------- */
  for (const button of $$('[data-copy]')) {
    const label = button.textContent;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      // The amount is shown as "27,00" in French, but copied as "27.00": what every wallet reads.
      const text = (source.dataset.value ?? source.textContent).trim();
      try {
        await navigator.clipboard.writeText(text);
      } catch {
        // No clipboard access (an old browser, a denied permission): select the text for a manual copy.
        const range = document.createRange();
        range.selectNodeContents(source);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        return;
      }
      button.textContent = button.dataset.copied || label;
      button.dataset.state = 'copied';
      setTimeout(() => {
        button.textContent = label;
        delete button.dataset.state;
      }, 2000);
    });
  }

  /* ---------- countdown ---------- */
  const countdown = $('[data-countdown]');
  function formatCountdown(totalSeconds) {
    const s = Math.max(0, Math.floor(totalSeconds));
    const hours = Math.floor(s / 3600);
    const minutes = Math.floor((s % 3600) / 60);
    const seconds = String(s % 60).padStart(2, '0');
    return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
  }
  let expiryAsked = false;
  function tick() {
    const left = (deadline - performance.now()) / 1000;
    if (countdown) countdown.textContent = formatCountdown(Math.ceil(left));
    // At zero, ask the server at once: it decides whether the link expired (its clock is the one that counts).
    if (left <= 0 && stage === 'pay' && !expiryAsked) {
      expiryAsked = true;
      pollNow();
    }
  }
  setInterval(tick, 1000);

  /* ---------- live status ---------- */
  const live = $('[data-live]');
  const connectionLost = $('[data-connection-lost]');

  function setText(field, text) {
    for (const el of $$(`[data-field="${field}"]`)) el.textContent = text;
  }

  function showStage(next) {
    if (next === stage) return;
    stage = next;
    let title = '';
    for (const section of $$('section[data-stage]')) {
      const active = section.dataset.stage === next;
      section.hidden = !active;
      if (active) title = section.querySelector('h2')?.textContent ?? '';
    }
    if (live) live.textContent = title;
    const rate = $('[data-rate]');
    if (rate) rate.hidden = next !== 'pay' && next !== 'confirming';
    if (next === 'paid') returnToShop();
  }

  // Paid, with a success_url: back to the shop after the seconds the page states, counted down where the
  // customer sees them, unless they choose to stay (the return link stays either way).
  let returnTimer;
  function returnToShop() {
    const box = $('[data-redirect]');
    const link = $('section[data-stage="paid"] [data-return-link]');
    const seconds = box?.querySelector('[data-redirect-seconds]');
    if (!box || !link || !seconds || returnTimer !== undefined) return;
    let left = Number(seconds.textContent) || 5;
    box.hidden = false;
    const step = () => {
      if (left <= 0) {
        window.location.assign(link.href);
        return;
      }
      seconds.textContent = String(left);
      left -= 1;
      returnTimer = setTimeout(step, 1000);
    };
    box.querySelector('[data-redirect-stay]')?.addEventListener('click', () => {
      clearTimeout(returnTimer);
      box.hidden = true;
      link.focus();
    });
    step();
  }

  const transferTemplate = $('template[data-transfer-template]');
  let shownTransfers = '';
  function showTransfers(transfers) {
    const key = JSON.stringify(transfers);
    if (key === shownTransfers || !transferTemplate) return;
    shownTransfers = key;
    for (const list of $$('[data-transfers]')) {
      list.replaceChildren(
        ...transfers.map((t) => {
          const item = transferTemplate.content.firstElementChild.cloneNode(true);
          const part = (name) => item.querySelector(`[data-t="${name}"]`);
          part('amount').textContent = amountText(t.amount);
          part('txid').textContent = t.txid;
          part('pending').hidden = t.final;
          const link = part('link');
          link.hidden = !t.tx_url;
          if (t.tx_url) link.href = t.tx_url;
          return item;
        }),
      );
    }
    for (const el of $$('[data-tx]')) el.hidden = transfers.length === 0;
  }

  function apply(status) {
    remaining = BigInt(status.amount_remaining_base_units);
    deadline = performance.now() + status.seconds_left * 1000;
    if (status.seconds_left > 0) expiryAsked = false;
    setText('remaining', amountText(status.amount_remaining));
    const amount = $('#amount');
    if (amount) amount.dataset.value = status.amount_remaining;
    setText('detected', amountText(status.amount_detected));
    setText('received', amountText(status.amount_received));
    setText('required', amountText(status.usdc_amount));
    setText('overpaid', amountText(status.amount_overpaid));
    for (const el of $$('[data-overpaid]')) el.hidden = status.amount_overpaid === '0.00';
    showTransfers(status.transfers);
    for (const el of $$('[data-late]')) el.hidden = !status.late;

    const partial = status.stage === 'pay' && status.amount_detected !== '0.00';
    const partialBox = $('[data-partial]');
    if (partialBox) partialBox.hidden = !partial;
    const confirmingPart = $('[data-partial-confirming]');
    if (confirmingPart) confirmingPart.hidden = status.amount_detected === status.amount_received;

    const paymentLink = $('[data-payment-link]');
    if (paymentLink) paymentLink.href = status.payment_link;
    const qr = $('[data-qr]');
    const qrSrc = `${config.qrUrl}?amount=${status.amount_remaining_base_units}`;
    if (qr && qr.getAttribute('src') !== qrSrc) qr.setAttribute('src', qrSrc);

    // A transfer we sent has shown up (or another did): the button may be used again for what is left.
    if (lastDetected !== null && lastDetected !== status.amount_detected) pendingTx = null;
    lastDetected = status.amount_detected;
    updateWalletButton();
    showStage(status.stage);
  }

  async function poll() {
    clearTimeout(pollTimer);
    let next = config.pollMs;
    try {
      const response = await fetch(config.statusUrl, {
        cache: 'no-store',
        headers: { accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      apply(await response.json());
      failures = 0;
      if (connectionLost) connectionLost.hidden = true;
    } catch {
      failures += 1;
      if (connectionLost && failures >= 2) connectionLost.hidden = false;
      next = Math.min(MAX_BACKOFF_MS, config.pollMs * 2 ** failures);
    }
    if (stage === 'paid') return; // terminal
    if (stage === 'expired' || stage === 'failed') next = Math.max(next, SLOW_POLL_MS);
    pollTimer = setTimeout(poll, next);
  }

  function pollNow() {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, 0);
  }

  if (stage !== 'paid') pollTimer = setTimeout(poll, config.pollMs);
  else returnToShop();
  // A phone that slept or a tab in the background: refresh as soon as the customer looks again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && stage !== 'paid') pollNow();
  });

  /* ---------- pay with a browser wallet (EIP-6963 discovery, EIP-1193 requests) ---------- */
  const payButton = document.getElementById('pay-wallet');
  const walletBox = $('[data-wallet]');
  const chooser = $('[data-wallet-chooser]');
  const walletList = $('[data-wallet-list]');
  const walletTemplate = $('template[data-wallet-template]');
  /** Announced wallets by uuid, in the order they announced: { info: { uuid, name, icon, rdns }, provider }. */
  const announced = new Map();
  /** A wallet request is under way: every wallet button waits. */
  let busy = false;
  const gaslessHint = $('[data-gasless-hint]');
  const gasBox = $('[data-pay-with-gas]');
  const gasButton = gasBox?.querySelector('button');
  /** The wallet last used, for "pay with a normal transfer instead". */
  let lastProvider = null;
  /** The customer chose the transfer with gas: no signature is asked for any more. */
  let preferGas = false;
  let gaslessProbed = false;

  const isProvider = (p) => p && typeof p === 'object' && typeof p.request === 'function';
  // Only image data URIs: the CSP allows `data:` images and nothing else from outside the page.
  const safeIcon = (icon) =>
    typeof icon === 'string' && /^data:image\/(svg\+xml|png|webp|jpeg|gif)[;,]/i.test(icon) ? icon : '';

  function walletButtons() {
    return walletList ? Array.from(walletList.querySelectorAll('button')) : [];
  }

  /** The button for one wallet, or the chooser for several; nothing without a wallet. */
  function showWallets() {
    const wallets = Array.from(announced.values());
    const fallback = isProvider(window.ethereum) ? window.ethereum : null;
    if (walletBox) walletBox.hidden = wallets.length === 0 && !fallback;
    if ((wallets.length > 0 || fallback) && config.gaslessUrl && !gaslessProbed) {
      // A wallet is there: ask once whether this payment can be paid with a signature alone, to say so.
      gaslessProbed = true;
      gaslessTerms().then((terms) => showGasless(terms !== null));
    }
    if (payButton) payButton.hidden = wallets.length > 1;
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
        button.addEventListener('click', () => payWithWallet(provider));
        return item;
      }),
    );
    updateWalletButton();
  }

  window.addEventListener('eip6963:announceProvider', (event) => {
    const detail = event.detail;
    const uuid = detail?.info?.uuid;
    if (typeof uuid !== 'string' || !isProvider(detail.provider) || announced.has(uuid)) return;
    announced.set(uuid, { info: detail.info, provider: detail.provider });
    showWallets();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  // Wallets that inject window.ethereum late (some in-app browsers) say so with this event, or by load.
  window.addEventListener('ethereum#initialized', showWallets, { once: true });
  window.addEventListener('load', showWallets, { once: true });
  showWallets();

  function updateWalletButton() {
    const disabled = busy || pendingTx !== null || remaining <= 0n || stage !== 'pay';
    if (payButton) payButton.disabled = disabled;
    if (gasButton) gasButton.disabled = disabled;
    for (const button of walletButtons()) button.disabled = disabled;
  }

  /* ---------- gasless payment: the wallet signs an EIP-3009 authorization, the server relays it ---------- */
  function showGasless(offered) {
    if (gaslessHint) gaslessHint.hidden = !offered || preferGas;
    if (gasBox) gasBox.hidden = !offered || preferGas;
  }

  /** What to sign for this payment now ({ domain, to, value, valid_before }), or null: pay with gas. */
  async function gaslessTerms() {
    try {
      const response = await fetch(config.gaslessUrl, {
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
  async function payGasless(ethereum, from) {
    const terms = await gaslessTerms();
    if (!terms) return false;
    showGasless(true);
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
    showWalletMessage('signing');
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
      }),
    });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 202) {
      pendingTx = String(answer.authorization_id || nonce);
      showWalletMessage('signed');
      pollNow();
      return true;
    }
    if (answer.code === 'GASLESS_UNAVAILABLE') {
      showGasless(false);
      return false;
    }
    // The server's refusals are written for customers: shown as they are.
    const reason = typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`;
    showWalletMessage('refused', { 'wallet-refusal': reason.slice(0, 300) });
    return true;
  }

  if (gasButton)
    gasButton.addEventListener('click', () => {
      preferGas = true;
      showGasless(false);
      const [only, second] = announced.values();
      const provider = lastProvider ?? (second ? null : only ? only.provider : window.ethereum);
      // Several wallets and none chosen yet: the chooser's buttons now pay with gas.
      if (provider) payWithWallet(provider);
      else walletButtons()[0]?.focus();
    });

  function showWalletMessage(kind, fields = {}) {
    for (const [field, text] of Object.entries(fields)) setText(field, text);
    for (const el of $$('[data-wallet-message]')) el.hidden = el.dataset.walletMessage !== kind;
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

  async function ensureChain(ethereum) {
    const wanted = `0x${config.chainId.toString(16)}`;
    const current = await ethereum.request({ method: 'eth_chainId' });
    if (Number.parseInt(current, 16) === config.chainId) return;
    try {
      await ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: wanted }] });
    } catch (error) {
      if (errorCode(error) !== UNRECOGNIZED_CHAIN || !config.rpcUrl) throw new WrongChainError();
      await ethereum.request({
        method: 'wallet_addEthereumChain',
        params: [
          {
            chainId: wanted,
            chainName: config.chainName,
            nativeCurrency: { name: config.nativeSymbol, symbol: config.nativeSymbol, decimals: 18 },
            rpcUrls: [config.rpcUrl],
            ...(config.explorerUrl ? { blockExplorerUrls: [config.explorerUrl] } : {}),
          },
        ],
      });
    }
    // Some wallets add a chain without switching to it, or resolve the switch without switching: check, and
    // ask once more before giving up.
    if (Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16) === config.chainId) return;
    try {
      await ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: wanted }] });
    } catch {
      throw new WrongChainError();
    }
    const after = await ethereum.request({ method: 'eth_chainId' });
    if (Number.parseInt(after, 16) !== config.chainId) throw new WrongChainError();
  }

  async function payWithWallet(ethereum) {
    if (!isProvider(ethereum)) return;
    const amount = remaining;
    if (amount <= 0n || busy) return;
    busy = true;
    lastProvider = ethereum;
    updateWalletButton();
    showWalletMessage('working');
    try {
      const accounts = await ethereum.request({ method: 'eth_requestAccounts' });
      const from = Array.isArray(accounts) ? accounts[0] : undefined;
      if (!from) throw Object.assign(new Error('no account'), { code: USER_REJECTED });
      await ensureChain(ethereum);

      const balanceWord = await ethereum.request({
        method: 'eth_call',
        params: [{ to: config.token, data: BALANCE_OF_SELECTOR + abiWord(from) }, 'latest'],
      });
      const balance = balanceWord && balanceWord !== '0x' ? BigInt(balanceWord) : 0n;
      if (balance < amount) {
        showWalletMessage('insufficient', { 'wallet-balance': amountText(formatUsdc(balance)) });
        return;
      }

      if (config.gaslessUrl && config.authorizationUrl && !preferGas && (await payGasless(ethereum, from)))
        return;
      showWalletMessage('working');
      const hash = await ethereum.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from,
            to: config.token,
            value: '0x0',
            data: TRANSFER_SELECTOR + abiWord(config.deposit) + abiWord(amount),
          },
        ],
      });
      pendingTx = hash;
      showWalletMessage('sent', { 'wallet-tx': String(hash) });
      pollNow();
    } catch (error) {
      if (error instanceof WrongChainError) showWalletMessage('wrong-chain');
      else if (errorCode(error) === USER_REJECTED) showWalletMessage('rejected');
      else {
        const message = error && typeof error.message === 'string' ? error.message : String(error);
        showWalletMessage('error', { 'wallet-error': message.slice(0, 300) });
      }
    } finally {
      busy = false;
      updateWalletButton();
    }
  }

  // One wallet announced: that one; none: window.ethereum (several: the chooser's buttons).
  if (payButton)
    payButton.addEventListener('click', () => {
      const [only] = announced.values();
      payWithWallet(only ? only.provider : window.ethereum);
    });
  updateWalletButton();
})();
