import { z } from 'zod';
import { DEFAULT_LOGO_RULES, type LogoRules } from '../domain/brand.ts';

/** What a merchant's logo may be (decision 0052): its most bytes, and most pixels on each side. */
export const brandEnv = {
  PAYLINK_LOGO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(2 * 1024 * 1024)
    .optional(),
  PAYLINK_LOGO_MAX_PIXELS: z.coerce.number().int().min(16).max(4_096).optional(),
};

type BrandEnv = z.infer<z.ZodObject<typeof brandEnv>>;

export function brandConfig(e: BrandEnv): { logoRules: LogoRules } {
  return {
    logoRules: {
      maxBytes: e.PAYLINK_LOGO_MAX_BYTES ?? DEFAULT_LOGO_RULES.maxBytes,
      maxPixels: e.PAYLINK_LOGO_MAX_PIXELS ?? DEFAULT_LOGO_RULES.maxPixels,
    },
  };
}
