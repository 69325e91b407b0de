import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The date rules of decision 0031 that do not depend on "today", held by the database too, for new writes only
// (rows stored before stay as they are and stay readable):
//  - an exam record is dated on or after the start of the Ingreso it is filed under, and on or before its end;
//  - an Ingreso does not start before its patient's birth date (checked when it is created or its start moves).
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create function exam_records_guard_fecha() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from ingresos i where i.id = new.ingreso_id
                   and (new.fecha < i.fecha_inicio or (i.fecha_fin is not null and new.fecha > i.fecha_fin))) then
          raise exception 'exam_records: fecha outside its Ingreso';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger exam_records_fecha_in_cycle before insert on exam_records
      for each row execute function exam_records_guard_fecha()`.execute(db);
    await sql`create function ingresos_guard_start() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from patients p where p.id = new.paciente_id and new.fecha_inicio < p.fecha_nacimiento) then
          raise exception 'ingresos: fecha_inicio before the patient''s birth';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger ingresos_start_after_birth before insert or update of fecha_inicio on ingresos
      for each row execute function ingresos_guard_start()`.execute(db);
  } else {
    await sql`create trigger exam_records_fecha_in_cycle before insert on exam_records
      when exists (select 1 from ingresos i where i.id = new.ingreso_id
                   and (new.fecha < i.fecha_inicio or (i.fecha_fin is not null and new.fecha > i.fecha_fin)))
      begin select raise(abort, 'exam_records: fecha outside its Ingreso'); end`.execute(db);
    for (const [name, event] of [
      ['ingresos_start_after_birth_insert', 'insert'],
      ['ingresos_start_after_birth_update', 'update of fecha_inicio'],
    ] as const) {
      await sql
        .raw(
          `create trigger ${name} before ${event} on ingresos
          when exists (select 1 from patients p where p.id = new.paciente_id and new.fecha_inicio < p.fecha_nacimiento)
          begin select raise(abort, 'ingresos: fecha_inicio before the patient''s birth'); end`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger exam_records_fecha_in_cycle on exam_records`.execute(db);
    await sql`drop function exam_records_guard_fecha()`.execute(db);
    await sql`drop trigger ingresos_start_after_birth on ingresos`.execute(db);
    await sql`drop function ingresos_guard_start()`.execute(db);
  } else {
    await sql`drop trigger exam_records_fecha_in_cycle`.execute(db);
    await sql`drop trigger ingresos_start_after_birth_insert`.execute(db);
    await sql`drop trigger ingresos_start_after_birth_update`.execute(db);
  }
}
