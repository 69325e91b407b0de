// Test data and database observations shared by the reliability tests and harnesses: valid forms for every
// feature endpoint, a seeded patient/Ingreso/exam record to fill route parameters, a fingerprint of every table
// (to prove "nothing changed") and the invariants that must hold after any crash or race.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.js';
import { createPatient } from '../../../src/patients/patient.actions.js';
import { validatePatientForm } from '../../../src/patients/patient.schema.js';
import { todayIn } from '../../../src/shared/dates.js';
import { newPatientForm } from '../../fixtures/patient.fixtures.js';

let counter = 0;
/** A documento no other test, file or process uses (≤ 20 characters). */
export function uniqueDocumento(prefix = 'R'): string {
  counter++;
  return `${prefix}${process.pid % 100000}${Date.now() % 100000}${counter}`.slice(0, 20);
}

/** A complete, valid POST /patients/create/ body (decisions §4) whose documento no other run uses either. */
export function patientForm(overrides: Record<string, string> = {}): Record<string, string> {
  return newPatientForm({ documento: uniqueDocumento(), ...overrides });
}

/** Valid exam-record bodies (decisions §7), by the last path segment of the route. */
export function examForm(kind: 'monitoreo' | 'psicologia' | 'otros', fecha: string, overrides: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, Record<string, string>> = {
    monitoreo: { fecha, tipo: 'POLISOMNOGRAFIA', iah: '22.5', saturacion_minima: '84', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: 'Registro de prueba' },
    psicologia: { fecha, tipo_sesion: 'SEGUIMIENTO', numero_sesion: '2', isi: '12', epworth: '9', observaciones: 'Sesión de prueba' },
    otros: { fecha, nombre_examen: 'Espirometría', resultado: 'Normal', observaciones: 'Examen de prueba' },
  };
  return { ...base[kind]!, ...overrides };
}

/** The text fields of each form, where stored-XSS payloads go. */
export const PATIENT_TEXT_FIELDS = ['nombre', 'apellido', 'documento', 'telefono', 'celular', 'medico_remitente', 'especialidad'] as const;

export interface World {
  patientId: number;
  ingresoId: number;
  userId: number;
  examId: number | null;
}

/**
 * A patient with an ACTIVO Ingreso, created by the application's own use case (the create action, without the
 * routes), so that it carries what every created patient carries.
 */
export async function seedPatient(db: Db, overrides: Record<string, string> = {}, fechaInicio = '2026-10-01'): Promise<{ patientId: number; ingresoId: number; documento: string }> {
  const at = new Date();
  const form = validatePatientForm(patientForm({ ...overrides, fecha_inicio_programa: fechaInicio }), todayIn('America/Bogota', at));
  if (!form.ok) throw new Error(`seedPatient: invalid form ${JSON.stringify(form.errors)}`);
  const ctx = { db, clock: { now: () => at }, timeZone: 'America/Bogota', actor: null };
  const created = await createPatient(ctx, { patient: form.patient, fechaInicioPrograma: fechaInicio, otherPerson: true });
  if (!created.ok) throw new Error(`seedPatient: ${JSON.stringify(created)}`);
  const ingreso = await db.selectFrom('ingresos').select('id').where('paciente_id', '=', created.id).executeTakeFirstOrThrow();
  return { patientId: created.id, ingresoId: ingreso.id, documento: form.patient.documento };
}

/** Any exam record of the Ingreso, or null (before the exams feature stores any). */
export async function anyExamId(db: Db): Promise<number | null> {
  const row = await db.selectFrom('exam_records').select('id').orderBy('id').executeTakeFirst().catch(() => undefined);
  return row?.id ?? null;
}

/**
 * A value for a route parameter, from its name and the route: real ids of the seeded records, so a route reaches
 * its handler (a 404 for an unknown id would test nothing). Unknown names get the patient id.
 */
export function resolveParam(world: World, name: string, url: string, status = 'SUSPENDIDO'): string {
  const n = name.toLowerCase();
  if (/status|estado/.test(n)) return status;
  if (/kind|tipo/.test(n)) return 'monitoreo';
  if (/ingreso|entry|ciclo/.test(n)) return String(world.ingresoId);
  if (/record|exam|registro/.test(n)) return String(world.examId ?? 1);
  if (/user|usuario/.test(n)) return String(world.userId);
  if (/patient|paciente/.test(n)) return String(world.patientId);
  if (url.includes('/ingreso/estado/')) return String(world.ingresoId);
  if (/\/ingreso\/:[^/]+\/$/.test(url) && !url.startsWith('/patients/ingreso/')) return String(world.ingresoId);
  if (url.startsWith('/users/')) return String(world.userId);
  return String(world.patientId);
}

const SKIPPED_TABLES = /^(sqlite_|kysely_|patients_fts)/;

export async function tableNames(db: Db): Promise<string[]> {
  const tables = await db.introspection.getTables();
  return tables.filter((t) => !t.isView && !SKIPPED_TABLES.test(t.name)).map((t) => t.name).sort();
}

/**
 * A fingerprint of every row of every table (sessions by id only: reading a page may touch last_seen_at; audit
 * entries of views left out: a form shown again with its errors shows the record, and that view is audited).
 * Equal fingerprints before and after a request prove it changed nothing.
 */
export async function fingerprint(db: Db, except: readonly string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of await tableNames(db)) {
    if (except.includes(t)) continue;
    const rows =
      t === 'sessions'
        ? await sql<Record<string, unknown>>`select id_hash from sessions`.execute(db)
        : t === 'audit_log'
          ? await sql<Record<string, unknown>>`select * from audit_log where action not like '%view%'`.execute(db)
          : await sql<Record<string, unknown>>`select * from ${sql.table(t)}`.execute(db);
    const lines = rows.rows.map((r) => JSON.stringify(r)).sort();
    out[t] = `${lines.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

export async function countRows(db: Db, table: string): Promise<number> {
  const r = await sql<{ n: number }>`select cast(count(*) as integer) as n from ${sql.table(table)}`.execute(db);
  return Number(r.rows[0]!.n);
}

/**
 * The invariants no crash or race may break; each entry names what is broken, with the offending ids.
 * A patient without an Ingreso, an Ingreso without its opening history row, a status that differs from the last
 * history row, an Ingreso change or exam record with no audit entry, two open Ingresos for one patient, a record
 * on a cycle that was TERMINADO before the record was written.
 */
export async function brokenInvariants(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const check = async (label: string, query: ReturnType<typeof sql<{ id: number }>>) => {
    const rows = (await query.execute(db)).rows;
    if (rows.length > 0) problems.push(`${label}: ${rows.slice(0, 10).map((r) => r.id).join(', ')}${rows.length > 10 ? ` (+${rows.length - 10})` : ''}`);
  };
  await check('patient without any Ingreso', sql<{ id: number }>`select p.id from patients p where not exists (select 1 from ingresos i where i.paciente_id = p.id)`);
  await check('patient without its creation audit entry', sql<{ id: number }>`select p.id from patients p where not exists (select 1 from audit_log a where a.action = 'patient.create' and a.entity_id = p.id)`);
  await check('Ingreso without its opening history row', sql<{ id: number }>`select i.id from ingresos i where not exists (select 1 from ingreso_historial h where h.ingreso_id = i.id and h.desde is null)`);
  await check(
    'new cycle (not the first Ingreso) without its ingreso.open audit entry',
    sql<{ id: number }>`select i.id from ingresos i where i.id > (select min(i2.id) from ingresos i2 where i2.paciente_id = i.paciente_id)
      and not exists (select 1 from audit_log a where a.action = 'ingreso.open' and a.entity_id = i.id)`,
  );
  await check(
    'Ingreso whose estado differs from its last history row',
    sql<{ id: number }>`select i.id from ingresos i where i.estado <> (select h.hacia from ingreso_historial h where h.ingreso_id = i.id order by h.id desc limit 1)`,
  );
  await check(
    'status changes (history rows) and ingreso.status audit entries do not match one to one',
    sql<{ id: number }>`select i.id from ingresos i where
      (select count(*) from ingreso_historial h where h.ingreso_id = i.id and h.desde is not null) <>
      (select count(*) from audit_log a where a.action = 'ingreso.status' and a.entity_id = i.id)`,
  );
  await check('patient with two open Ingresos', sql<{ id: number }>`select paciente_id as id from ingresos where estado in ('ACTIVO','SUSPENDIDO') group by paciente_id having count(*) > 1`);
  await check('TERMINADO Ingreso without fecha_fin or motivo', sql<{ id: number }>`select id from ingresos where estado = 'TERMINADO' and (fecha_fin is null or motivo is null)`);
  await check(
    'exam record without its exam.create audit entry',
    sql<{ id: number }>`select e.id from exam_records e where not exists (select 1 from audit_log a where a.action = 'exam.create' and a.entity_id = e.id)`,
  );
  // The audit entries are written inside each change's transaction, so their order is the order of the changes.
  await check(
    'exam record written after its Ingreso was TERMINADO',
    sql<{ id: number }>`select e.id from exam_records e
      join audit_log ae on ae.action = 'exam.create' and ae.entity_id = e.id
      join audit_log t on t.action = 'ingreso.status' and t.entity_id = e.ingreso_id and t.changes like '%"TERMINADO"]%'
      where ae.id > t.id`,
  );
  return problems;
}
