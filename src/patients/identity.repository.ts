// Who a patient is, against everyone already registered: the documento keys taken or left colliding (decision
// 0030), and the people born on the same day for the duplicate-person warning (decision 0043).

import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../db/database.js';
import { precompiled } from '../platform/writes/prepared.js';

/** The form `<key>#<id>` a colliding patient's key took (migration 0040), for the patient aliased `p`. */
const keyWithIdOfP = (key: unknown) => sql<string>`${key} || '#' || cast(p.id as text)`;

/**
 * Whether another patient (not `exceptId`) already has this documento_key, also as a colliding '<key>#<id>' still
 * listed in documento_collisions (decision 0030).
 */
export async function isDocumentoKeyTaken(db: Executor, documentoKey: string, exceptId?: number): Promise<boolean> {
  // The key is unique, so at most a holder and a listed collision come back.
  const holders = await selectDocumentoKeyHolders(db, documentoKey);
  return holders.some((h) => h.id !== exceptId);
}

/** The patient who holds the documento_key (other than `exceptId`), by id and name; null when nobody does. */
export async function findDocumentoKeyHolder(
  db: Executor,
  documentoKey: string,
  exceptId?: number,
): Promise<{ id: number; nombre: string; apellido: string } | null> {
  const holder = (await selectDocumentoKeyHolders(db, documentoKey)).find((h) => h.id !== exceptId);
  if (!holder) return null;
  return (await db.selectFrom('patients').select(['id', 'nombre', 'apellido']).where('id', '=', holder.id).executeTakeFirst()) ?? null;
}

/** Two indexed lookups (one on each table's documento_key index), so no temporary table is built for an IN list. */
const selectDocumentoKeyHolders = precompiled((db: Executor, documentoKey: string) =>
  db
    .selectFrom('patients')
    .select('id')
    .where('documento_key', '=', documentoKey)
    .unionAll(
      db
        .selectFrom('documento_collisions as c')
        .innerJoin('patients as p', 'p.id', 'c.patient_id')
        .select('p.id')
        .where('c.documento_key', '=', documentoKey)
        .where('p.documento_key', '=', keyWithIdOfP(documentoKey)),
    ),
);

// ---------------------------------------------------------------------------------------------------------
// Documentos that collided when keys became canonical (migration 0040, decision 0030).

export interface DocumentoCollisionRow {
  documento_key: string;
  id: number;
  nombre: string;
  apellido: string;
  tipo_documento: string;
  documento: string;
}

/**
 * The patients of every collision group still unresolved: members whose key is still the group's (or its
 * '<key>#<id>' form), in groups of two or more, ordered by key and id.
 */
export async function listDocumentoCollisions(db: Executor): Promise<DocumentoCollisionRow[]> {
  const stillMember = sql<SqlBool>`(p.documento_key = c.documento_key or p.documento_key = ${keyWithIdOfP(sql.ref('c.documento_key'))})`;
  const open = db
    .selectFrom('documento_collisions as c')
    .innerJoin('patients as p', 'p.id', 'c.patient_id')
    .select('c.documento_key')
    .where(stillMember)
    .groupBy('c.documento_key')
    .having(sql<SqlBool>`count(*) >= 2`);
  return db
    .selectFrom('documento_collisions as c')
    .innerJoin('patients as p', 'p.id', 'c.patient_id')
    .select(['c.documento_key', 'p.id', 'p.nombre', 'p.apellido', 'p.tipo_documento', 'p.documento'])
    .where(stillMember)
    .where('c.documento_key', 'in', open)
    .orderBy('c.documento_key')
    .orderBy('p.id')
    .execute();
}

/**
 * The line written at start while collision groups remain (decision 0030): how many, and the patients' ids (never
 * their names or documentos: logs hold no patient data). Returns the rows it found.
 */
export async function logDocumentoCollisions(
  db: Executor,
  log: { warn(obj: object, msg: string): void },
): Promise<DocumentoCollisionRow[]> {
  const rows = await listDocumentoCollisions(db);
  if (rows.length > 0) {
    const groups = new Set(rows.map((r) => r.documento_key)).size;
    log.warn(
      { patientIds: rows.map((r) => r.id) },
      `${groups} documento(s) repetido(s) entre ${rows.length} pacientes registrados: un administrador debe resolverlos en /users/documentos/`,
    );
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------
// Possible duplicate people (decision 0043)

export interface PersonCandidate {
  id: number;
  nombre: string;
  apellido: string;
  documento: string;
  fecha_nacimiento: string;
}

/** What the duplicate-person check reads of each candidate: all of it in patients_birth_idx (migration 0120). */
const PERSON_COLUMNS = ['id', 'nombre', 'apellido', 'documento', 'fecha_nacimiento'] as const;

/** Patients born on any of the given dates, a chunk of dates per statement: read from patients_birth_idx alone (migration 0120). */
export async function findPeopleBornOn(db: Executor, dates: readonly string[]): Promise<PersonCandidate[]> {
  const unique = [...new Set(dates)];
  // One date (a create): the statement compiled once.
  if (unique.length === 1) return selectPeopleBornOn(db, unique[0]!);
  const out: PersonCandidate[] = [];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    out.push(
      ...(await db
        .selectFrom('patients')
        .select(PERSON_COLUMNS)
        .where('fecha_nacimiento', 'in', chunk)
        .orderBy('id')
        .execute()),
    );
  }
  return out;
}

const selectPeopleBornOn = precompiled((db: Executor, date: string) =>
  db.selectFrom('patients').select(PERSON_COLUMNS).where('fecha_nacimiento', '=', date).orderBy('id'),
);

/** Which of the given documento keys are taken, and by which patient (a chunk of keys per statement). */
export async function findPatientsByDocumentoKeys(db: Executor, keys: readonly string[]): Promise<Map<string, { id: number; nombre: string; apellido: string }>> {
  const unique = [...new Set(keys)];
  const out = new Map<string, { id: number; nombre: string; apellido: string }>();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom('patients')
      .select(['id', 'documento_key', 'nombre', 'apellido'])
      .where('documento_key', 'in', unique.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.documento_key, { id: r.id, nombre: r.nombre, apellido: r.apellido });
  }
  return out;
}
