/*
 * Paylink's point of sale (decision 0054), after the dashboard's script. Without it every screen still works:
 * quantities are typed, the total is the server's on the next screen, and "Check now" asks for the status.
 */

/*
 * The counter's form: "−" and "+" beside each quantity, the total kept current in exact minor units (BigInt,
 * never a float), and "Charge" taken once (a second tap while the first is sent does nothing; the server's
 * idempotency makes a second sale of the same form impossible anyway).
 */
(() => {
  const form = document.querySelector('form[data-pos-entry]');
  if (!form) return;
  const scale = Number(form.dataset.scale);
  const lang = form.dataset.lang || document.documentElement.lang;
  const amount = form.querySelector('input[name="amount"]');
  const quantities = [...form.querySelectorAll('input[data-unit]')];
  const total = form.querySelector('[data-total]');
  const currency = form.querySelector('input[name="currency"]').value;
  const decimalMark = new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === 'decimal').value;

  /** An amount as typed (a decimal comma read as the server does: web/typedAmount.ts), in minor units. */
  function minorUnitsOf(text) {
    let compact = text.replace(/[\s\u00a0\u202f]/g, '');
    if (/^\d+,\d{1,2}$/.test(compact)) compact = compact.replace(',', '.');
    if (compact === '') return 0n;
    const match = /^(\d+)(?:\.(\d+))?$/.exec(compact);
    if (!match || (match[2] ?? '').length > scale) return undefined;
    return BigInt(match[1] + (match[2] ?? '').padEnd(scale, '0'));
  }
  function quantityOf(input) {
    const text = input.value.trim();
    return /^\d{1,3}$/.test(text) ? BigInt(text) : text === '' ? 0n : undefined;
  }
  function written(minorUnits) {
    const digits = minorUnits.toString().padStart(scale + 1, '0');
    const whole = BigInt(digits.slice(0, digits.length - scale)).toLocaleString(lang);
    return scale === 0 ? whole : `${whole}${decimalMark}${digits.slice(digits.length - scale)}`;
  }
  function update() {
    let sum = minorUnitsOf(amount.value);
    for (const input of quantities) {
      const quantity = quantityOf(input);
      sum =
        sum === undefined || quantity === undefined ? undefined : sum + quantity * BigInt(input.dataset.unit);
    }
    total.textContent = sum === undefined ? `— ${currency}` : `${written(sum)} ${currency}`;
  }
  for (const button of form.querySelectorAll('button[data-step]')) {
    const input = document.getElementById(button.dataset.for);
    button.hidden = false;
    button.addEventListener('click', () => {
      const next = Number(quantityOf(input) ?? 0n) + Number(button.dataset.step);
      input.value = String(Math.min(999, Math.max(0, next)));
      update();
    });
  }
  form.addEventListener('input', update);
  total.parentElement.hidden = false;
  update();
  form.addEventListener('submit', (event) => {
    const charge = form.querySelector('button[type="submit"]');
    if (charge.disabled) event.preventDefault();
    // Disabled after this turn of the event loop: disabling it now would leave it out of the posted form.
    setTimeout(() => {
      charge.disabled = true;
    });
  });
})();

/*
 * A sale waiting for its payment: its status asked of the dashboard every few seconds; "payment seen" said as
 * soon as it is, and the page reloaded once the sale has ended, so the server shows "Paid" (or why not) with
 * its time and reference. Silent: nothing is played.
 */
(() => {
  const sale = document.querySelector('[data-sale-status]');
  if (!sale) return;
  const status = sale.querySelector('.pos-status');
  const POLL_MS = 2000;
  const poll = async () => {
    try {
      const response = await fetch(sale.dataset.saleStatus, {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (response.ok) {
        const answer = await response.json();
        if (answer.final) {
          window.location.reload();
          return;
        }
        const words = status.getAttribute(`data-${answer.status}`);
        if (words && status.textContent !== words) status.textContent = words;
      }
    } catch {
      // Offline for a moment: asked again below.
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
})();
