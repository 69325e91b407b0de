import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.js';
import { syncTableVersionTriggers } from '../platform/pages/table-versions.js';

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/**
 * Applies every pending migration, then installs the version triggers generated from the table registry (decisions
 * 0023, 0067); throws (and applies nothing more) on the first failure.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'desconocida';
    throw new Error(`La migración ${failed} falló: ${error instanceof Error ? error.message : String(error)}`);
  }
  await syncTableVersionTriggers(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
