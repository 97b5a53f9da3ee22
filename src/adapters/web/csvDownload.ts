import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

/** An export's range as the query gives it; `exportRange` (app/exportPayments.ts) checks it. */
export const ExportRangeQuery = z.object({
  from: z.string({ error: 'must be a string' }).max(40).optional(),
  to: z.string({ error: 'must be a string' }).max(40).optional(),
});

/**
 * Streams CSV produced a page at a time as a download: a slow reader holds the next page back. Fastify pipes
 * a stream as it is, without the serializer a route schema's response type stands for.
 */
export function sendCsv(reply: FastifyReply, filename: string, rows: AsyncIterable<string>): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(Readable.from(rows) as unknown as string);
}
