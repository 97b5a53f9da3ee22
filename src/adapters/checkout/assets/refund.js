/*
 * Paylink refund claim page: checks the address the customer gives (the server's checks, and a warning for a
 * contract), fills it from a browser wallet (the first one announced through EIP-6963, else window.ethereum),
 * claims the refund once, then follows its status to "refunded".
 *
 * Like checkout.js: served by the checkout itself (CSP: scripts from 'self' only), no dependencies, and it
 * never writes markup — every sentence it shows was rendered (and escaped) by the server into the page, and
 * is copied with textContent.
 */

(() => {
  const root = document.getElementById('refund');
  if (!root) return;

  const USER_REJECTED = 4001; // EIP-1193
  const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
  const SLOW_POLL_MS = 15_000; // the claim form: only to notice a cancel or an expiry
  const MAX_BACKOFF_MS = 30_000;
  const ENDED = new Set(['refunded', 'canceled', 'expired']);

  const data = root.dataset;
  const config = {
    statusUrl: data.statusUrl,
    claimUrl: data.claimUrl,
    checkUrl: data.checkUrl,
    pollMs: Math.max(250, Number(data.pollMs) || 3000),
    locale: data.locale || 'en-GB',
  };
  const $ = (selector) => root.querySelector(selector);
  const $$ = (selector) => Array.from(root.querySelectorAll(selector));
  const message = (key) => $(`[data-message="${key}"]`)?.textContent ?? '';

  const amountFormat = new Intl.NumberFormat(config.locale, {
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
    roundingMode: 'trunc',
  });
  const dateFormat = new Intl.DateTimeFormat(config.locale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  // Times: the server wrote UTC; the customer reads their own zone.
  for (const el of $$('time[data-moment]')) {
    const date = new Date(el.getAttribute('datetime'));
    if (!Number.isNaN(date.getTime())) el.textContent = dateFormat.format(date);
  }

  /* ---------- stages and status ---------- */
  let stage = data.stage;
  const live = $('[data-live]');
  const stageOf = (status) =>
    status === 'awaiting_address'
      ? 'claim'
      : status === 'awaiting_funds' || status === 'processing'
        ? 'progress'
        : status;

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

  function setText(field, text) {
    for (const el of $$(`[data-field="${field}"]`)) el.textContent = text;
  }

  function apply(status) {
    setText('address', status.address ?? '');
    setText('sent', amountFormat.format(status.amount_sent));
    setText('txid', status.txid ?? '');
    const link = $('[data-tx-link]');
    if (link) {
      link.hidden = !status.tx_url;
      if (status.tx_url) link.href = status.tx_url;
    }
    const funded = status.status === 'processing' || status.status === 'refunded';
    for (const item of $$('[data-step="funding"]')) item.toggleAttribute('data-done', funded);
    showStage(stageOf(status.status));
  }

  /* ---------- polling ---------- */
  const connectionLost = $('[data-connection-lost]');
  let pollTimer;
  let failures = 0;
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
    if (ENDED.has(stage)) return;
    if (stage === 'claim') next = Math.max(next, SLOW_POLL_MS);
    pollTimer = setTimeout(poll, next);
  }
  const pollNow = () => {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, 0);
  };
  if (!ENDED.has(stage)) pollTimer = setTimeout(poll, stage === 'claim' ? SLOW_POLL_MS : config.pollMs);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !ENDED.has(stage)) pollNow();
  });

  /* ---------- the claim form ---------- */
  const form = $('[data-claim-form]');
  if (!form) return;
  form.hidden = false;
  const input = form.querySelector('input[name="address"]');
  const problem = $('[data-problem]');
  const contractWarning = $('[data-contract-warning]');
  const confirm = $('[data-confirm]');
  const confirmLabel = confirm.textContent;
  /** The address the customer agreed to send to although it is a contract. */
  let contractAccepted = null;
  let busy = false;

  function say(text) {
    problem.textContent = text;
    problem.hidden = text === '';
    input.setAttribute('aria-invalid', text === '' ? 'false' : 'true');
  }
  function warnContract(address) {
    contractWarning.hidden = address === null;
    confirm.textContent = address === null ? confirmLabel : confirm.dataset.contractLabel;
  }
  input.addEventListener('input', () => {
    say('');
    contractAccepted = null;
    warnContract(null);
  });

  async function post(url, address) {
    const response = await fetch(url, {
      method: 'POST',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ address }),
    });
    return { ok: response.ok, body: await response.json().catch(() => ({})) };
  }

  /** An error answer, in the customer's words; a refund no longer claimable shows its status instead. */
  function refused(body) {
    if (body.problem) return say(message(`problem-${body.problem}`));
    if (body.code === 'REFUND_ALREADY_CLAIMED' || body.code === 'REFUND_CLOSED') {
      say(body.code === 'REFUND_ALREADY_CLAIMED' ? message('alreadyClaimed') : '');
      return pollNow();
    }
    say(message('tryAgain'));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const address = input.value.trim();
    if (!ADDRESS.test(address)) return say(message('problem-format'));
    busy = true;
    confirm.disabled = true;
    try {
      if (contractAccepted !== address) {
        const checked = await post(config.checkUrl, address);
        if (!checked.ok || checked.body.valid !== true) return refused(checked.body);
        if (checked.body.contract === true) {
          // Asked once: a second press on the same address sends it there.
          contractAccepted = address;
          return warnContract(address);
        }
      }
      say('');
      if (live) live.textContent = message('sending');
      const claimed = await post(config.claimUrl, address);
      if (!claimed.ok) return refused(claimed.body);
      apply(claimed.body);
      pollNow();
    } catch {
      say(message('tryAgain'));
    } finally {
      busy = false;
      confirm.disabled = false;
    }
  });

  /* ---------- fill from a browser wallet (EIP-6963 discovery, EIP-1193 eth_requestAccounts) ---------- */
  const fillButton = $('[data-fill-wallet]');
  const isProvider = (p) => p && typeof p === 'object' && typeof p.request === 'function';
  let wallet = null;
  function found(provider) {
    if (wallet || !isProvider(provider)) return;
    wallet = provider;
    fillButton.hidden = false;
  }
  window.addEventListener('eip6963:announceProvider', (event) => found(event.detail?.provider));
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  window.addEventListener('load', () => found(window.ethereum), { once: true });
  found(window.ethereum);

  fillButton.addEventListener('click', async () => {
    if (!wallet || busy) return;
    fillButton.disabled = true;
    say('');
    if (live) live.textContent = message('walletWorking');
    try {
      const accounts = await wallet.request({ method: 'eth_requestAccounts' });
      const account = Array.isArray(accounts) ? accounts[0] : undefined;
      if (typeof account !== 'string' || !ADDRESS.test(account)) throw new Error('no account');
      input.value = account;
      contractAccepted = null;
      warnContract(null);
      input.focus();
    } catch (error) {
      say(message(error?.code === USER_REJECTED ? 'walletRejected' : 'walletError'));
    } finally {
      fillButton.disabled = false;
    }
  });
})();
