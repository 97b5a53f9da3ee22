export type { PaylinkOptions } from './providers/paylink/options';
export { default as PaylinkProviderService } from './providers/paylink/service';
