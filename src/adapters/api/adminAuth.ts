import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { PaylinkError } from '../../domain/errors.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether a request carries `Authorization: Bearer $PAYLINK_ADMIN_TOKEN`. */
export function adminTokenCheck(adminToken: string): (request: FastifyRequest) => boolean {
  const expected = sha256(adminToken);
  return (request) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Hashing both sides gives equal lengths, so the comparison is constant-time whatever was sent.
    return match?.[1] !== undefined && timingSafeEqual(sha256(match[1]), expected);
  };
}

/** The `onRequest` hook of every admin route: the admin token, or 401. */
export function requireAdminToken(adminToken: string): (request: FastifyRequest) => Promise<void> {
  const isAdmin = adminTokenCheck(adminToken);
  return async (request) => {
    if (!isAdmin(request)) throw new PaylinkError('UNAUTHORIZED', 'Invalid or missing admin token');
  };
}
