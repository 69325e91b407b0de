// The whole database as FHIR R4 NDJSON, one file per resource type (the FHIR Bulk Data layout: Patient.ndjson,
// EpisodeOfCare.ndjson, Observation.ndjson), streamed a batch of patients at a time (decision 0041).

import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { isPostgres, type Db, type Executor } from '../db/database.js';
import { conflict } from '../shared/domain-error.js';
import { loadPatientRecords, nextPatientRange } from './fhir.repository.js';
import { patientResources, type PatientRecordData } from './fhir.rules.js';

export const BULK_RESOURCE_TYPES = ['Patient', 'EpisodeOfCare', 'Observation', 'Appointment'] as const;
export type BulkResourceType = (typeof BULK_RESOURCE_TYPES)[number];

/** Patients read (with their cycles, history and exams) per batch: what is in memory at once. */
export const BULK_BATCH_PATIENTS = 500;

/** The export would overwrite an existing file; `details.message` is what the command prints. */
export const EXPORT_TARGET_EXISTS = 'fhir.export_target_exists';

/** One batch's records read from one snapshot: a patient is never exported half-changed. */
async function readBatch(db: Db, range: { fromId: number; toId: number }): Promise<PatientRecordData[]> {
  // PostgreSQL reads a batch in one statement: one snapshot already.
  if (isPostgres(db)) return loadPatientRecords(db, range);
  // SQLite: a deferred read transaction (the application's transactions take the write lock, which a reader
  // must not hold while it serialises).
  return db.connection().execute(async (conn) => {
    await sql`begin deferred`.execute(conn);
    try {
      return await loadPatientRecords(conn, range);
    } finally {
      await sql`commit`.execute(conn);
    }
  });
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function closeStream(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

/**
 * Writes `<outDir>/<Type>.ndjson` for each resource type and returns how many resources each holds. The files
 * are written under a `.partial` name and renamed only when every one is complete; an existing export file is
 * never overwritten (the EXPORT_TARGET_EXISTS domain error).
 */
export async function exportNdjson(db: Db, outDir: string, options: { timeZone: string; batchPatients?: number }): Promise<Record<BulkResourceType, number>> {
  mkdirSync(outDir, { recursive: true });
  const finalPath = (t: BulkResourceType) => path.join(outDir, `${t}.ndjson`);
  for (const t of BULK_RESOURCE_TYPES) {
    if (existsSync(finalPath(t))) throw conflict(EXPORT_TARGET_EXISTS, { message: `${finalPath(t)} ya existe: elija una carpeta vacía.` });
  }
  const streams = Object.fromEntries(BULK_RESOURCE_TYPES.map((t) => [t, createWriteStream(`${finalPath(t)}.partial`, { flags: 'wx' })])) as Record<
    BulkResourceType,
    WriteStream
  >;
  const counts: Record<BulkResourceType, number> = { Patient: 0, EpisodeOfCare: 0, Observation: 0, Appointment: 0 };
  const batch = options.batchPatients ?? BULK_BATCH_PATIENTS;
  try {
    // The next batch is read while this one is serialised and written (on PostgreSQL the database works meanwhile).
    let range = await nextPatientRange(db, 0, batch);
    let pending = range ? readBatch(db, range) : null;
    while (range && pending) {
      const records = await pending;
      const nextRange = await nextPatientRange(db, range.toId, batch);
      pending = nextRange ? readBatch(db, nextRange) : null;
      // A failed read ahead is reported by the next turn's await, not as an unhandled rejection.
      pending?.catch(() => undefined);
      const lines: Record<BulkResourceType, string[]> = { Patient: [], EpisodeOfCare: [], Observation: [], Appointment: [] };
      for (const record of records) {
        for (const resource of patientResources(record, options.timeZone)) {
          lines[resource.resourceType as BulkResourceType].push(JSON.stringify(resource));
        }
      }
      for (const t of BULK_RESOURCE_TYPES) {
        if (lines[t].length === 0) continue;
        counts[t] += lines[t].length;
        await write(streams[t], `${lines[t].join('\n')}\n`);
      }
      range = nextRange;
    }
    for (const t of BULK_RESOURCE_TYPES) await closeStream(streams[t]);
  } catch (err) {
    for (const t of BULK_RESOURCE_TYPES) {
      streams[t].destroy();
      rmSync(`${finalPath(t)}.partial`, { force: true });
    }
    throw err;
  }
  for (const t of BULK_RESOURCE_TYPES) renameSync(`${finalPath(t)}.partial`, finalPath(t));
  return counts;
}
