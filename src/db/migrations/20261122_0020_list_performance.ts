import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// The patient lists at 100,000 patients (issue 6; decision 0011): counts without a scan, and the mes_filtro page
// from an index already in list order.
//
// - patient_active_counts: how many patients have an ACTIVO Ingreso, per month of its fecha_inicio
//   (mes = substr(activo_desde, 1, 7)). Kept by triggers on patients.activo_desde, which the triggers of
//   migration 0010 keep in turn, so every change of an Ingreso adjusts it in the same statement. The list's total
//   is a sum over a few dozen rows; mes_filtro m is one row (m = 2..17) or a sum of a few (m = 1 and 18).
// - patient_list_version: one row whose number grows whenever anything a patient list shows, filters or orders
//   by changes (search_text, the ordering names, activo_desde; a patient added or removed). Counts of searches are
//   memoized against it: a cached count is valid exactly while the number is unchanged.
// - patients_active_month_order_idx: the active patients grouped by month of their start, in list order inside
//   each month: the mes_filtro page of m = 2..17 reads ten entries instead of sorting the month.
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('patient_active_counts')
    .addColumn('mes', 'text', (c) => c.primaryKey())
    .addColumn('n', 'integer', (c) => c.notNull().check(sql`n >= 0`))
    .execute();
  await sql`insert into patient_active_counts (mes, n)
    select substr(activo_desde, 1, 7), count(*) from patients where activo_desde is not null
    group by substr(activo_desde, 1, 7)`.execute(db);

  await db.schema
    .createTable('patient_list_version')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into patient_list_version (id, v) values (1, 1)`.execute(db);

  const increment = (ref: 'new' | 'old') =>
    sql.raw(`insert into patient_active_counts (mes, n) values (substr(${ref}.activo_desde, 1, 7), 1)
      on conflict (mes) do update set n = patient_active_counts.n + 1;`);
  const decrement = (ref: 'new' | 'old') =>
    sql.raw(`update patient_active_counts set n = n - 1 where mes = substr(${ref}.activo_desde, 1, 7);`);
  const bump = sql.raw(`update patient_list_version set v = v + 1 where id = 1;`);
  const listColumnsChanged = sql.raw(`old.activo_desde is distinct from new.activo_desde
      or old.search_text is distinct from new.search_text
      or old.apellido_norm is distinct from new.apellido_norm
      or old.nombre_norm is distinct from new.nombre_norm`);

  if (pg) {
    await sql`create function patients_list_upkeep() returns trigger language plpgsql as $$
      begin
        -- nested: NEW is not assigned in a DELETE trigger, nor OLD in an INSERT one.
        if tg_op = 'DELETE' then
          if old.activo_desde is not null then ${decrement('old')} end if;
        elsif tg_op = 'INSERT' then
          if new.activo_desde is not null then ${increment('new')} end if;
        elsif old.activo_desde is distinct from new.activo_desde then
          if old.activo_desde is not null then ${decrement('old')} end if;
          if new.activo_desde is not null then ${increment('new')} end if;
        end if;
        ${bump}
        return null;
      end $$`.execute(db);
    await sql`create trigger patients_list_upkeep_insert_delete after insert or delete on patients
      for each row execute function patients_list_upkeep()`.execute(db);
    await sql`create trigger patients_list_upkeep_update after update on patients
      for each row when (${listColumnsChanged}) execute function patients_list_upkeep()`.execute(db);
  } else {
    // SQLite has no "is distinct from": "is not" is its null-safe inequality.
    const changed = sql.raw(`old.activo_desde is not new.activo_desde or old.search_text is not new.search_text
      or old.apellido_norm is not new.apellido_norm or old.nombre_norm is not new.nombre_norm`);
    await sql`create trigger patients_list_upkeep_insert after insert on patients begin
      ${bump} end`.execute(db);
    await sql`create trigger patients_active_count_insert after insert on patients
      when new.activo_desde is not null begin ${increment('new')} end`.execute(db);
    await sql`create trigger patients_list_upkeep_delete after delete on patients begin
      ${bump} end`.execute(db);
    await sql`create trigger patients_active_count_delete after delete on patients
      when old.activo_desde is not null begin ${decrement('old')} end`.execute(db);
    await sql`create trigger patients_list_upkeep_update after update on patients when ${changed} begin
      ${bump} end`.execute(db);
    await sql`create trigger patients_active_count_update_old after update of activo_desde on patients
      when old.activo_desde is not null and old.activo_desde is not new.activo_desde begin ${decrement('old')} end`.execute(db);
    await sql`create trigger patients_active_count_update_new after update of activo_desde on patients
      when new.activo_desde is not null and old.activo_desde is not new.activo_desde begin ${increment('new')} end`.execute(db);
  }

  // mes_filtro m = 2..17 is one calendar month: `substr(activo_desde, 1, 7) = 'YYYY-MM'`, already in list order.
  await sql`create index patients_active_month_order_idx on patients
    (substr(activo_desde, 1, 7), apellido_norm, nombre_norm, id) where activo_desde is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('patients_active_month_order_idx').execute();
  if (isPostgres(db)) {
    await sql`drop trigger if exists patients_list_upkeep_insert_delete on patients`.execute(db);
    await sql`drop trigger if exists patients_list_upkeep_update on patients`.execute(db);
    await sql`drop function if exists patients_list_upkeep()`.execute(db);
  } else {
    for (const t of [
      'patients_list_upkeep_insert',
      'patients_active_count_insert',
      'patients_list_upkeep_delete',
      'patients_active_count_delete',
      'patients_list_upkeep_update',
      'patients_active_count_update_old',
      'patients_active_count_update_new',
    ]) {
      await sql.raw(`drop trigger if exists ${t}`).execute(db);
    }
  }
  await db.schema.dropTable('patient_list_version').execute();
  await db.schema.dropTable('patient_active_counts').execute();
}
