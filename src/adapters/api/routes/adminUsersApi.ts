import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { UserStore } from '../../../app/dashboard/ports.ts';
import {
  createUser,
  describeUser,
  disableUser,
  enableUser,
  passwordLinkUrl,
  resetPassword,
} from '../../../app/dashboard/users.ts';
import { USER_ROLES } from '../../../domain/dashboardUser.ts';
import { requireAdminToken } from '../adminAuth.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { ErrorBody } from '../schemas.ts';

const security = [{ adminToken: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const User = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(USER_ROLES),
    merchant_id: z.string().nullable(),
    status: z.enum(['active', 'disabled']),
    password_set: z.boolean(),
    second_factor: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'DashboardUser' });
const UserWithLink = z
  .object({
    user: User,
    set_password_url: z.string().meta({ description: 'Send it to the person: it works once, for 24 hours' }),
    expires_at: z.string(),
  })
  .meta({ id: 'DashboardUserLink' });
const UserParams = z.object({ user_id: z.string().max(64) });

/** Dashboard users for administrators (decision 0014): the same as `paylink user …`. */
export function adminUsersApi(
  deps: ApiDeps & { readonly users: UserStore },
  adminToken: string,
): FastifyPluginAsyncZod {
  const admin = { users: deps.users, merchants: deps.merchants, clock: deps.clock };
  const withLink = (result: Awaited<ReturnType<typeof createUser>>) => ({
    user: describeUser(result.user),
    set_password_url: passwordLinkUrl(deps.config.baseUrl, result.token),
    expires_at: result.expiresAt.toISOString(),
  });
  return async (app) => {
    app.addHook('onRequest', requireAdminToken(adminToken));

    app.post(
      '/admin/api/users/',
      {
        schema: {
          summary: 'Create a dashboard user and get the one-time link to set the password',
          tags: ['admin'],
          security,
          body: z.object({
            email: z.string().max(254),
            role: z.string().max(16),
            merchant_id: z.string().max(64).optional(),
          }),
          response: { 201: UserWithLink, ...errors, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        const result = await createUser(admin, {
          email: request.body.email,
          role: request.body.role,
          merchantId: request.body.merchant_id,
        });
        request.log.info({ user: result.user.id, role: result.user.role }, 'dashboard user created');
        return reply.status(201).send(withLink(result));
      },
    );

    app.get(
      '/admin/api/users/',
      {
        schema: {
          summary: 'List dashboard users, oldest first',
          tags: ['admin'],
          security,
          response: { 200: z.object({ users: z.array(User) }), 401: ErrorBody },
        },
      },
      async () => ({ users: (await deps.users.list()).map(describeUser) }),
    );

    app.post(
      '/admin/api/users/:user_id/reset-password/',
      {
        schema: {
          summary: 'A new one-time link to set the password (earlier links stop working)',
          tags: ['admin'],
          security,
          params: UserParams,
          response: { 200: UserWithLink, ...errors },
        },
      },
      async (request) => withLink(await resetPassword(admin, request.params.user_id)),
    );

    for (const [action, run] of [
      ['disable', disableUser],
      ['enable', enableUser],
    ] as const)
      app.post(
        `/admin/api/users/:user_id/${action}/`,
        {
          schema: {
            summary:
              action === 'disable' ? 'Disable a user: their sessions end now' : 'Enable a disabled user',
            tags: ['admin'],
            security,
            params: UserParams,
            response: { 200: User, ...errors },
          },
        },
        async (request) => describeUser(await run(admin, request.params.user_id)),
      );
  };
}
