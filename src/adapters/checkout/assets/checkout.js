/*
 * Paylink checkout: live status, countdown, copy buttons and "Pay with browser wallet".
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

  // Progressive enhancement: controls that need this script are hidden in the HTML and shown here.
  for (const el of $$('[data-copy], [data-wallet]')) el.hidden = false;

  /* ---------- copy buttons ---------- */
  for (const button of $$('[data-copy]')) {
    const label = button.textContent;
    button.addEventListener('click', async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      const text = source.textContent.trim();
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
  }

  function apply(status) {
    remaining = BigInt(status.amount_remaining_base_units);
    deadline = performance.now() + status.seconds_left * 1000;
    if (status.seconds_left > 0) expiryAsked = false;
    setText('remaining', status.amount_remaining);
    setText('detected', status.amount_detected);
    setText('received', status.amount_received);
    setText('required', status.usdc_amount);
    if (status.txid) setText('txid', status.txid);
    for (const el of $$('[data-tx]')) el.hidden = !status.txid;
    for (const link of $$('[data-tx-link]')) {
      link.hidden = !status.tx_url;
      if (status.tx_url) link.href = status.tx_url;
    }
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
  // A phone that slept or a tab in the background: refresh as soon as the customer looks again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && stage !== 'paid') pollNow();
  });

  /* ---------- pay with a browser wallet (EIP-1193) ---------- */
  const payButton = document.getElementById('pay-wallet');

  function updateWalletButton() {
    if (payButton) payButton.disabled = pendingTx !== null || remaining <= 0n || stage !== 'pay';
  }

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

  async function payWithWallet() {
    const ethereum = window.ethereum;
    if (!ethereum || typeof ethereum.request !== 'function') {
      showWalletMessage('none');
      return;
    }
    const amount = remaining;
    if (amount <= 0n) return;
    payButton.disabled = true;
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
        showWalletMessage('insufficient', { 'wallet-balance': formatUsdc(balance) });
        return;
      }

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
      updateWalletButton();
    }
  }

  if (payButton) payButton.addEventListener('click', payWithWallet);
  updateWalletButton();
})();
