/*
 * A JSON POST from a checkout page to its own origin (the refund claim's address, the subscribe page's wallet
 * way), never cached. The checkout serves it before each page's script, as one script (checkoutAssets.ts).
 * Answers whether it was accepted, its status, and its body as JSON (an empty object when it is not JSON).
 */
// biome-ignore lint/correctness/noUnusedVariables: called by the page scripts served after this file.
async function postJson(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    cache: 'no-store',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { ok: response.ok, status: response.status, body: await response.json().catch(() => ({})) };
}
