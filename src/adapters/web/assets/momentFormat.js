/*
 * How every page writes a moment for its reader: day, short month, year, hours and minutes, in the reader's own
 * time zone, with the zone named ("GMT+9", "CET") so that a bare time is never read as anyone's clock. Shared by
 * the checkout's pages and the dashboard: each serves it before its own script, as one file (pageScript.ts).
 */
// biome-ignore lint/correctness/noUnusedVariables: called by the page scripts served after this file.
function momentFormat(locale) {
  return new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}
