import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The patient lists at 100,000 patients: "only patients with an ACTIVO Ingreso, ordered by name, 10 a page, with
// the count" must come from one index, not from a join probed row by row. patients.activo_desde is the
// fecha_inicio of the patient's ACTIVO Ingreso (null when none), kept by triggers on ingresos in the same
// statement as every change, so no application code can forget it. A partial index over the active patients in
// list order (activo_desde included, for mes_filtro) then serves the page, the count and the month filter.
const SYNC = 'ingresos_sync_activo_desde';
/** Its trigger on insert, by engine, and what it keeps: for the benchmark's loader (bench/load-triggers.ts). */
export const INSERT_TRIGGERS = [
  { table: 'ingresos', name: (engine: 'sqlite' | 'postgres') => (engine === 'postgres' ? SYNC : `${SYNC}_insert`), effect: 'patients.activo_desde' },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema.alterTable('patients').addColumn('activo_desde', 'text').execute();
  await sql`update patients set activo_desde = (
      select i.fecha_inicio from ingresos i where i.paciente_id = patients.id and i.estado = 'ACTIVO')`.execute(db);

  if (pg) {
    await sql`create function patients_sync_activo_desde() returns trigger language plpgsql as $$
      begin
        if tg_op in ('INSERT', 'UPDATE') then
          update patients set activo_desde = (
            select i.fecha_inicio from ingresos i where i.paciente_id = new.paciente_id and i.estado = 'ACTIVO')
          where id = new.paciente_id;
        end if;
        if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.paciente_id <> new.paciente_id) then
          update patients set activo_desde = (
            select i.fecha_inicio from ingresos i where i.paciente_id = old.paciente_id and i.estado = 'ACTIVO')
          where id = old.paciente_id;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger ${sql.raw(SYNC)}
      after insert or delete or update of estado, fecha_inicio, paciente_id on ingresos
      for each row execute function patients_sync_activo_desde()`.execute(db);
  } else {
    const sync = (ref: 'new' | 'old') =>
      sql.raw(`update patients set activo_desde = (
          select i.fecha_inicio from ingresos i where i.paciente_id = ${ref}.paciente_id and i.estado = 'ACTIVO')
        where id = ${ref}.paciente_id;`);
    await sql`create trigger ${sql.raw(SYNC)}_insert after insert on ingresos begin ${sync('new')} end`.execute(db);
    await sql`create trigger ingresos_sync_activo_desde_update after update of estado, fecha_inicio, paciente_id on ingresos
      begin ${sync('old')} ${sync('new')} end`.execute(db);
    await sql`create trigger ingresos_sync_activo_desde_delete after delete on ingresos begin ${sync('old')} end`.execute(db);
  }

  // Active patients in list order; covering for the page, the count and the month filter.
  await db.schema
    .createIndex('patients_active_order_idx')
    .on('patients')
    .columns(['apellido_norm', 'nombre_norm', 'id', 'activo_desde'])
    .where(sql.ref('activo_desde'), 'is not', null)
    .execute();
  // mes_filtro counts: a range of start dates among the active patients.
  await db.schema
    .createIndex('patients_activo_desde_idx')
    .on('patients')
    .columns(['activo_desde', 'id'])
    .where(sql.ref('activo_desde'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('patients_activo_desde_idx').execute();
  await db.schema.dropIndex('patients_active_order_idx').execute();
  if (isPostgres(db)) {
    await sql`drop trigger if exists ingresos_sync_activo_desde on ingresos`.execute(db);
    await sql`drop function if exists patients_sync_activo_desde()`.execute(db);
  } else {
    for (const t of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ingresos_sync_activo_desde_${t}`).execute(db);
  }
  await db.schema.alterTable('patients').dropColumn('activo_desde').execute();
}
