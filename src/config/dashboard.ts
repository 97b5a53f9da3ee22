import { z } from 'zod';
import { boolean } from './fields.ts';

/** How operators get in: the dashboard's second factor, and the admin API's token (unset: no admin API). */
export const dashboardEnv = {
  PAYLINK_DASHBOARD_REQUIRE_2FA: boolean.optional(),
  PAYLINK_ADMIN_TOKEN: z
    .string()
    .min(24, 'PAYLINK_ADMIN_TOKEN must be at least 24 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
};

type DashboardEnv = z.infer<z.ZodObject<typeof dashboardEnv>>;

export function dashboardConfig(e: DashboardEnv): {
  dashboardRequire2fa: boolean;
  adminToken: string | undefined;
} {
  return { dashboardRequire2fa: e.PAYLINK_DASHBOARD_REQUIRE_2FA ?? false, adminToken: e.PAYLINK_ADMIN_TOKEN };
}
