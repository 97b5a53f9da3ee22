import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createMerchant,
  describeMerchant,
  disableMerchant,
  getMerchant,
  listMerchants,
  type MerchantAdminDeps,
  type MerchantFields,
  rotateApiKey,
  updateMerchant,
} from '../../../app/merchants/merchantAdmin.ts';
import { parseDuration } from '../../../domain/duration.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { requireAdminToken } from '../adminAuth.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { JsonNumber } from '../losslessJson.ts';
import { ErrorBody } from '../schemas.ts';

const percentInput = z
  .custom<JsonNumber | string>((v) => v instanceof JsonNumber || typeof v === 'string', {
    error: 'must be a percentage',
  })
  .transform((v) => (v instanceof JsonNumber ? v.text : v))
  .meta({
    anyOf: [{ type: 'number' }, { type: 'string' }],
    description: 'Percent, 0–100, at most 2 decimals',
  });

const nullableText = z.string({ error: 'must be a string' }).nullable().optional();

const MerchantInput = z.object(
  {
    name: z.string({ error: 'must be a string' }).optional(),
    wallet_address: nullableText.meta({
      description:
        "Polygon address receiving payouts: a wallet, not one of the service's own contracts (token, forwarder factory or implementation) nor a deposit address (400 VALIDATION_ERROR)",
    }),
    webhook_url: nullableText,
    commission_percent: percentInput.optional(),
    underpayment_tolerance_percent: percentInput.optional(),
    send_receipts: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .meta({ description: 'E-mail a receipt when a payment with a customer_email is paid (default true)' }),
  },
  { error: 'must be a JSON object' },
);

const CreateMerchantInput = MerchantInput.extend({
  test_key: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .meta({ description: 'Also issue a test-mode key (sk_test_…): payments on the test chain only' }),
});

const MerchantView = z
  .object({
    public_id: z.string(),
    name: z.string(),
    wallet_address: z.string().nullable(),
    webhook_url: z.string().nullable(),
    commission_percent: z.string(),
    commission_bps: z.number().int(),
    underpayment_tolerance_percent: z.string(),
    send_receipts: z.boolean(),
    status: z.enum(['active', 'disabled']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Merchant' });

const Credentials = z.object({
  merchant: MerchantView,
  api_key: z.string().meta({ description: 'Shown once; store it now' }),
  webhook_secret: z.string().optional().meta({ description: 'Standard Webhooks signing secret (whsec_…)' }),
  test_api_key: z.string().optional().meta({ description: 'With test_key: the test-mode key, shown once' }),
});

const IdParams = z.object({ public_id: z.string() });
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const security = [{ adminToken: [] }];

function fields(input: z.output<typeof MerchantInput>): MerchantFields {
  return {
    name: input.name,
    wallet: input.wallet_address,
    webhookUrl: input.webhook_url,
    commissionPercent: input.commission_percent,
    underpaymentTolerancePercent: input.underpayment_tolerance_percent,
    sendReceipts: input.send_receipts,
  };
}

/**
 * Merchant administration over HTTP, the same operations as `paylink merchant …`, behind
 * `Authorization: Bearer $PAYLINK_ADMIN_TOKEN`. Registered only when a token is configured.
 */
export function adminApi(deps: ApiDeps, adminToken: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireAdminToken(adminToken));
    const admin = {
      ...deps,
      webhookAllowPrivate: deps.config.webhookAllowPrivate,
      tokenControls: deps.tokenControls?.live,
      defaultToleranceBps: deps.config.defaultToleranceBps,
      depositAddresses: deps.refunds,
    };
    merchantReadRoutes(app, admin);
    merchantChangeRoutes(app, admin);
  };
}

type AdminApp = Parameters<FastifyPluginAsyncZod>[0];

/** Creating, listing and showing merchants. */
function merchantReadRoutes(app: AdminApp, admin: MerchantAdminDeps): void {
  app.post(
    '/admin/api/merchants/',
    {
      schema: {
        summary: 'Create a merchant',
        tags: ['admin'],
        security,
        body: CreateMerchantInput,
        response: { 201: Credentials, ...errors },
      },
    },
    async (request, reply) => {
      if (!request.body.name) throw new ValidationError('name', 'is required');
      const { merchant, apiKey, testApiKey } = await createMerchant(
        admin,
        { ...fields(request.body), name: request.body.name },
        { testKey: request.body.test_key === true },
      );
      request.log.info({ merchant: merchant.id }, 'merchant created');
      return reply.status(201).send({
        merchant: describeMerchant(merchant),
        api_key: apiKey,
        webhook_secret: merchant.webhookSecret,
        ...(testApiKey ? { test_api_key: testApiKey } : {}),
      });
    },
  );

  app.get(
    '/admin/api/merchants/',
    {
      schema: {
        summary: 'List merchants',
        tags: ['admin'],
        security,
        response: { 200: z.object({ merchants: z.array(MerchantView) }), 401: ErrorBody },
      },
    },
    async () => ({ merchants: (await listMerchants(admin)).map(describeMerchant) }),
  );

  app.get(
    '/admin/api/merchants/:public_id/',
    {
      schema: {
        summary: 'Show a merchant',
        tags: ['admin'],
        security,
        params: IdParams,
        response: { 200: MerchantView, ...errors },
      },
    },
    async (request) => describeMerchant(await getMerchant(admin, request.params.public_id)),
  );
}

/** Changing a merchant: its settings, its key, whether it is enabled. */
function merchantChangeRoutes(app: AdminApp, admin: MerchantAdminDeps): void {
  app.patch(
    '/admin/api/merchants/:public_id/',
    {
      schema: {
        summary: 'Update a merchant',
        tags: ['admin'],
        security,
        params: IdParams,
        body: MerchantInput,
        response: { 200: MerchantView, ...errors },
      },
    },
    async (request) =>
      describeMerchant(await updateMerchant(admin, request.params.public_id, fields(request.body))),
  );

  app.post(
    '/admin/api/merchants/:public_id/rotate-key/',
    {
      schema: {
        summary: 'Issue a new API key; the old one works until the grace period ends',
        tags: ['admin'],
        security,
        params: IdParams,
        body: z
          .object({
            grace: z.string().optional().meta({ example: '24h' }),
            mode: z
              .enum(['live', 'test'], { error: 'must be live or test' })
              .optional()
              .meta({ description: 'Which key to rotate (default live); the other mode keeps its key' }),
          })
          .nullish(),
        response: { 200: Credentials, ...errors },
      },
    },
    async (request) => {
      const graceText = request.body?.grace ?? '0';
      const graceMs = parseDuration(graceText);
      if (graceMs === undefined)
        throw new ValidationError('grace', 'must be a duration such as 0, 30m or 24h');
      const mode = request.body?.mode ?? 'live';
      const { merchant, apiKey } = await rotateApiKey(admin, request.params.public_id, graceMs, mode);
      request.log.info({ merchant: merchant.id, mode }, 'api key rotated');
      return { merchant: describeMerchant(merchant), api_key: apiKey };
    },
  );

  app.post(
    '/admin/api/merchants/:public_id/disable/',
    {
      schema: {
        summary: 'Disable a merchant',
        tags: ['admin'],
        security,
        params: IdParams,
        response: { 200: MerchantView, ...errors },
      },
    },
    async (request) => describeMerchant(await disableMerchant(admin, request.params.public_id)),
  );
}
