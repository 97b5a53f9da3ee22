import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { merchantHome } from '../../app/dashboard/merchantHome.ts';
import { listPayments } from '../../app/payments/listPayments.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { merchantOf, type PageKit } from './pageKit.ts';
import { refundedOf } from './paymentReads.ts';
import { renderHome } from './renderHome.ts';

/** The newest payments a merchant's home shows. */
const NEWEST = 10;

/**
 * Where a person lands: a merchant user on its home page (decision 0026), an operator on the merchants, a PoS
 * user at the point of sale (decision 0054). Without the home's store, a merchant lands on its payments as before.
 */
export function homePages(app: FastifyInstance, deps: DashboardDeps, kit: PageKit): void {
  app.get('/dashboard', async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireAnyone(request, reply);
    if (!signedIn) return reply;
    if (signedIn.user.role === 'operator') return reply.redirect('/dashboard/merchants', 303);
    if (signedIn.user.role === 'pos') return reply.redirect('/dashboard/pos', 303);
    return reply.redirect(deps.overview ? '/dashboard/home' : '/dashboard/payments', 303);
  });
  app.get('/dashboard/home', async (request: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const { overview } = deps;
    if (!overview) return reply.redirect('/dashboard/payments', 303);
    const merchantId = merchantOf(signedIn.user);
    const [home, newest, merchant] = await Promise.all([
      merchantHome({ overview, clock: deps.clock }, merchantId, 'live'),
      listPayments(deps, merchantId, { limit: NEWEST, mode: 'live' }),
      deps.merchants.find(merchantId),
    ]);
    return renderHome({
      signedIn,
      ctx: kit.context(reply.request),
      merchant,
      home,
      newest: newest.payments,
      refunded: await refundedOf(deps, newest.payments),
    });
  });
}
