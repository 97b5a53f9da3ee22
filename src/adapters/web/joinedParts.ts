/**
 * A page's script or stylesheet written as several files and served as one, in order, a line between parts: each
 * page still loads a single script and a single stylesheet (one request each, under the CSP's `'self'`), and no
 * source file grows past the size check (scripts/check-source-shape.ts). Order matters: a later rule wins a tie.
 */
export function joinedParts(parts: readonly Buffer[]): Buffer {
  return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('\n'), part])));
}
