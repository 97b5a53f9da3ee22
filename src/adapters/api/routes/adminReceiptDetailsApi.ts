import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BrandStore } from '../../../app/brand/ports.ts';
import { updateReceiptDetails } from '../../../app/brand/updateBrand.ts';
import { getMerchant } from '../../../app/merchants/merchantAdmin.ts';
import type { Brand } from '../../../domain/brand.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { requireAdminToken } from '../adminAuth.ts';
import type { ApiDeps } from '../apiDeps.ts';
import { ErrorBody } from '../schemas.ts';

const security = [{ adminToken: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };

const ReceiptDetailsInput = z.object(
  {
    address_lines: z
      .array(z.string({ error: 'must be a string' }), { error: 'must be a list of lines' })
      .nullable()
      .optional()
      .meta({
        description:
          'The postal or business address printed on receipts, one entry per line (at most 6 lines, 300 characters); null or [] removes it, absent keeps it',
        example: ['Oranienstraße 12', '10999 Berlin', 'Germany'],
      }),
    tax_id: z.string({ error: 'must be a string' }).nullable().optional().meta({
      description: 'Tax or VAT id printed under the address (at most 40 characters); null or "" removes it',
      example: 'DE123456789',
    }),
  },
  { error: 'must be a JSON object' },
);

const ReceiptDetails = z
  .object({
    public_id: z.string(),
    address_lines: z.array(z.string()),
    tax_id: z.string().nullable(),
  })
  .meta({ id: 'MerchantReceiptDetails' });

/** A merchant's receipt details as the API shows them. */
export function describeReceiptDetails(merchantId: string, brand: Brand | undefined) {
  return {
    public_id: merchantId,
    address_lines: brand?.address?.split('\n') ?? [],
    tax_id: brand?.taxId ?? null,
  };
}

/**
 * The address and tax id a merchant's receipts print (decision 0057), set by the operator as by the merchant on
 * its brand page: the same as `paylink merchant receipt-details …`. Lines as a list, so the JSON holds no line
 * break (the service's text rule refuses control characters in every field).
 */
export function adminReceiptDetailsApi(
  deps: ApiDeps & { readonly brands: BrandStore },
  adminToken: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', requireAdminToken(adminToken));
    app.patch(
      '/admin/api/merchants/:public_id/receipt-details/',
      {
        schema: {
          summary: "Set the address and tax id on a merchant's receipts",
          tags: ['admin'],
          security,
          params: z.object({ public_id: z.string() }),
          body: ReceiptDetailsInput,
          response: { 200: ReceiptDetails, ...errors },
        },
      },
      async (request) => {
        const merchant = await getMerchant(deps, request.params.public_id);
        const { address_lines: lines, tax_id: taxId } = request.body;
        try {
          const brand = await updateReceiptDetails(deps, merchant.id, {
            address: lines === undefined ? undefined : (lines ?? []).join('\n'),
            taxId,
          });
          return describeReceiptDetails(merchant.id, brand);
        } catch (error) {
          // The address is `address_lines` here: the refusal names the field the client sent.
          const problem = error instanceof ValidationError ? error.details?.[0] : undefined;
          if (problem?.field === 'address') throw new ValidationError('address_lines', problem.message);
          throw error;
        }
      },
    );
  };
}
