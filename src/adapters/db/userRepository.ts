import type { Selectable, Updateable } from 'kysely';
import type { DashboardSession, UserStore } from '../../app/dashboard/ports.ts';
import type { DashboardUser } from '../../domain/dashboardUser.ts';
import { PaylinkError } from '../../domain/errors.ts';
import type { Db } from './database.ts';
import type { DashboardSessionsTable, DashboardUsersTable } from './schema.ts';
import { isUniqueViolation } from './uniqueViolation.ts';

function toUser(row: Selectable<DashboardUsersTable>): DashboardUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role as DashboardUser['role'],
    merchantId: row.merchant_id,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    status: row.status as DashboardUser['status'],
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function toSession(row: Selectable<DashboardSessionsTable>): DashboardSession {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    csrfToken: row.csrf_token,
    createdAt: new Date(row.created_at),
    lastSeenAt: new Date(row.last_seen_at),
    expiresAt: new Date(row.expires_at),
  };
}

/**
 * Marks every open link of the user as used up: a link that was issued and then replaced (or not needed, since
 * a password was set through another) must not set a password later, in whoever's hands it is.
 */
async function voidOpenLinks(db: Db, userId: string, at: Date): Promise<void> {
  await db
    .updateTable('dashboard_password_links')
    .set({ used_at: at.toISOString() })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** Dashboard users, their one-time password links and their sessions. */
export function userRepository(db: Db): UserStore {
  return {
    insert: (user) => insertUser(db, user),
    findById: (id) => findUser(db, 'id', id),
    findByEmail: (email) => findUser(db, 'email', email),
    list: () => listUsers(db),
    setStatus: (id, status, at) => updateUser(db, id, { status, updated_at: at.toISOString() }),
    setPasswordHash: (id, hash, at) =>
      updateUser(db, id, { password_hash: hash, updated_at: at.toISOString() }),
    setTotpSecret: (id, secret, at) =>
      updateUser(db, id, { totp_secret: secret, totp_last_step: null, updated_at: at.toISOString() }),
    useTotpStep: (id, step) => useTotpStep(db, id, step),
    insertPasswordLink: (link) => insertPasswordLink(db, link),
    usePasswordLink: (tokenHash, now) => usePasswordLink(db, tokenHash, now),
    insertSession: (session) => insertSession(db, session),
    findSession: (tokenHash) => findSession(db, tokenHash),
    touchSession: (tokenHash, at) => touchSession(db, tokenHash, at),
    async deleteSession(tokenHash) {
      await db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteSessionsOf(userId) {
      await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
    },
  };
}

async function insertUser(db: Db, user: DashboardUser): Promise<void> {
  try {
    await db
      .insertInto('dashboard_users')
      .values({
        id: user.id,
        email: user.email,
        role: user.role,
        merchant_id: user.merchantId,
        password_hash: user.passwordHash,
        totp_secret: user.totpSecret,
        totp_last_step: null,
        status: user.status,
        created_at: user.createdAt.toISOString(),
        updated_at: user.updatedAt.toISOString(),
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new PaylinkError('CONFLICT', 'A user with this e-mail address exists already', {
        field: 'email',
      });
    throw error;
  }
}

async function findUser(db: Db, column: 'id' | 'email', value: string): Promise<DashboardUser | undefined> {
  const row = await db.selectFrom('dashboard_users').selectAll().where(column, '=', value).executeTakeFirst();
  return row && toUser(row);
}

async function listUsers(db: Db): Promise<DashboardUser[]> {
  const rows = await db
    .selectFrom('dashboard_users')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toUser);
}

async function updateUser(db: Db, id: string, columns: Updateable<DashboardUsersTable>): Promise<void> {
  await db.updateTable('dashboard_users').set(columns).where('id', '=', id).execute();
}

async function useTotpStep(db: Db, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function insertPasswordLink(
  db: Db,
  link: Parameters<UserStore['insertPasswordLink']>[0],
): Promise<void> {
  // A new link voids the user's open ones in the same transaction: only the newest link sets a password.
  await db.transaction().execute(async (trx) => {
    await voidOpenLinks(trx, link.userId, link.createdAt);
    await trx
      .insertInto('dashboard_password_links')
      .values({
        token_hash: link.tokenHash,
        user_id: link.userId,
        expires_at: link.expiresAt.toISOString(),
        used_at: null,
        created_at: link.createdAt.toISOString(),
      })
      .execute();
  });
}

async function usePasswordLink(db: Db, tokenHash: string, now: Date): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    // One statement: of two concurrent uses, only one finds it unused.
    const row = await trx
      .updateTable('dashboard_password_links')
      .set({ used_at: now.toISOString() })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now.toISOString())
      .returning('user_id')
      .executeTakeFirst();
    // A password set: no other link of the user may set another one.
    if (row) await voidOpenLinks(trx, row.user_id, now);
    return row?.user_id;
  });
}

async function insertSession(db: Db, session: DashboardSession): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({
      token_hash: session.tokenHash,
      user_id: session.userId,
      csrf_token: session.csrfToken,
      created_at: session.createdAt.toISOString(),
      last_seen_at: session.lastSeenAt.toISOString(),
      expires_at: session.expiresAt.toISOString(),
    })
    .execute();
}

async function findSession(db: Db, tokenHash: string): Promise<DashboardSession | undefined> {
  const row = await db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row && toSession(row);
}

async function touchSession(db: Db, tokenHash: string, at: Date): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ last_seen_at: at.toISOString() })
    .where('token_hash', '=', tokenHash)
    .execute();
}
