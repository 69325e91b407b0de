import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { cliContext } from './context.js';
import { exportAllFhir } from '../fhir/fhir.actions.js';
import { EXPORT_TARGET_EXISTS } from '../fhir/fhir.bulk.js';
import { isDomainError } from '../shared/domain-error.js';

export const USAGE = 'Uso: npm run export:fhir -- --out CARPETA';

export interface ExportIo {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
}

/** `npm run export:fhir`: the whole database as FHIR NDJSON files in --out; returns the exit code. */
export async function exportFhirCommand(argv: string[], io: ExportIo): Promise<number> {
  let outDir: string | undefined;
  try {
    outDir = parseArgs({ args: argv, options: { out: { type: 'string' } }, strict: true }).values.out;
  } catch (err) {
    io.err(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 1;
  }
  if (!outDir) {
    io.err(`Falta --out.\n${USAGE}`);
    return 1;
  }
  let config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(err.message);
      return 1;
    }
    throw err;
  }
  const handle = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(handle.db);
    const started = performance.now();
    const counts = await exportAllFhir(cliContext(handle.db, config), outDir);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    io.out(`Exportación FHIR en ${outDir} (${secs} s): ${counts.Patient} Patient, ${counts.EpisodeOfCare} EpisodeOfCare, ${counts.Observation} Observation.`);
    return 0;
  } catch (err) {
    if (isDomainError<{ message: string }>(err, EXPORT_TARGET_EXISTS)) {
      io.err(err.details.message);
      return 1;
    }
    throw err;
  } finally {
    await handle.close();
  }
}
