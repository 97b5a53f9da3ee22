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
