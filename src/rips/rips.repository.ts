// Every SQL statement of RIPS: its settings, insurers and service catalogue, and the month's patients and services
// read in keyset pages (a month of 100,000 patients is never held in memory).

import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { RipsCatalogueRow, RipsEntidadRow, RipsSettingsRow, RipsSettingsTable } from './rips.table.js';

export async function findRipsSettings(db: Executor): Promise<RipsSettingsRow> {
  return db.selectFrom('rips_settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
}

export type RipsSettingsValues = Omit<RipsSettingsTable, 'id' | 'updated_at'>;

export async function updateRipsSettings(trx: Executor, values: RipsSettingsValues, at: string): Promise<void> {
  await trx.updateTable('rips_settings').set({ ...values, updated_at: at }).where('id', '=', 1).execute();
}

export async function listRipsEntidades(db: Executor): Promise<RipsEntidadRow[]> {
  return db.selectFrom('rips_entidades').selectAll().orderBy('entidad_salud').execute();
}

export async function updateRipsEntidad(trx: Executor, row: RipsEntidadRow): Promise<number> {
  const r = await trx.updateTable('rips_entidades').set({ nombre: row.nombre, codigo: row.codigo }).where('entidad_salud', '=', row.entidad_salud).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Every edition of every service, by service then date (the catalogue is small: a row per service and edition). */
export async function listRipsCatalogue(db: Executor): Promise<RipsCatalogueRow[]> {
  return db.selectFrom('rips_catalogue').selectAll().orderBy('servicio').orderBy('vigente_desde').execute();
}

export async function findCatalogueRow(db: Executor, servicio: string, vigenteDesde: string): Promise<RipsCatalogueRow | undefined> {
  return db.selectFrom('rips_catalogue').selectAll().where('servicio', '=', servicio).where('vigente_desde', '=', vigenteDesde).executeTakeFirst();
}

export async function insertCatalogueRow(trx: Executor, row: Omit<RipsCatalogueRow, 'id'>): Promise<number> {
  const r = await trx.insertInto('rips_catalogue').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

/** A patient of the month, as RIPS reads it. */
export interface RipsPatientRow {
  id: number;
  tipo_documento: string;
  documento: string;
  nombre: string;
  apellido: string;
  tipo_usuario: string;
  fecha_nacimiento: string;
  genero: string;
  zona: string;
  departamento: string;
  ciudad: string;
  programa: string;
}

export interface RipsPeriodQuery {
  entidad: string;
  start: string;
  end: string;
}

/**
 * The next page of the insurer's patients with at least one service (an exam record not voided) in the period,
 * by id after `afterId`: the EXISTS seeks each of the patient's cycles for a record of the period (indexes
 * ingresos_paciente_idx, exam_records_ingreso_fecha_idx, partial on the records not voided: decision 0150).
 */
export async function ripsPatientsPage(db: Executor, q: RipsPeriodQuery, afterId: number, limit: number): Promise<RipsPatientRow[]> {
  return db
    .selectFrom('patients as p')
    .select(['p.id', 'p.tipo_documento', 'p.documento', 'p.nombre', 'p.apellido', 'p.tipo_usuario', 'p.fecha_nacimiento', 'p.genero', 'p.zona', 'p.departamento', 'p.ciudad', 'p.programa'])
    .where('p.entidad_salud', '=', q.entidad)
    .where('p.id', '>', afterId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('ingresos as i')
          .innerJoin('exam_records as e', 'e.ingreso_id', 'i.id')
          .select(sql`1`.as('one'))
          .whereRef('i.paciente_id', '=', 'p.id')
          .where('e.fecha', '>=', q.start)
          .where('e.fecha', '<=', q.end)
          .where('e.anulado_at', 'is', null),
      ),
    )
    .orderBy('p.id')
    .limit(limit)
    .execute();
}

/** A service of the period with its professional's document. */
export interface RipsServiceRow {
  id: number;
  paciente_id: number;
  kind: string;
  tipo: string | null;
  tipo_sesion: string | null;
  nombre_examen: string | null;
  fecha: string;
  hora: string | null;
  registrado_por: number;
  prof_username: string;
  prof_tipo_documento: string;
  prof_documento: string;
}

/** The services of these patients in the period, voided ones left out, in the order they were given. */
export async function ripsServicesOf(db: Executor, patientIds: readonly number[], q: RipsPeriodQuery, defaultHora: string): Promise<RipsServiceRow[]> {
  if (patientIds.length === 0) return [];
  return db
    .selectFrom('exam_records as e')
    .innerJoin('ingresos as i', 'i.id', 'e.ingreso_id')
    .innerJoin('users as u', 'u.id', 'e.registrado_por')
    .select([
      'e.id',
      'i.paciente_id',
      'e.kind',
      'e.tipo',
      'e.tipo_sesion',
      'e.nombre_examen',
      'e.fecha',
      'e.hora',
      'e.registrado_por',
      'u.username as prof_username',
      'u.tipo_documento as prof_tipo_documento',
      'u.documento as prof_documento',
    ])
    .where('i.paciente_id', 'in', patientIds as number[])
    .where('e.fecha', '>=', q.start)
    .where('e.fecha', '<=', q.end)
    .where('e.anulado_at', 'is', null)
    .orderBy('i.paciente_id')
    .orderBy('e.fecha')
    .orderBy(sql`coalesce(e.hora, ${defaultHora})`)
    .orderBy('e.id')
    .execute();
}
