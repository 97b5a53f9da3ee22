import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type SignedIn, type SignInDeps, sessionUser } from '../../app/dashboard/signIn.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';
import { PaylinkError } from '../../domain/errors.ts';
import { isLanguage, negotiateLanguage } from '../web/language.ts';
import { DASHBOARD_TEXT } from './messages/index.ts';
import { POS_TEXT } from './posMessages/index.ts';
import { type DashboardAssets, type PageContext, renderNotFound } from './renderDashboard.ts';

export const SESSION_COOKIE = 'paylink_session';
/** The language a person picked from the switcher (decision 0026): a preference, not a secret. */
export const LANGUAGE_COOKIE = 'paylink_lang';
export const HTML = 'text/html; charset=utf-8';

export type FormRequest = FastifyRequest<{ Body: Record<string, string | undefined> }>;

/**
 * What every dashboard page handler needs: who is signed in (or a redirect), the CSRF check of its forms, and
 * the page for a refusal. Shared by the merchant's pages and the operator's console, so both guard alike.
 */
export interface PageKit {
  /**
   * The page's assets and the person's language: `?lang=` (a switcher's link), else the one they picked before
   * (its cookie), else the browser's Accept-Language.
   */
  context(request: FastifyRequest): PageContext;
  /**
   * The signed-in user, or undefined after a redirect: to sign-in without a session, to the second factor's page
   * for an operator who must enroll one first (unless `enrolling`). A PoS user is refused with 403 here: every
   * page but the point of sale's goes through this (or `requireRole`), so a page added later is closed to the
   * counter's staff unless it asks for `requirePos` (decision 0054).
   */
  requireUser(
    request: FastifyRequest,
    reply: FastifyReply,
    enrolling?: boolean,
  ): Promise<SignedIn | undefined>;
  /**
   * The point of sale's pages: a PoS user, or a merchant user (who may ring up sales too); an operator gets the
   * same 404 as a page that does not exist.
   */
  requirePos(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /** Where a person lands after signing in: any signed-in user, a PoS user included. */
  requireAnyone(request: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined>;
  /** As `requireUser`, and a user of the other role gets the same 404 as a page that does not exist. */
  requireRole(
    role: DashboardUser['role'],
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<SignedIn | undefined>;
  /** A signed-in user's form without its session's CSRF token: refused with 403 (then true). */
  refusedForgery(request: FormRequest, reply: FastifyReply, signedIn: SignedIn): boolean;
  /** A refusal page: 404 without a problem, else the problem in words, with the error's status. */
  refuse(reply: FastifyReply, signedIn: SignedIn, status: number, problem?: string): FastifyReply;
  /** Runs an action; a PaylinkError becomes its refusal page, anything else propagates (a 500). */
  guard(reply: FastifyReply, signedIn: SignedIn, action: () => Promise<unknown>): Promise<unknown>;
}

function csrfMatches(expected: string, given: string | undefined): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given ?? '');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function pageKit(
  deps: Pick<SignInDeps, 'users' | 'merchants' | 'clock'> & { readonly requireOperatorSecondFactor: boolean },
  assets: DashboardAssets,
): PageKit {
  const context: PageKit['context'] = (request) => {
    const query = request.query as { lang?: unknown } | undefined;
    const picked = request.cookies?.[LANGUAGE_COOKIE];
    const lang = isLanguage(query?.lang)
      ? query.lang
      : isLanguage(picked)
        ? picked
        : negotiateLanguage(request.headers['accept-language']);
    const [path, search] = request.url.split('?');
    const kept = new URLSearchParams(search ?? '');
    kept.delete('lang');
    return { assets, lang, t: DASHBOARD_TEXT[lang], query: kept.toString(), path };
  };

  const refuse: PageKit['refuse'] = (reply, { user, session }, status, problem) =>
    reply
      .status(status)
      .type(HTML)
      .send(renderNotFound(context(reply.request), user, session.csrfToken, problem));

  const signedInAs = async (
    request: FastifyRequest,
    reply: FastifyReply,
    { enrolling = false, pos = false }: { enrolling?: boolean; pos?: boolean },
  ): Promise<SignedIn | undefined> => {
    const signedIn = await sessionUser(deps, request.cookies[SESSION_COOKIE]);
    if (!signedIn) {
      reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' }).redirect('/dashboard/login', 303);
      return undefined;
    }
    const { user } = signedIn;
    if (
      !enrolling &&
      deps.requireOperatorSecondFactor &&
      user.role === 'operator' &&
      user.totpSecret === null
    ) {
      reply.redirect('/dashboard/security', 303);
      return undefined;
    }
    if (user.role === 'pos' && !pos) {
      refuse(reply, signedIn, 403, POS_TEXT[context(request).lang].posOnly);
      return undefined;
    }
    reply.type(HTML);
    return signedIn;
  };
  const requireUser: PageKit['requireUser'] = (request, reply, enrolling = false) =>
    signedInAs(request, reply, { enrolling });

  return {
    context,
    requireUser,
    requireAnyone: (request, reply) => signedInAs(request, reply, { pos: true }),
    async requirePos(request, reply) {
      const signedIn = await signedInAs(request, reply, { pos: true });
      if (!signedIn) return undefined;
      if (signedIn.user.role === 'operator') {
        refuse(reply, signedIn, 404);
        return undefined;
      }
      return signedIn;
    },
    async requireRole(role, request, reply) {
      const signedIn = await requireUser(request, reply);
      if (!signedIn) return undefined;
      if (signedIn.user.role !== role) {
        refuse(reply, signedIn, 404);
        return undefined;
      }
      return signedIn;
    },
    refusedForgery(request, reply, signedIn) {
      if (csrfMatches(signedIn.session.csrfToken, request.body?.csrf)) return false;
      refuse(reply, signedIn, 403, context(request).t.refusal.forged);
      return true;
    },
    refuse,
    async guard(reply, signedIn, action) {
      try {
        return await action();
      } catch (error) {
        if (!(error instanceof PaylinkError)) throw error;
        return refuse(reply, signedIn, error.status, error.code === 'NOT_FOUND' ? undefined : error.message);
      }
    },
  };
}

/** A merchant or PoS user's merchant (users of those roles always have one: createUser says so). */
export function merchantOf(user: DashboardUser): string {
  if (user.merchantId === null) throw new Error(`a ${user.role} user without a merchant`);
  return user.merchantId;
}
