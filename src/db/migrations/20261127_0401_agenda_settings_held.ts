import { sql, type Kysely } from 'kysely';
import { isPostgres } from './util.js';

// What the agenda's administration pages check (issue 28, decision 0140), held by the database too, so that no
// write, from any instance or straight in the database, leaves the clinic's hours unreadable or a resource
// nameless: the hours are 'HH:MM' of a day, the place and a resource's name are not blank, and a plan line that
// repeats has days between its visits. SQLite cannot add a check to a table: its triggers refuse the same.
const HHMM_PG = `'^([01][0-9]|2[0-3]):[0-5][0-9]$'`;
const hhmmSqlite = (column: string) => `(new.${column} glob '[01][0-9]:[0-5][0-9]' or new.${column} glob '2[0-3]:[0-5][0-9]')`;

const RULES = [
  {
    table: 'agenda_ajustes',
    name: 'agenda_ajustes_valores',
    pg: `hora_apertura ~ ${HHMM_PG} and hora_cierre ~ ${HHMM_PG} and length(trim(lugar)) > 0`,
    sqlite: `not (${hhmmSqlite('hora_apertura')} and ${hhmmSqlite('hora_cierre')} and length(trim(new.lugar)) > 0)`,
  },
  { table: 'agenda_recursos', name: 'agenda_recursos_nombre', pg: `length(trim(nombre)) > 0`, sqlite: `length(trim(new.nombre)) = 0` },
  { table: 'agenda_plan_visitas', name: 'agenda_plan_visitas_intervalo', pg: `repeticiones = 1 or intervalo_dias > 0`, sqlite: `new.repeticiones > 1 and new.intervalo_dias = 0` },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const r of RULES) {
    if (isPostgres(db)) {
      await sql`alter table ${sql.table(r.table)} add constraint ${sql.ref(r.name)} check (${sql.raw(r.pg)})`.execute(db);
    } else {
      for (const when of ['insert', 'update'] as const) {
        await sql`create trigger ${sql.ref(`${r.name}_${when}`)} before ${sql.raw(when)} on ${sql.table(r.table)}
          when ${sql.raw(r.sqlite)} begin select raise(abort, ${sql.lit(`${r.name}: valor no permitido`)}); end`.execute(db);
      }
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const r of RULES) {
    if (isPostgres(db)) await sql`alter table ${sql.table(r.table)} drop constraint ${sql.ref(r.name)}`.execute(db);
    else for (const when of ['insert', 'update']) await sql`drop trigger if exists ${sql.ref(`${r.name}_${when}`)}`.execute(db);
  }
}
