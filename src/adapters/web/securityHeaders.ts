/**
 * Headers on every checkout response, pages, JSON, images, assets and errors alike.
 *
 * The spec says the payment page is never embedded in an iframe: a framed checkout lets another site overlay
 * it (clickjacking) or impersonate the merchant around it. `frame-ancestors 'none'` forbids framing in every
 * current browser; `X-Frame-Options: DENY` does the same for older ones.
 *
 * The content policy starts from nothing (`default-src 'none'`) and allows only what the page uses: its own
 * script, stylesheet and images, `data:` images (the icons browser wallets announce through EIP-6963 are data
 * URIs; an image cannot run script), and `fetch` of its own status. No inline script or style at all (so no nonce
 * is needed), no plugins, no <base>, no forms. `require-trusted-types-for 'script'` makes the browser refuse
 * any string-to-markup sink (innerHTML and the like) — the script uses textContent only. A reusable link's page
 * alone (checkout/linkRoutes.ts) posts its forms to itself and may name its image's origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-frame-options': 'DENY',
  // The payment id is in the URL: leaving for the merchant or an explorer must not hand it over.
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  // A page that opens checkout (or that checkout links to) gets no handle on its window.
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};
