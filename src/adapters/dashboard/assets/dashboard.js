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
 * zone, with the UTC time kept on hover.
 */
(() => {
  // In the page's language (the server chose it), with the browser's own regional format when it speaks that
  // language (en-GB stays day-first), in the browser's time zone.
  const pageLanguage = document.documentElement.lang;
  const browserLocale = navigator.language || pageLanguage;
  const locale =
    pageLanguage && !browserLocale.toLowerCase().startsWith(pageLanguage) ? pageLanguage : browserLocale;
  const local = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
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
