import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/dashboard/signIn.ts';
import { addCatalogueItem, removeCatalogueItem } from '../../app/pos/catalogue.ts';
import type { CatalogueStore } from '../../app/pos/ports.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { typedAmount } from '../web/typedAmount.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { type CatalogueForm, renderCatalogue } from './renderCatalogue.ts';
import type { PageContext } from './renderDashboard.ts';

/**
 * The point of sale's catalogue, managed by the merchant's users only (a PoS user rings items up, never changes
 * them): the list, "Add item" and "Remove". Part of the point of sale's pages (posPages.ts).
 */
export function cataloguePages(
  app: FastifyInstance,
  deps: DashboardDeps & { readonly posCatalogue: CatalogueStore },
  kit: PageKit,
  context: (request: FastifyRequest) => PageContext,
): void {
  const catalogueDeps = { catalogue: deps.posCatalogue, clock: deps.clock };
  const show = async (signedIn: SignedIn, reply: FastifyReply, form: CatalogueForm) =>
    reply.send(
      renderCatalogue(signedIn, context(reply.request), {
        items: await deps.posCatalogue.list(merchantOf(signedIn.user)),
        form,
      }),
    );

  app.get('/dashboard/pos/catalogue', async (request, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    return show(signedIn, reply, { fields: {} });
  });

  app.post('/dashboard/pos/catalogue', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const body = request.body ?? {};
    try {
      await addCatalogueItem(catalogueDeps, merchantOf(signedIn.user), {
        name: body.name ?? '',
        unitPrice: typedAmount(body.unit_price ?? ''),
        currency: body.currency ?? '',
      });
      return reply.redirect('/dashboard/pos/catalogue', 303);
    } catch (error) {
      if (!(error instanceof PaylinkError)) throw error;
      return show(signedIn, reply.status(error.status), {
        fields: body,
        problem: error.message,
        problemField: error.field,
      });
    }
  });

  app.post('/dashboard/pos/catalogue/:id/remove', async (request: FormRequest, reply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    return kit.guard(reply, signedIn, async () => {
      await removeCatalogueItem(catalogueDeps, merchantOf(signedIn.user), id);
      return reply.redirect('/dashboard/pos/catalogue', 303);
    });
  });
}
