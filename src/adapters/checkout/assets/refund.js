/*
 * Paylink refund claim page: checks the address the customer gives (the server's checks, and a warning for a
 * contract), fills it from a browser wallet (the first one announced through EIP-6963, else window.ethereum),
 * claims the refund once, then follows its status to "refunded".
 *
 * Like checkout.js: served by the checkout itself (CSP: scripts from 'self' only) after statusPoll.js, as one
 * script; no dependencies, and it never writes markup — every sentence it shows was rendered (and escaped) by
 * the server into the page, and is copied with textContent.
 */

const REFUND_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const REFUND_USER_REJECTED = 4001; // EIP-1193

(() => {
  const root = document.getElementById('refund');
  if (!root) return;
  const page = refundPage(root);
  const apply = followRefund(page);
  const form = page.$('[data-claim-form]');
  if (!form) return;
  form.hidden = false;
  const claim = claimForm(page, form, apply);
  fillFromWallet(page, claim);
})();

/** The page's settings and element lookups, its stage, and its sentences (`message`). */
function refundPage(root) {
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
  const dateFormat = momentFormat(config.locale);
  // Times: the server wrote UTC; the customer reads their own zone.
  for (const el of $$('time[data-moment]')) {
    const date = new Date(el.getAttribute('datetime'));
    if (!Number.isNaN(date.getTime())) el.textContent = dateFormat.format(date);
  }
  return {
    config,
    $,
    $$,
    live: $('[data-live]'),
    message: (key) => $(`[data-message="${key}"]`)?.textContent ?? '',
    amountFormat: new Intl.NumberFormat(config.locale, {
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
      roundingMode: 'trunc',
    }),
    stage: data.stage,
    /** Asks for the status at once; followRefund sets it. */
    pollNow() {},
  };
}

/** Follows the refund's status (statusPoll.js) and shows each answer; returns how an answer is shown. */
function followRefund(page) {
  const SLOW_POLL_MS = 15_000; // the claim form: only to notice a cancel or an expiry
  const ENDED = new Set(['refunded', 'canceled', 'expired']);
  const { $$ } = page;
  const stageOf = (status) =>
    status === 'awaiting_address'
      ? 'claim'
      : status === 'awaiting_funds' || status === 'processing'
        ? 'progress'
        : status;

  function showStage(next) {
    if (next === page.stage) return;
    page.stage = next;
    let title = '';
    for (const section of $$('section[data-stage]')) {
      const active = section.dataset.stage === next;
      section.hidden = !active;
      if (active) title = section.querySelector('h2')?.textContent ?? '';
    }
    if (page.live) page.live.textContent = title;
  }

  function setText(field, text) {
    for (const el of $$(`[data-field="${field}"]`)) el.textContent = text;
  }

  function apply(status) {
    setText('address', status.address ?? '');
    setText('sent', page.amountFormat.format(status.amount_sent));
    setText('txid', status.txid ?? '');
    const link = page.$('[data-tx-link]');
    if (link) {
      link.hidden = !status.tx_url;
      if (status.tx_url) link.href = status.tx_url;
    }
    const funded = status.status === 'processing' || status.status === 'refunded';
    for (const item of $$('[data-step="funding"]')) item.toggleAttribute('data-done', funded);
    showStage(stageOf(status.status));
  }

  const statusLoop = followStatus({
    url: page.config.statusUrl,
    intervalMs: page.config.pollMs,
    slowMs: SLOW_POLL_MS,
    connectionLost: page.$('[data-connection-lost]'),
    apply,
    ended: () => ENDED.has(page.stage),
    slow: () => page.stage === 'claim',
  });
  page.pollNow = statusLoop.pollNow;
  statusLoop.start(page.stage === 'claim' ? SLOW_POLL_MS : page.config.pollMs);
  return apply;
}

/**
 * The claim form: the address checked, a contract warned about once, then claimed. Returns what the wallet
 * button shares with it: the field, the problem line, and whether a request is under way.
 */
function claimForm(page, form, apply) {
  const { $, message, config } = page;
  const input = form.querySelector('input[name="address"]');
  const problem = $('[data-problem]');
  const contractWarning = $('[data-contract-warning]');
  const confirm = $('[data-confirm]');
  const confirmLabel = confirm.textContent;
  const claim = {
    input,
    busy: false,
    /** The address the customer agreed to send to although it is a contract. */
    contractAccepted: null,
    say(text) {
      problem.textContent = text;
      problem.hidden = text === '';
      input.setAttribute('aria-invalid', text === '' ? 'false' : 'true');
    },
    warnContract(address) {
      contractWarning.hidden = address === null;
      confirm.textContent = address === null ? confirmLabel : confirm.dataset.contractLabel;
    },
  };
  input.addEventListener('input', () => {
    claim.say('');
    claim.contractAccepted = null;
    claim.warnContract(null);
  });

  /** An error answer, in the customer's words; a refund no longer claimable shows its status instead. */
  function refused(body) {
    if (body.problem) return claim.say(message(`problem-${body.problem}`));
    if (body.code === 'REFUND_ALREADY_CLAIMED' || body.code === 'REFUND_CLOSED') {
      claim.say(body.code === 'REFUND_ALREADY_CLAIMED' ? message('alreadyClaimed') : '');
      return page.pollNow();
    }
    claim.say(message('tryAgain'));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (claim.busy) return;
    const address = input.value.trim();
    if (!REFUND_ADDRESS.test(address)) return claim.say(message('problem-format'));
    claim.busy = true;
    confirm.disabled = true;
    try {
      if (claim.contractAccepted !== address) {
        const checked = await postJson(config.checkUrl, { address });
        if (!checked.ok || checked.body.valid !== true) return refused(checked.body);
        if (checked.body.contract === true) {
          // Asked once: a second press on the same address sends it there.
          claim.contractAccepted = address;
          return claim.warnContract(address);
        }
      }
      claim.say('');
      if (page.live) page.live.textContent = message('sending');
      const claimed = await postJson(config.claimUrl, { address });
      if (!claimed.ok) return refused(claimed.body);
      apply(claimed.body);
      page.pollNow();
    } catch {
      claim.say(message('tryAgain'));
    } finally {
      claim.busy = false;
      confirm.disabled = false;
    }
  });
  return claim;
}

/** Fills the address from a browser wallet (EIP-6963 discovery, EIP-1193 eth_requestAccounts). */
function fillFromWallet(page, claim) {
  const { message } = page;
  const fillButton = page.$('[data-fill-wallet]');
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
    if (!wallet || claim.busy) return;
    fillButton.disabled = true;
    claim.say('');
    if (page.live) page.live.textContent = message('walletWorking');
    try {
      const accounts = await wallet.request({ method: 'eth_requestAccounts' });
      const account = Array.isArray(accounts) ? accounts[0] : undefined;
      if (typeof account !== 'string' || !REFUND_ADDRESS.test(account)) throw new Error('no account');
      claim.input.value = account;
      claim.contractAccepted = null;
      claim.warnContract(null);
      claim.input.focus();
    } catch (error) {
      claim.say(message(error?.code === REFUND_USER_REJECTED ? 'walletRejected' : 'walletError'));
    } finally {
      fillButton.disabled = false;
    }
  });
}
