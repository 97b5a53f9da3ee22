import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../domain/errors.ts';
import { textProblem } from '../../domain/text.ts';

/**
 * The first text in a parsed body (a value or a key, at any depth) that no field may hold — control characters,
 * broken Unicode (domain/text.ts) — with its path (`name`, `items[0].note`): one rule for every route. (A
 * parsed JSON number is an object holding its digits: walked like the rest, it never fails.)
 */
export function findBadText(value: unknown, path: string): { field: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: path, problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const bad = findBadText(item, `${path}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const keyProblem = textProblem(key);
      if (keyProblem)
        return { field: path || 'body', problem: `has a key that ${keyProblem.replace(/^must/, 'must')}` };
      const bad = findBadText(item, field);
      if (bad) return bad;
    }
  }
  return undefined;
}

/**
 * The same rule for the query string and the path's parameters of every route: a control character there is a
 * 400 naming the parameter, before any handler (or database) sees it.
 */
export function registerInputTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const bad = findBadText(request.query, '') ?? findBadText(request.params, '');
    done(bad ? new ValidationError(bad.field || 'query', bad.problem) : undefined);
  });
}
