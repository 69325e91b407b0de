import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// One version per table (decision 0023), replacing the three hand-kept counters of migrations 0020, 0021 and
// 0023 (patient_list_version, dashboard_version, exam_records_version) and their triggers. This migration creates
// the table and, on PostgreSQL, the bump function; the triggers themselves are installed after the migrations
// from the list in src/platform/pages/table-versions.ts (adding a table to that list is the only step).
const PG_SLOTS = 16;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable('table_versions')
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('table_versions_pk', ['table_name', 'slot'])
    .execute();
  if (pg) {
    // The slot's advisory lock first: every transaction takes the rows of its slot in one order (no deadlock).
    await sql
      .raw(
        `create function table_version_bump() returns trigger language plpgsql as $$
          declare s integer := pg_backend_pid() % ${PG_SLOTS};
          begin
            perform pg_advisory_xact_lock(1936613741, s);
            update table_versions set n = n + 1 where table_name = tg_argv[0] and slot = s;
            return null;
          end $$`,
      )
      .execute(db);
    await sql`drop trigger if exists patients_list_upkeep_insert_delete on patients`.execute(db);
    await sql`drop trigger if exists patients_list_upkeep_update on patients`.execute(db);
    // patient_active_counts stays: kept now by a function without the list version's bump.
    await sql
      .raw(
        `create or replace function patients_list_upkeep() returns trigger language plpgsql as $$
          begin
            if tg_op = 'DELETE' then
              if old.activo_desde is not null then
                update patient_active_counts set n = n - 1 where mes = substr(old.activo_desde, 1, 7);
              end if;
            elsif tg_op = 'INSERT' then
              if new.activo_desde is not null then
                insert into patient_active_counts (mes, n) values (substr(new.activo_desde, 1, 7), 1)
                  on conflict (mes) do update set n = patient_active_counts.n + 1;
              end if;
            elsif old.activo_desde is distinct from new.activo_desde then
              if old.activo_desde is not null then
                update patient_active_counts set n = n - 1 where mes = substr(old.activo_desde, 1, 7);
              end if;
              if new.activo_desde is not null then
                insert into patient_active_counts (mes, n) values (substr(new.activo_desde, 1, 7), 1)
                  on conflict (mes) do update set n = patient_active_counts.n + 1;
              end if;
            end if;
            return null;
          end $$`,
      )
      .execute(db);
    await sql`create trigger patients_list_upkeep_insert_delete after insert or delete on patients
      for each row execute function patients_list_upkeep()`.execute(db);
    await sql`create trigger patients_list_upkeep_update after update of activo_desde on patients
      for each row when (old.activo_desde is distinct from new.activo_desde) execute function patients_list_upkeep()`.execute(db);
    for (const [trigger, table] of [
      ['patients_dashboard_version', 'patients'],
      ['ingresos_dashboard_version', 'ingresos'],
      ['exam_records_version', 'exam_records'],
    ]) {
      await sql.raw(`drop trigger if exists ${trigger} on ${table}`).execute(db);
    }
    await sql`drop function if exists dashboard_version_bump()`.execute(db);
    await sql`drop function if exists exam_records_version_bump()`.execute(db);
  } else {
    for (const t of ['patients_list_upkeep_insert', 'patients_list_upkeep_delete', 'patients_list_upkeep_update']) {
      await sql.raw(`drop trigger if exists ${t}`).execute(db);
    }
    for (const table of ['patients', 'ingresos']) {
      for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists ${table}_dashboard_version_${op}`).execute(db);
    }
    for (const op of ['insert', 'update', 'delete']) await sql.raw(`drop trigger if exists exam_records_version_${op}`).execute(db);
  }
  await db.schema.dropTable('patient_list_version').execute();
  await db.schema.dropTable('dashboard_version').execute();
  await db.schema.dropTable('exam_records_version').execute();
}

/** Back to the three counters as migrations 0020–0023 left them (what each counts carries no meaning: a restart). */
export async function down(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const triggers = pg
    ? await sql<{ name: string; table: string }>`select t.tgname as name, c.relname as table from pg_trigger t
        join pg_class c on c.oid = t.tgrelid where not t.tgisinternal and t.tgname like '%\\_table\\_version'`.execute(db)
    : await sql<{ name: string; table: string }>`select name, tbl_name as "table" from sqlite_master
        where type = 'trigger' and name like '%\\_table\\_version\\_%' escape '\\'`.execute(db);
  for (const t of triggers.rows) await sql.raw(pg ? `drop trigger ${t.name} on ${t.table}` : `drop trigger ${t.name}`).execute(db);
  await db.schema.dropTable('table_versions').execute();
  await db.schema.createTable('patient_list_version').addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`)).addColumn('v', 'integer', (c) => c.notNull()).execute();
  await sql`insert into patient_list_version (id, v) values (1, 1)`.execute(db);
  for (const table of ['dashboard_version', 'exam_records_version']) {
    await db.schema.createTable(table).addColumn('slot', 'integer', (c) => c.primaryKey()).addColumn('n', 'bigint', (c) => c.notNull()).execute();
    await db.insertInto(table).values(Array.from({ length: pg ? PG_SLOTS : 1 }, (_, slot) => ({ slot, n: 0 }))).execute();
  }
  const bumpList = 'update patient_list_version set v = v + 1 where id = 1;';
  if (pg) {
    await sql`drop function table_version_bump()`.execute(db);
    await sql`drop trigger patients_list_upkeep_update on patients`.execute(db);
    await sql.raw(`create or replace function patients_list_upkeep() returns trigger language plpgsql as $$
      begin
        ${bumpList}
        if tg_op = 'DELETE' then
          if old.activo_desde is not null then update patient_active_counts set n = n - 1 where mes = substr(old.activo_desde, 1, 7); end if;
        elsif tg_op = 'INSERT' then
          if new.activo_desde is not null then insert into patient_active_counts (mes, n) values (substr(new.activo_desde, 1, 7), 1)
            on conflict (mes) do update set n = patient_active_counts.n + 1; end if;
        elsif old.activo_desde is distinct from new.activo_desde then
          if old.activo_desde is not null then update patient_active_counts set n = n - 1 where mes = substr(old.activo_desde, 1, 7); end if;
          if new.activo_desde is not null then insert into patient_active_counts (mes, n) values (substr(new.activo_desde, 1, 7), 1)
            on conflict (mes) do update set n = patient_active_counts.n + 1; end if;
        end if;
        return null;
      end $$`).execute(db);
    await sql`create trigger patients_list_upkeep_update after update on patients for each row when (
      old.activo_desde is distinct from new.activo_desde or old.search_text is distinct from new.search_text
      or old.apellido_norm is distinct from new.apellido_norm or old.nombre_norm is distinct from new.nombre_norm)
      execute function patients_list_upkeep()`.execute(db);
    for (const [name, counter] of [['dashboard_version_bump', 'dashboard_version'], ['exam_records_version_bump', 'exam_records_version']]) {
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin
        update ${counter} set n = n + 1 where slot = pg_backend_pid() % ${PG_SLOTS}; return null; end $$`).execute(db);
    }
    for (const [trigger, table, fn] of [
      ['patients_dashboard_version', 'patients', 'dashboard_version_bump'],
      ['ingresos_dashboard_version', 'ingresos', 'dashboard_version_bump'],
      ['exam_records_version', 'exam_records', 'exam_records_version_bump'],
    ]) {
      await sql.raw(`create trigger ${trigger} after insert or update or delete on ${table} for each statement execute function ${fn}()`).execute(db);
    }
  } else {
    await sql.raw(`create trigger patients_list_upkeep_insert after insert on patients begin ${bumpList} end`).execute(db);
    await sql.raw(`create trigger patients_list_upkeep_delete after delete on patients begin ${bumpList} end`).execute(db);
    await sql.raw(`create trigger patients_list_upkeep_update after update on patients when old.activo_desde is not new.activo_desde
      or old.search_text is not new.search_text or old.apellido_norm is not new.apellido_norm or old.nombre_norm is not new.nombre_norm
      begin ${bumpList} end`).execute(db);
    for (const [prefix, table, counter] of [
      ['patients_dashboard_version', 'patients', 'dashboard_version'],
      ['ingresos_dashboard_version', 'ingresos', 'dashboard_version'],
      ['exam_records_version', 'exam_records', 'exam_records_version'],
    ]) {
      for (const op of ['insert', 'update', 'delete']) {
        await sql.raw(`create trigger ${prefix}_${op} after ${op} on ${table} begin update ${counter} set n = n + 1; end`).execute(db);
      }
    }
  }
}
