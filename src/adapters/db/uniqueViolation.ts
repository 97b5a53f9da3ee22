/** Both drivers' words for a unique index refusing a row. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * A payment refused by `payments_reference_merchant` (migration 0042): another payment of its merchant has its
 * reference. PostgreSQL names the index; SQLite names its columns.
 */
export function isReferenceTaken(error: unknown): boolean {
  if (!isUniqueViolation(error)) return false;
  const { constraint, message } = error as { constraint?: unknown; message?: unknown };
  return (
    constraint === 'payments_reference_merchant' ||
    (typeof message === 'string' && message.includes('payments.reference'))
  );
}
