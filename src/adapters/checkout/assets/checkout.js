/*
 * Paylink checkout: live status, countdown, copy buttons, and "Pay with browser wallet" (checkoutWallet.js).
 * Served by the checkout itself (the CSP allows scripts from 'self' only) as one script: statusPoll.js, then
 * checkoutWallet.js, then this file (checkoutPlugin.ts). No dependencies. It never writes markup — every text it
 * shows is set with textContent into elements the server rendered (and escaped) — so nothing a status response
 * carries can become script.
 */

(() => {
  const root = document.getElementById('checkout');
  if (!root) return;
  const page = checkoutPage(root);
  // Progressive enhancement: controls that need this script are hidden in the HTML and shown here (the
  // wallet button only once a wallet is found, in checkoutWallet.js).
  for (const el of page.$$('[data-copy]')) el.hidden = false;
  showMoments(page);
  fitQrCode(page);
  copyButtons(page);
  countdown(page);
  const wallet = browserWallet(page);
  networkChoice(page, wallet.update);
  liveStatus(page, wallet.update);
})();

/** The page's settings, formats and element lookups, and the state its parts share (`state`). */
function checkoutPage(root) {
  const data = root.dataset;
  // The networks the payment is offered on: the choice's radios where there are several, else the page's own.
  const radios = Array.from(root.querySelectorAll('[data-network-choice] input[name="network"]'));
  const networks = (radios.length > 0 ? radios.map((radio) => radio.dataset) : [data]).map((d, i) => ({
    chainId: Number(radios[i]?.value ?? d.chainId),
    chainName: d.chainName,
    rpcUrl: d.rpcUrl,
    nativeSymbol: d.nativeSymbol || 'POL',
    explorerUrl: d.explorerUrl,
    token: d.token,
    gasless: d.gaslessHere === 'true',
    label: d.label,
    qrAlt: d.qrAlt,
    radio: radios[i] ?? null,
  }));
  const config = {
    statusUrl: data.statusUrl,
    qrUrl: data.qrUrl,
    pollMs: Math.max(250, Number(data.pollMs) || 3000),
    networks,
    deposit: data.deposit,
    locale: data.locale || 'en-GB',
    gaslessUrl: data.gaslessUrl,
    authorizationUrl: data.authorizationUrl,
  };

  // Numbers and times in the page's language, with the options localeFormat.ts uses on the server. Amounts
  // are formatted from their exact decimal strings (Intl.NumberFormat reads a string as a decimal).
  const usdcFormat = new Intl.NumberFormat(config.locale, {
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
    roundingMode: 'trunc',
  });
  const momentFormats = {
    time: new Intl.DateTimeFormat(config.locale, {
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
    }),
    date: momentFormat(config.locale),
  };
  const $ = (selector) => root.querySelector(selector);
  const $$ = (selector) => Array.from(root.querySelectorAll(selector));

  return {
    config,
    momentFormats,
    $,
    $$,
    amountText: (decimal) => usdcFormat.format(decimal),
    setText(field, text) {
      for (const el of $$(`[data-field="${field}"]`)) el.textContent = text;
    },
    /** Asks for the status at once; the live status (liveStatus) sets it. */
    pollNow() {},
    /** Called when the network shown changes (the wallet's buttons and gasless hint follow it). */
    onNetwork() {},
    /** Shows `network` as the one to pay on (the customer's choice, or the wallet's own chain). */
    chooseNetwork(network) {
      this.state.network = network;
      showNetwork(this);
      this.onNetwork();
    },
    state: {
      stage: data.stage,
      /** The network shown, and the one the wallet button pays on unless the wallet is on another offered one. */
      network: networks.find((n) => n.chainId === Number(data.chainId)) ?? networks[0],
      /** The customer chose a network themselves: the wallet is then asked to switch to it. */
      networkPicked: false,
      /** Each network's request for what is due, by chain id, from the page and then each status. */
      links: new Map(radios.map((radio) => [Number(radio.value), radio.dataset.request])),
      /** What the QR code asks for (its image's cache key), as of the last status. */
      qrAmount: data.remaining || '0',
      remaining: BigInt(data.remaining || '0'),
      // The deadline is kept on the page's monotonic clock from the server's "seconds left", so a customer whose
      // computer clock is wrong still sees the right countdown.
      deadline: performance.now() + Number(data.secondsLeft || 0) * 1000,
      expiryAsked: false,
      /** A transfer or authorization the wallet sent that the status does not show yet. */
      pendingTx: null,
      lastDetected: null,
    },
  };
}

/** Times: the server wrote UTC; the customer reads their own zone. */
function showMoments({ $$, momentFormats }) {
  for (const el of $$('time[data-moment]')) {
    const format = momentFormats[el.dataset.moment];
    const date = new Date(el.getAttribute('datetime'));
    if (format && !Number.isNaN(date.getTime())) el.textContent = format.format(date);
  }
}

/** The QR code: shown on wide screens, behind "Show QR code" on phones (the wallet link comes first). */
function fitQrCode({ $ }) {
  const qrDetails = $('[data-qr-details]');
  const narrow = window.matchMedia('(max-width: 600px)');
  const fitQr = () => {
    if (qrDetails) qrDetails.open = !narrow.matches;
  };
  fitQr();
  narrow.addEventListener('change', fitQr);
}

function copyButtons({ $$ }) {
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
}

function formatCountdown(totalSeconds) {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

function countdown(page) {
  const { state } = page;
  const shown = page.$('[data-countdown]');
  function tick() {
    const left = (state.deadline - performance.now()) / 1000;
    if (shown) shown.textContent = formatCountdown(Math.ceil(left));
    // At zero, ask the server at once: it decides whether the link expired (its clock is the one that counts).
    if (left <= 0 && state.stage === 'pay' && !state.expiryAsked) {
      state.expiryAsked = true;
      page.pollNow();
    }
  }
  setInterval(tick, 1000);
}

/** The stage shown (pay, confirming, paid, expired, failed), announced to screen readers. */
function showStage(page, next) {
  if (next === page.state.stage) return;
  page.state.stage = next;
  let title = '';
  for (const section of page.$$('section[data-stage]')) {
    const active = section.dataset.stage === next;
    section.hidden = !active;
    if (active) title = section.querySelector('h2')?.textContent ?? '';
  }
  const live = page.$('[data-live]');
  if (live) live.textContent = title;
  const rate = page.$('[data-rate]');
  if (rate) rate.hidden = next !== 'pay' && next !== 'confirming';
  if (next === 'paid') returnToShop(page);
}

/**
 * Paid, with a success_url: back to the shop after the seconds the page states, counted down where the customer
 * sees them, unless they choose to stay (the return link stays either way).
 */
function returnToShop(page) {
  const box = page.$('[data-redirect]');
  const link = page.$('section[data-stage="paid"] [data-return-link]');
  const seconds = box?.querySelector('[data-redirect-seconds]');
  if (!box || !link || !seconds || page.state.returnTimer !== undefined) return;
  let left = Number(seconds.textContent) || 5;
  box.hidden = false;
  const step = () => {
    if (left <= 0) {
      window.location.assign(link.href);
      return;
    }
    seconds.textContent = String(left);
    left -= 1;
    page.state.returnTimer = setTimeout(step, 1000);
  };
  box.querySelector('[data-redirect-stay]')?.addEventListener('click', () => {
    clearTimeout(page.state.returnTimer);
    box.hidden = true;
    link.focus();
  });
  step();
}

/** The list of transfers seen, redrawn only when it changed. */
function transferList(page) {
  const template = page.$('template[data-transfer-template]');
  let shown = '';
  return (transfers) => {
    const key = JSON.stringify(transfers);
    if (key === shown || !template) return;
    shown = key;
    for (const list of page.$$('[data-transfers]')) {
      list.replaceChildren(
        ...transfers.map((t) => {
          const item = template.content.firstElementChild.cloneNode(true);
          const part = (name) => item.querySelector(`[data-t="${name}"]`);
          part('amount').textContent = page.amountText(t.amount);
          part('txid').textContent = t.txid;
          part('pending').hidden = t.final;
          const link = part('link');
          link.hidden = !t.tx_url;
          if (t.tx_url) link.href = t.tx_url;
          return item;
        }),
      );
    }
    for (const el of page.$$('[data-tx]')) el.hidden = transfers.length === 0;
  };
}

/**
 * The network choice, where there is one: the radios change the page in place, so they replace the links that
 * reload it on another network without the script. A network chosen here is the one the wallet button then asks
 * the wallet to switch to.
 */
function networkChoice(page, updateWallet) {
  const choice = page.$('[data-network-choice]');
  page.onNetwork = updateWallet;
  if (!choice) return;
  choice.hidden = false;
  const links = page.$('[data-network-links]');
  if (links) links.hidden = true;
  choice.addEventListener('change', (event) => {
    const chosen = page.config.networks.find((n) => n.radio === event.target);
    if (!chosen) return;
    page.state.networkPicked = true;
    page.chooseNetwork(chosen);
  });
}

/** Shows the chosen network's name, token, request and QR code, and names it in the wallet's messages. */
function showNetwork(page) {
  const { $, state, config } = page;
  const network = state.network;
  if (network.radio) network.radio.checked = true;
  const label = $('[data-network-label]');
  if (label && network.label) label.textContent = network.label;
  const token = $('#token-address');
  if (token && network.token) token.textContent = network.token;
  page.setText('network-name', network.chainName);
  page.setText('network-chain-id', String(network.chainId));
  const paymentLink = $('[data-payment-link]');
  const href = state.links.get(network.chainId);
  if (paymentLink && href) paymentLink.href = href;
  const qr = $('[data-qr]');
  if (qr) {
    const chain = config.networks.length > 1 ? `chain=${network.chainId}&` : '';
    const src = `${config.qrUrl}?${chain}amount=${state.qrAmount}`;
    if (qr.getAttribute('src') !== src) qr.setAttribute('src', src);
    if (network.qrAlt) qr.alt = network.qrAlt;
  }
}

/** Follows the payment's status (statusPoll.js) and shows each answer; `updateWallet` after each. */
function liveStatus(page, updateWallet) {
  const SLOW_POLL_MS = 15_000; // expired/failed may still turn paid (late), so keep looking, slowly
  const { $, $$, state, setText, amountText } = page;
  const showTransfers = transferList(page);

  function apply(status) {
    state.remaining = BigInt(status.amount_remaining_base_units);
    state.deadline = performance.now() + status.seconds_left * 1000;
    if (status.seconds_left > 0) state.expiryAsked = false;
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

    // Each network's request for what is left now (the home one alone where there is no choice).
    for (const n of status.networks) state.links.set(n.chain_id, n.payment_link);
    state.qrAmount = status.amount_remaining_base_units;
    showNetwork(page);

    // A transfer we sent has shown up (or another did): the button may be used again for what is left.
    if (state.lastDetected !== null && state.lastDetected !== status.amount_detected) state.pendingTx = null;
    state.lastDetected = status.amount_detected;
    updateWallet();
    showStage(page, status.stage);
  }

  const statusLoop = followStatus({
    url: page.config.statusUrl,
    intervalMs: page.config.pollMs,
    slowMs: SLOW_POLL_MS,
    connectionLost: $('[data-connection-lost]'),
    apply,
    ended: () => state.stage === 'paid',
    slow: () => state.stage === 'expired' || state.stage === 'failed',
  });
  page.pollNow = statusLoop.pollNow;
  statusLoop.start(page.config.pollMs);
  if (state.stage === 'paid') returnToShop(page);
}
