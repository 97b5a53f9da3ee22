import type { FastifyInstance } from 'fastify';
import { type FieldProblem, ValidationError } from '../../domain/errors.ts';
import { textProblem } from '../../domain/text.ts';

/**
 * Every text in a parsed body (a value or a key, at any depth) that no field may hold — control characters,
 * broken Unicode (domain/text.ts) — with its path (`name`, `items[0].note`): one rule for every route, each
 * field at fault named once. (A parsed JSON number is an object holding its digits: walked like the rest, it
 * never fails.)
 */
export function findBadText(value: unknown, path: string): FieldProblem[] {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? [{ field: path, message: problem }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => findBadText(item, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const keyProblem = textProblem(key);
      // A bad key at the top is the whole part's problem: `namedOr` names it (query, body).
      if (keyProblem) return [{ field: path, message: `has a key that ${keyProblem}` }];
      return findBadText(item, path ? `${path}.${key}` : key);
    });
  }
  return [];
}

/**
 * Whether `findBadText` would find anything, without building paths or lists: the check runs on every request's
 * query and parameters, and almost none holds bad text.
 */
function holdsBadText(value: unknown): boolean {
  if (typeof value === 'string') return textProblem(value) !== undefined;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsBadText);
  for (const key in value) {
    if (textProblem(key) !== undefined || holdsBadText((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** The problems, a whole-part problem (no path) named as the part. */
export function namedOr(problems: readonly FieldProblem[], part: string): FieldProblem[] {
  return problems.map(({ field, message }) => ({ field: field || part, message }));
}

/**
 * The same rule for the query string and the path's parameters of every route: a control character there is a
 * 400 naming the parameter, before any handler (or database) sees it.
 */
export function registerInputTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (!holdsBadText(request.query) && !holdsBadText(request.params)) {
      done();
      return;
    }
    const bad = [...findBadText(request.query, ''), ...findBadText(request.params, '')];
    done(bad.length > 0 ? new ValidationError(namedOr(bad, 'query')) : undefined);
  });
}
