import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type deactivateLink, editLink, reactivateLink, showLink } from '../../app/links/manageLinks.ts';
import { type KeyMode, keyModeOf } from '../../domain/credentials.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { DashboardDeps } from './dashboardDeps.ts';
import { type FormRequest, merchantOf, type PageKit } from './pageKit.ts';
import { EDIT_FIELDS, editFieldsOf, renderEditLink } from './renderLinkEdit.ts';

type Links = NonNullable<DashboardDeps['paymentLinks']>;
type EditRequest = FastifyRequest<{ Params: { id: string }; Querystring: { mode?: string } }>;

const linkPath = (id: string, mode: KeyMode) =>
  `/dashboard/links/${id}${mode === 'test' ? '?mode=test' : ''}`;

/**
 * Editing a link and re-activating it after a deactivation (decision 0053), for a merchant user, through the
 * use cases of app/links. Part of the link pages (linkPages.ts).
 */
export function linkEditPages(app: FastifyInstance, deps: DashboardDeps, links: Links, kit: PageKit): void {
  app.get('/dashboard/links/:id/edit', editForm(links, kit));
  app.post('/dashboard/links/:id/edit', saveEdit(deps, links, kit));
  app.post(
    '/dashboard/links/:id/reactivate',
    linkSwitchForm(deps, links, kit, reactivateLink, {
      logged: 'payment link re-activated from the dashboard',
      notice: 'reactivated',
    }),
  );
}

function editForm(links: Links, kit: PageKit) {
  return async (request: EditRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn) return reply;
    const mode = keyModeOf(request.query.mode);
    return kit.guard(reply, signedIn, async () => {
      const { link } = await showLink(
        { links: links.store },
        merchantOf(signedIn.user),
        mode,
        request.params.id,
      );
      return reply.send(
        renderEditLink({ signedIn, ctx: kit.context(request), link, fields: editFieldsOf(link) }),
      );
    });
  };
}

/** Saves the form; a refused one comes back as typed, its field marked, with the problem in words. */
function saveEdit(deps: DashboardDeps, links: Links, kit: PageKit) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf((request.query as { mode?: string }).mode);
    const merchantId = merchantOf(signedIn.user);
    const body = request.body ?? {};
    const fields = Object.fromEntries(EDIT_FIELDS.map((name) => [name, body[name]?.trim() ?? '']));
    return kit.guard(reply, signedIn, async () => {
      const { link } = await showLink({ links: links.store }, merchantId, mode, id);
      try {
        const endsOn = fields.ends_on;
        await editLink({ links: links.store, clock: deps.clock }, merchantId, mode, link.id, {
          title: fields.title,
          description: fields.description,
          maxUses: fields.max_uses || undefined,
          // A day picked in the form: the link takes payments until that day ends, in UTC (as when made).
          endsAt: endsOn && /^\d{4}-\d{2}-\d{2}$/.test(endsOn) ? `${endsOn}T23:59:59Z` : endsOn || undefined,
        });
      } catch (error) {
        if (!(error instanceof PaylinkError) || error.code !== 'VALIDATION_ERROR') throw error;
        const { field } = error;
        return reply.status(400).send(
          renderEditLink({
            signedIn,
            ctx: kit.context(request),
            link,
            fields,
            problem: error.message,
            problemField: field === 'ends_at' ? 'ends_on' : field,
          }),
        );
      }
      request.log.info({ link: link.id, mode }, 'payment link edited from the dashboard');
      return reply.redirect(`${linkPath(link.id, mode)}${mode === 'test' ? '&' : '?'}saved=1`, 303);
    });
  };
}

/** Deactivation or re-activation, each a use case of app/links/manageLinks.ts. */
type LinkSwitch = typeof deactivateLink | typeof reactivateLink;

/**
 * A form that switches one of the merchant's links off or on: the merchant user, the CSRF check (and the ticked
 * box, when the switch asks for it), the use case, a log line, and back to the link's page.
 */
export function linkSwitchForm(
  deps: DashboardDeps,
  links: Links,
  kit: PageKit,
  change: LinkSwitch,
  options: { readonly logged: string; readonly notice?: string; readonly confirmed?: boolean },
) {
  return async (request: FormRequest, reply: FastifyReply) => {
    const signedIn = await kit.requireRole('merchant', request, reply);
    if (!signedIn || kit.refusedForgery(request, reply, signedIn)) return reply;
    const { id } = request.params as { id: string };
    const mode = keyModeOf(request.body?.mode);
    return kit.guard(reply, signedIn, async () => {
      if (options.confirmed && request.body?.confirmed !== 'yes')
        return kit.refuse(reply, signedIn, 400, kit.context(request).t.links.notConfirmed);
      const link = await change(
        { links: links.store, clock: deps.clock },
        merchantOf(signedIn.user),
        mode,
        id,
      );
      request.log.info({ link: link.id, mode }, options.logged);
      const notice = options.notice ? `${mode === 'test' ? '&' : '?'}${options.notice}=1` : '';
      return reply.redirect(`${linkPath(link.id, mode)}${notice}`, 303);
    });
  };
}
