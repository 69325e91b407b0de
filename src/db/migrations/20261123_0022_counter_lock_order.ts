import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// PostgreSQL only (SQLite has one writer at a time). The trigger of migration 0020 adjusted
// patient_active_counts first and bumped patient_list_version last. A transaction that had already bumped the
// version (creating a patient, then opening its Ingreso; editing names, then moving the start) could then wait
// for a month's count held by another transaction that was itself waiting for the version: a deadlock, and one of
// the two requests failed. Bumping the version first makes it the one lock every such transaction takes before any
// count, so they queue instead. The counts and the version stay exactly as before.
const upkeep = (bumpFirst: boolean) => {
  const bump = 'update patient_list_version set v = v + 1 where id = 1;';
  const increment = (ref: string) => `insert into patient_active_counts (mes, n) values (substr(${ref}.activo_desde, 1, 7), 1)
      on conflict (mes) do update set n = patient_active_counts.n + 1;`;
  const decrement = (ref: string) => `update patient_active_counts set n = n - 1 where mes = substr(${ref}.activo_desde, 1, 7);`;
  return sql.raw(`create or replace function patients_list_upkeep() returns trigger language plpgsql as $$
      begin
        ${bumpFirst ? bump : ''}
        -- nested: NEW is not assigned in a DELETE trigger, nor OLD in an INSERT one.
        if tg_op = 'DELETE' then
          if old.activo_desde is not null then ${decrement('old')} end if;
        elsif tg_op = 'INSERT' then
          if new.activo_desde is not null then ${increment('new')} end if;
        elsif old.activo_desde is distinct from new.activo_desde then
          if old.activo_desde is not null then ${decrement('old')} end if;
          if new.activo_desde is not null then ${increment('new')} end if;
        end if;
        ${bumpFirst ? '' : bump}
        return null;
      end $$`);
};

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await upkeep(true).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await upkeep(false).execute(db);
}
