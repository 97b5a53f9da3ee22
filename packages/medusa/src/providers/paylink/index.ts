import { ModuleProvider, Modules } from '@medusajs/framework/utils';
import PaylinkProviderService from './service';

export type { PaylinkOptions } from './options';
export { PaylinkProviderService };

export default ModuleProvider(Modules.PAYMENT, { services: [PaylinkProviderService] });
