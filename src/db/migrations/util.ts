// Helpers for migrations only. Old migrations depend on these: never change what one does; add a new one.
import { PostgresAdapter, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Auto-incrementing integer primary key on both engines. */
export const idColumn = (db: Kysely<any>) => ({
  type: isPostgres(db) ? ('serial' as const) : ('integer' as const),
  build: (col: ColumnDefinitionBuilder) => (isPostgres(db) ? col.primaryKey() : col.primaryKey().autoIncrement()),
});
