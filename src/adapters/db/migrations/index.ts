import type { Migration } from 'kysely';
import * as initial from './0001_initial.ts';
import * as chain from './0002_chain.ts';

/** Every migration, in order. Names sort lexically; a migration, once released, is never edited. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_chain': chain,
};
