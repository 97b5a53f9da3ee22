/*
 * Paylink dashboard: the one thing it needs a script for. A set-password link carries its one-time token in the
 * fragment (#…), which browsers never send to a server or put in a Referer; this copies it into the form that
 * posts it, and takes it out of the address bar and the history.
 */
(() => {
  const field = document.querySelector('input[name="token"][data-from-fragment]');
  if (!field) return;
  const token = window.location.hash.slice(1);
  if (token) {
    field.value = token;
    window.history.replaceState(null, '', window.location.pathname);
  }
})();

/*
 * Times: the server writes them in UTC (readable without this script); the person reads them in their own time
 * zone, named, with the UTC time kept on hover.
 */
(() => {
  // In the page's language (the server chose it), with the browser's own regional format when it speaks that
  // language (en-GB stays day-first), in the browser's time zone.
  const pageLanguage = document.documentElement.lang;
  const browserLocale = navigator.language || pageLanguage;
  const locale =
    pageLanguage && !browserLocale.toLowerCase().startsWith(pageLanguage) ? pageLanguage : browserLocale;
  // The zone is written beside every time ("GMT+9", "CET"): a bare time reads as anyone's clock, and the
  // checkout beside it says UTC.
  const local = momentFormat(locale);
  for (const el of document.querySelectorAll('time[datetime]')) {
    const date = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(date.getTime())) continue;
    el.title = el.textContent;
    el.textContent = local.format(date);
  }
})();

/*
 * "Copy" buttons beside a read-only field (a claim link, a new key): without this script the field can still be
 * selected and copied by hand, so the buttons appear only when the script runs.
 */
(() => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const field = document.getElementById(button.getAttribute('data-copy'));
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = button.getAttribute('data-copied') || button.textContent;
      } catch {
        field.select();
      }
    });
  }
})();

/*
 * "Fund from my browser wallet" on a refund awaiting its funds: an ERC-20 transfer of exactly what is still to
 * send, from the merchant's wallet (EIP-1193) to the refund's deposit address. The button stays hidden when the
 * browser has no wallet; the address, the QR code and the wallet link beside it work without one.
 */
(() => {
  const buttons = document.querySelectorAll('button[data-fund]');
  if (buttons.length === 0) return;
  const TRANSFER_SELECTOR = '0xa9059cbb'; // transfer(address,uint256)
  const USER_REJECTED = 4001;
  const announced = [];
  window.addEventListener('eip6963:announceProvider', (event) => {
    if (event.detail?.provider) announced.push(event.detail.provider);
    show();
  });
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  const provider = () => announced[0] ?? window.ethereum;
  function show() {
    for (const button of buttons) button.hidden = !provider();
  }
  show();

  const word = (hex) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
  const code = (error) => error?.code ?? error?.data?.originalError?.code;

  for (const button of buttons) {
    const status = button.parentElement.nextElementSibling;
    const say = (key, detail) => {
      status.hidden = false;
      status.textContent = detail ? `${status.getAttribute(key)} ${detail}` : status.getAttribute(key);
    };
    button.addEventListener('click', async () => {
      const ethereum = provider();
      if (!ethereum || button.disabled) return;
      button.disabled = true;
      try {
        const [from] = await ethereum.request({ method: 'eth_requestAccounts' });
        const chain = Number(button.dataset.chain);
        if (Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16) !== chain) {
          try {
            await ethereum.request({
              method: 'wallet_switchEthereumChain',
              params: [{ chainId: `0x${chain.toString(16)}` }],
            });
          } catch {}
          if (Number.parseInt(await ethereum.request({ method: 'eth_chainId' }), 16) !== chain) {
            say('data-wrong-chain');
            return;
          }
        }
        const hash = await ethereum.request({
          method: 'eth_sendTransaction',
          params: [
            {
              from,
              to: button.dataset.token,
              value: '0x0',
              data:
                TRANSFER_SELECTOR +
                word(button.dataset.to) +
                word(BigInt(button.dataset.amount).toString(16)),
            },
          ],
        });
        say('data-sent', String(hash));
        button.hidden = true;
      } catch (error) {
        if (code(error) === USER_REJECTED) say('data-rejected');
        else say('data-error', String(error?.message ?? error).slice(0, 300));
      } finally {
        button.disabled = false;
      }
    });
  }
})();

/*
 * "Share" on a payment's link: the device's share sheet (a phone's chat and mail apps) where the browser has
 * one; elsewhere the button stays hidden and the e-mail link and "Copy" beside it do the same work.
 */
(() => {
  for (const button of document.querySelectorAll('button[data-share]')) {
    if (typeof navigator.share !== 'function') continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.share({
          title: button.getAttribute('data-share-title') || '',
          url: button.dataset.share,
        });
      } catch {
        // Dismissed by the person, or refused by the browser: nothing to undo.
      }
    });
  }
})();

/*
 * A payment's live status on its link page: asked of the dashboard every few seconds until it settles (paid,
 * failed, expired), so the merchant sees the customer pay without reloading. The server's text stands without
 * the script.
 */
(() => {
  const badge = document.querySelector('[data-poll]');
  if (!badge) return;
  const POLL_MS = 5000;
  const poll = async () => {
    try {
      const response = await fetch(badge.getAttribute('data-poll'), {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (!response.ok) return;
      const { status, label, final } = await response.json();
      badge.className = `status status-${status}`;
      if (badge.textContent !== label) badge.textContent = label;
      if (final) return;
    } catch {
      // Offline for a moment: asked again below.
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
})();

/*
 * A destructive form (deactivate a link) asks once more before it is sent. Without the script its required
 * "yes, for good" checkbox is the confirmation, and the server refuses the form without it.
 */
(() => {
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }
})();
