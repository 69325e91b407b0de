// The agenda administration's SQL (issue 28): plan editions, the clinic's settings and the resources. The database or
// the transaction comes first. The booking's own reads stay in agenda.repository.ts.
import { sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';
import { insertRowReturningId } from '../platform/writes/prepared.js';
import type { ProgramaPlan } from './agenda.admin.rules.js';
import type { AgendaAjustesTable } from './agenda.table.js';

/** Every edition of every program, latest first within its program, with who published it. */
export const listEditions = (db: Executor) =>
  db
    .selectFrom('agenda_planes as p')
    .leftJoin('users as u', 'u.id', 'p.created_by')
    .select(['p.id', 'p.programa', 'p.vigente_desde', 'p.created_at', 'u.username as creado_por'])
    .orderBy('p.programa')
    .orderBy('p.vigente_desde', 'desc')
    .limit(500)
    .execute();
export type EditionRow = Awaited<ReturnType<typeof listEditions>>[number];

/** The lines of these editions, with their kind's name, in the order they were written. */
export const listEditionLines = (db: Executor, planIds: readonly number[]) =>
  planIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('agenda_plan_visitas as v')
        .innerJoin('agenda_tipos as t', 't.codigo', 'v.tipo')
        .select(['v.id', 'v.plan_id', 'v.tipo', 'v.dia', 'v.repeticiones', 'v.intervalo_dias', 't.nombre as tipo_nombre', 't.examen', 't.examen_tipo'])
        .where('v.plan_id', 'in', planIds)
        .orderBy('v.plan_id')
        .orderBy('v.dia')
        .orderBy('v.id')
        .execute();
export type EditionLineRow = Awaited<ReturnType<typeof listEditionLines>>[number];

/** The program's latest edition (in force or still to come): a new one must start after it. */
export const findLatestEdition = (db: Executor, programa: ProgramaPlan) =>
  db.selectFrom('agenda_planes').select(['id', 'vigente_desde']).where('programa', '=', programa).orderBy('vigente_desde', 'desc').limit(1).executeTakeFirst();

export const listTipoCodes = async (db: Executor): Promise<Set<string>> =>
  new Set((await db.selectFrom('agenda_tipos').select('codigo').execute()).map((r) => r.codigo));

export const updateAjustes = (trx: Trx, set: Omit<AgendaAjustesTable, 'id'>) => trx.updateTable('agenda_ajustes').set(set).where('id', '=', 1).execute();

/** Every resource, the deactivated ones too, with how many visits ever held it. */
export const listAllRecursos = (db: Executor) =>
  db
    .selectFrom('agenda_recursos as r')
    .select((eb) => [
      'r.id',
      'r.nombre',
      'r.clase',
      'r.activo',
      eb.selectFrom('citas as c').select(sql<number>`cast(count(*) as integer)`.as('n')).whereRef('c.recurso_id', '=', 'r.id').as('citas'),
    ])
    .orderBy('r.activo', 'desc')
    .orderBy('r.nombre')
    .limit(500)
    .execute();

export const findAnyRecurso = (db: Executor, id: number) => db.selectFrom('agenda_recursos').selectAll().where('id', '=', id).executeTakeFirst();
export const findRecursoByName = (db: Executor, nombre: string) => db.selectFrom('agenda_recursos').select('id').where('nombre', '=', nombre).executeTakeFirst();

export const insertRecurso = (trx: Trx, row: { nombre: string; clase: 'SALA' | 'POLIGRAFO' | 'CPAP' }) => insertRowReturningId(trx, 'agenda_recursos', { ...row, activo: 1 });

export const updateRecurso = (trx: Trx, id: number, set: { nombre: string; activo: number }) =>
  trx.updateTable('agenda_recursos').set(set).where('id', '=', id).execute();
