import { hash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { parse } from 'lossless-json';
import { ValidationError } from '../../domain/errors.ts';
import { findBadText, namedOr } from '../web/inputText.ts';

/**
 * A JSON number exactly as the client wrote it. Bodies are parsed losslessly: `100.10` keeps its text and
 * never becomes a float, and a 40-digit number is seen as 40 digits (then refused), never silently rounded.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the JSON body's bytes (for Idempotency-Key: same key, same bytes). */
    bodySha256?: string;
  }
}

export class JsonNumber {
  constructor(readonly text: string) {}
}

/**
 * Makes lossless JSON the only body format (Fastify's text/plain parser goes too, so any other content type
 * is a 415). Duplicate keys are refused as ambiguous.
 */
export function registerLosslessJsonParser(app: FastifyInstance): void {
  // Declared, so every request is built with it (see declareAuthenticationFields in merchantAuth.ts).
  app.decorateRequest('bodySha256', undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // The one-shot form: a third of createHash's cost, on every body.
    request.bodySha256 = hash('sha256', text, 'hex');
    if (text.trim() === '') {
      done(new ValidationError('body', 'must be a JSON object'), undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = parse(text, null, (numberText: string) => new JsonNumber(numberText));
    } catch (error) {
      const reason = error instanceof Error ? error.message.split(' (')[0] : 'invalid JSON';
      done(new ValidationError('body', `is not valid JSON (${reason})`), undefined);
      return;
    }
    const bad = findBadText(parsed, '');
    if (bad.length > 0) {
      done(new ValidationError(namedOr(bad, 'body')), undefined);
      return;
    }
    done(null, parsed);
  });
}
