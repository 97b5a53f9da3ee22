import type { FastifyInstance } from 'fastify';
import { type FieldProblem, ValidationError } from '../../domain/errors.ts';
import { textProblem } from '../../domain/text.ts';

/**
 * Every text in a parsed body (a value or a key, at any depth) that no field may hold — control characters,
 * broken Unicode (domain/text.ts) — with its path (`name`, `items[0].note`): one rule for every route, each
 * field at fault named once. (A parsed JSON number is an object holding its digits: walked like the rest, it
 * never fails.)
 */
export function findBadText(
  value: unknown,
  path: string,
  found: FieldProblem[] = [],
  multiLine?: ReadonlySet<string>,
): FieldProblem[] {
  // Loops that add to one list: the check runs on every request's query and parameters, and almost none holds
  // bad text, so nothing is built for a text that passes.
  if (typeof value === 'string') {
    // A field made to hold lines (a postal address typed in a textarea) may hold line breaks, and nothing else.
    const text = multiLine?.has(path) ? value.replace(/\r\n|\r|\n/g, ' ') : value;
    const problem = textProblem(text);
    if (problem) found.push({ field: path, message: problem });
  } else if (ArrayBuffer.isView(value)) {
    // An uploaded file's bytes (the dashboard's logo): not text, checked by what reads them.
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) findBadText(value[i], `${path}[${i}]`, found, multiLine);
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const keyProblem = textProblem(key);
      // A bad key at the top is the whole part's problem: `namedOr` names it (query, body).
      if (keyProblem) found.push({ field: path, message: `has a key that ${keyProblem}` });
      else
        findBadText((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, found, multiLine);
    }
  }
  return found;
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
    const bad = findBadText(request.params, '', findBadText(request.query, ''));
    done(bad.length > 0 ? new ValidationError(namedOr(bad, 'query')) : undefined);
  });
}
