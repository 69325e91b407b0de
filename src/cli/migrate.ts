import { loadConfig } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';

const config = loadConfig();
const handle = openDatabase(config.databaseUrl);
try {
  const applied = await migrateToLatest(handle.db);
  console.log(applied.length > 0 ? `Migraciones aplicadas: ${applied.join(', ')}` : 'La base de datos ya está al día.');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await handle.close();
}
