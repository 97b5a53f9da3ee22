/**
 * A page's script or stylesheet written as several files and served as one, in order, a line between parts: each
 * page still loads a single script and a single stylesheet (one request each, under the CSP's `'self'`), and no
 * source file grows past the size check (scripts/check-source-shape.ts). Order matters: a later rule wins a tie.
 */
export function joinedParts(parts: readonly Buffer[]): Buffer {
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('\n'), part])));
}

/**
 * A stylesheet as served: its comments left out. They explain the source to its readers and are a sixth of the
 * checkout's stylesheet, which counts in the page's 60 KB (test/checkout/checkout.test.ts). No rule of ours has
 * `/*` inside a string, which this would cut.
 */
export function withoutCssComments(css: Buffer): Buffer {
  return Buffer.from(
    css
      .toString('utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\n\s*\n+/g, '\n'),
  );
}
