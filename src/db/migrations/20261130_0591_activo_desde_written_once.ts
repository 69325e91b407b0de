import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// patients.activo_desde is kept by the triggers of migration 0010 from the patient's ACTIVO Ingreso. They rewrote the
// patient's row after every insert or change of an Ingreso, even when the value stayed the same: a patient created
// with its first cycle was written twice, the second time moving it into the seven partial indexes of the active
// patients and running the patient's update triggers (counters, versions; on PostgreSQL a new version of the row in
// every index of patients). The triggers now write only when the value changes, so the creation writes the row
// once, with its start already in place (patient.actions.ts insertPatientWithCycle); any other value a writer
// gives is still set right by the trigger in the same statement (decision 0300). Names and events are unchanged
// (bench/load-triggers.ts knows the insert trigger by its name).

const SYNC = 'ingresos_sync_activo_desde';
const activeStart = (ref: 'new' | 'old') => `(select i.fecha_inicio from ingresos i where i.paciente_id = ${ref}.paciente_id and i.estado = 'ACTIVO')`;

async function install(db: Kysely<any>, onlyWhenChanged: boolean): Promise<void> {
  const pg = isPostgres(db);
  const differs = (ref: 'new' | 'old') => (onlyWhenChanged ? ` and activo_desde ${pg ? 'is distinct from' : 'is not'} ${activeStart(ref)}` : '');
  const sync = (ref: 'new' | 'old') => `update patients set activo_desde = ${activeStart(ref)} where id = ${ref}.paciente_id${differs(ref)};`;
  if (pg) {
    await sql
      .raw(
        `create or replace function patients_sync_activo_desde() returns trigger language plpgsql as $$
      begin
        if tg_op in ('INSERT', 'UPDATE') then
          ${sync('new')}
        end if;
        if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.paciente_id <> new.paciente_id) then
          ${sync('old')}
        end if;
        return null;
      end $$`,
      )
      .execute(db);
    return;
  }
  for (const name of [`${SYNC}_insert`, `${SYNC}_update`, `${SYNC}_delete`]) await sql.raw(`drop trigger ${name}`).execute(db);
  await sql.raw(`create trigger ${SYNC}_insert after insert on ingresos begin ${sync('new')} end`).execute(db);
  await sql.raw(`create trigger ${SYNC}_update after update of estado, fecha_inicio, paciente_id on ingresos begin ${sync('old')} ${sync('new')} end`).execute(db);
  await sql.raw(`create trigger ${SYNC}_delete after delete on ingresos begin ${sync('old')} end`).execute(db);
}

export const up = (db: Kysely<any>) => install(db, true);
export const down = (db: Kysely<any>) => install(db, false);
