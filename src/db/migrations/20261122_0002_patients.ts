import { sql, type Kysely } from 'kysely';
import { idColumn, isPostgres } from './util.js';

// Patients, their Ingresos (program cycles) and the history of every status change.
export async function up(db: Kysely<any>): Promise<void> {
  const id = idColumn(db);
  const pg = isPostgres(db);

  await db.schema
    .createTable('patients')
    .addColumn('id', id.type, id.build)
    .addColumn('nombre', 'text', (c) => c.notNull().check(sql`length(nombre) between 1 and 100`))
    .addColumn('apellido', 'text', (c) => c.notNull().check(sql`length(apellido) between 1 and 100`))
    .addColumn('tipo_documento', 'text', (c) => c.notNull().check(sql`tipo_documento in ('RC','TI','CC','CE','PA','PE')`))
    .addColumn('documento', 'text', (c) => c.notNull().check(sql`length(documento) between 1 and 20`))
    // Trimmed and upper-cased documento: unique without regard to case, also when two requests race.
    .addColumn('documento_key', 'text', (c) => c.notNull().unique())
    .addColumn('fecha_nacimiento', 'text', (c) => c.notNull())
    .addColumn('genero', 'text', (c) => c.notNull().check(sql`genero in ('M','F','O')`))
    .addColumn('departamento', 'text', (c) => c.notNull())
    .addColumn('ciudad', 'text', (c) => c.notNull())
    .addColumn('zona', 'text', (c) => c.notNull().check(sql`zona in ('URBANA','RURAL')`))
    .addColumn('telefono', 'text', (c) => c.notNull().check(sql`length(telefono) <= 20`))
    .addColumn('celular', 'text', (c) => c.notNull().check(sql`length(celular) <= 20`))
    .addColumn('estado_civil', 'text', (c) =>
      c.notNull().check(sql`estado_civil in ('SOLTERO','CASADO','UNIÓN LIBRE','VIUDO','DIVORCIADO')`),
    )
    .addColumn('entidad_salud', 'text', (c) => c.notNull().check(sql`entidad_salud in ('ENTITY_A','ENTITY_B')`))
    .addColumn('estrato', 'integer', (c) => c.notNull().check(sql`estrato between 1 and 6`))
    // Decimals as integer hundredths: exact on both engines.
    .addColumn('peso', 'integer', (c) => c.check(sql`peso between 0 and 99999`))
    .addColumn('altura', 'integer', (c) => c.check(sql`altura between 0 and 9999`))
    .addColumn('perimetro_abdominal', 'integer', (c) => c.check(sql`perimetro_abdominal between 0 and 99999`))
    .addColumn('cuello', 'integer', (c) => c.check(sql`cuello between 0 and 99999`))
    .addColumn('medico_remitente', 'text', (c) => c.notNull().check(sql`length(medico_remitente) <= 100`))
    .addColumn('especialidad', 'text', (c) => c.notNull().check(sql`length(especialidad) <= 100`))
    .addColumn('diagnostico_clinico', 'text', (c) => c.notNull().check(sql`diagnostico_clinico in ('G47.3')`))
    .addColumn('programa', 'text', (c) => c.notNull().check(sql`programa in ('PROGRAMA AOS','PROGRAMA INSOMNIO')`))
    .addColumn('valor_capita', 'bigint', (c) =>
      c.notNull().defaultTo(25978300).check(sql`valor_capita between 0 and 9999999999`),
    )
    // Accent- and case-free copies kept up to date on write: search and ordering use indexes on them.
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('apellido_norm', 'text', (c) => c.notNull())
    .addColumn('nombre_norm', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('patients_order_idx')
    .on('patients')
    .columns(['apellido_norm', 'nombre_norm', 'id'])
    .execute();

  await db.schema
    .createTable('ingresos')
    .addColumn('id', id.type, id.build)
    .addColumn('paciente_id', 'integer', (c) => c.notNull().references('patients.id'))
    .addColumn('fecha_inicio', 'text', (c) => c.notNull())
    .addColumn('fecha_fin', 'text')
    .addColumn('estado', 'text', (c) =>
      c.notNull().defaultTo('ACTIVO').check(sql`estado in ('ACTIVO','SUSPENDIDO','TERMINADO')`),
    )
    .addColumn('motivo', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // A TERMINADO Ingreso always has its end date and reason.
    .addCheckConstraint(
      'ingresos_terminado_check',
      sql`estado <> 'TERMINADO' or (fecha_fin is not null and motivo is not null)`,
    )
    .execute();
  // At most one open (ACTIVO or SUSPENDIDO) Ingreso per patient, guaranteed by the database itself.
  await db.schema
    .createIndex('ingresos_one_open_per_patient')
    .on('ingresos')
    .column('paciente_id')
    .unique()
    .where(sql.ref('estado'), 'in', ['ACTIVO', 'SUSPENDIDO'])
    .execute();
  await db.schema.createIndex('ingresos_paciente_idx').on('ingresos').columns(['paciente_id', 'id']).execute();
  await db.schema
    .createIndex('ingresos_activo_fecha_idx')
    .on('ingresos')
    .columns(['fecha_inicio', 'paciente_id'])
    .where(sql.ref('estado'), '=', 'ACTIVO')
    .execute();

  await db.schema
    .createTable('ingreso_historial')
    .addColumn('id', id.type, id.build)
    .addColumn('ingreso_id', 'integer', (c) => c.notNull().references('ingresos.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    // Null when the Ingreso was opened.
    .addColumn('desde', 'text')
    .addColumn('hacia', 'text', (c) => c.notNull().check(sql`hacia in ('ACTIVO','SUSPENDIDO','TERMINADO')`))
    .addColumn('motivo', 'text')
    // The date the change took effect (fecha_inicio when opened, fecha_terminacion when ended).
    .addColumn('fecha', 'text')
    .execute();
  await db.schema.createIndex('ingreso_historial_ingreso_idx').on('ingreso_historial').columns(['ingreso_id', 'id']).execute();
  await db.schema.createIndex('ingreso_historial_at_idx').on('ingreso_historial').columns(['at', 'id']).execute();

  // Substring search on the normalised text: trigram indexes on both engines.
  if (pg) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index patients_search_trgm on patients using gin (search_text gin_trgm_ops)`.execute(db);
  } else {
    await sql`create virtual table patients_fts using fts5(search_text, content='patients', content_rowid='id', tokenize='trigram')`.execute(db);
    await sql`create trigger patients_fts_insert after insert on patients begin
      insert into patients_fts(rowid, search_text) values (new.id, new.search_text); end`.execute(db);
    await sql`create trigger patients_fts_delete after delete on patients begin
      insert into patients_fts(patients_fts, rowid, search_text) values ('delete', old.id, old.search_text); end`.execute(db);
    await sql`create trigger patients_fts_update after update of search_text on patients begin
      insert into patients_fts(patients_fts, rowid, search_text) values ('delete', old.id, old.search_text);
      insert into patients_fts(rowid, search_text) values (new.id, new.search_text); end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) await sql`drop table if exists patients_fts`.execute(db);
  await db.schema.dropTable('ingreso_historial').execute();
  await db.schema.dropTable('ingresos').execute();
  await db.schema.dropTable('patients').execute();
}
