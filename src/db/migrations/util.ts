// Helpers for migrations only. Old migrations depend on these: never change what one does; add a new one.
import { type ColumnDefinitionBuilder, type Kysely } from 'kysely';

import { isPostgres } from '../database.js';

export { isPostgres };

/** Auto-incrementing integer primary key on both engines. */
export const idColumn = (db: Kysely<any>) => ({
  type: isPostgres(db) ? ('serial' as const) : ('integer' as const),
  build: (col: ColumnDefinitionBuilder) => (isPostgres(db) ? col.primaryKey() : col.primaryKey().autoIncrement()),
});
