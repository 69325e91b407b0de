import { sql, type Kysely } from 'kysely';
import { idColumn, isPostgres } from './util.js';

// RIPS settings an administrator keeps (issue 27, decisions 0091, 0092): the provider's NIT and REPS site code and
// the defaults of the service fields (one row), each insurer's name and code, and the service catalogue: each exam
// kind and subtype's RIPS block, CUPS code and REPS service code, valid from a date, so that a new CUPS edition is
// a new row and never rewrites the months already reported. Seeded with the codes gathered for the sleep program.

const CATALOGUE: [servicio: string, bloque: string, cups: string, codServicio: number][] = [
  ['MONITOREO:POLISOMNOGRAFIA', 'procedimientos', '891704', 331],
  ['MONITOREO:TITULACION_CPAP', 'procedimientos', '891703', 331],
  ['MONITOREO:POLIGRAFIA', 'procedimientos', '891805', 331],
  ['MONITOREO:DESCARGA_CPAP', 'procedimientos', '891804', 331],
  ['MONITOREO:OXIMETRIA', 'procedimientos', '893812', 331],
  ['PSICOLOGIA:EVALUACION_INICIAL', 'consultas', '890208', 344],
  ['PSICOLOGIA:SEGUIMIENTO', 'consultas', '890308', 344],
  ['PSICOLOGIA:CIERRE', 'consultas', '890308', 344],
  ['PSICOLOGIA:TCC_I', 'procedimientos', '943102', 344],
];
export const SEEDED_FROM = '2000-01-01';

export async function up(db: Kysely<any>): Promise<void> {
  const id = idColumn(db);
  // digits only, in each engine's words (SQLite has no regular expressions, PostgreSQL no glob)
  const digits = (column: string) => sql.raw(isPostgres(db) ? `${column} !~ '[^0-9]'` : `${column} not glob '*[^0-9]*'`);
  await sql`create table rips_settings (
    id integer primary key check (id = 1),
    nit text not null default '' check (nit = '' or (length(nit) between 5 and 20 and ${digits('nit')})),
    codigo_prestador text not null default '' check (codigo_prestador = '' or (length(codigo_prestador) = 12 and ${digits('codigo_prestador')})),
    modalidad_grupo_servicio text not null default '01',
    grupo_servicios text not null default '01',
    finalidad_tecnologia_salud text not null default '15',
    causa_motivo_atencion text not null default '38',
    via_ingreso_servicio_salud text not null default '02',
    diagnostico_aos text not null default 'G473',
    diagnostico_insomnio text not null default 'G470',
    updated_at text
  )`.execute(db);
  await sql`insert into rips_settings (id) values (1)`.execute(db);
  await sql`create table rips_entidades (
    entidad_salud text primary key,
    nombre text not null,
    codigo text not null default ''
  )`.execute(db);
  await sql`insert into rips_entidades (entidad_salud, nombre) values ('ENTITY_A', 'ENTITY_A'), ('ENTITY_B', 'ENTITY_B')`.execute(db);
  await db.schema
    .createTable('rips_catalogue')
    .addColumn('id', id.type, id.build)
    .addColumn('servicio', 'text', (c) => c.notNull())
    .addColumn('vigente_desde', 'text', (c) => c.notNull().check(sql`length(vigente_desde) = 10`))
    .addColumn('bloque', 'text', (c) => c.notNull().check(sql`bloque = 'consultas' or bloque = 'procedimientos'`))
    .addColumn('cups', 'text', (c) => c.notNull().check(sql`length(cups) between 4 and 8`))
    .addColumn('cod_servicio', 'integer', (c) => c.notNull().check(sql`cod_servicio between 1 and 9999`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addUniqueConstraint('rips_catalogue_servicio_desde_key', ['servicio', 'vigente_desde'])
    .execute();
  for (const [servicio, bloque, cups, codServicio] of CATALOGUE) {
    await sql`insert into rips_catalogue (servicio, vigente_desde, bloque, cups, cod_servicio, created_at)
      values (${servicio}, ${SEEDED_FROM}, ${bloque}, ${cups}, ${codServicio}, ${'2026-11-27T00:00:00.000Z'})`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table rips_catalogue`.execute(db);
  await sql`drop table rips_entidades`.execute(db);
  await sql`drop table rips_settings`.execute(db);
}
