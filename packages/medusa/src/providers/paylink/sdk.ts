/**
 * @paylink/client is an ES module and Medusa loads providers with require(): a dynamic import() (kept as is
 * by TypeScript's Node16 output for CommonJS) loads it once, on first use. Its types are named here, with the
 * resolution mode a CommonJS file needs to see an ES module's types.
 */
export type PaylinkSdk = typeof import('@paylink/client', { with: { 'resolution-mode': 'import' }});
export type PaylinkClient = InstanceType<PaylinkSdk['PaylinkClient']>;
export type CreatedPayment = Awaited<ReturnType<PaylinkClient['createPayment']>>;

let loaded: Promise<PaylinkSdk> | undefined;

export function paylinkSdk(): Promise<PaylinkSdk> {
  loaded ??= import('@paylink/client');
  return loaded;
}
