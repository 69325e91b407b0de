import { sql, type Kysely } from 'kysely';
import { idColumn, isPostgres } from './util.js';

// Exam records (decisions §7): monitoring, psychology sessions and other exams, each linked to one Ingreso.
//
// ONE table for the three kinds, with a `kind` column and nullable per-kind columns, rather than three tables:
// the clinical view shows all kinds together "newest first (descending id)", and only a shared id sequence
// makes that order well defined (three tables would each count their own ids). A CHECK per kind keeps each
// row's shape exact: the columns of its kind present where required, those of the other kinds null.
//
// Decimal values are integer hundredths (iah 12,5 → 1250); integer scores are integers; dates 'YYYY-MM-DD';
// timestamps ISO text. Records are never deleted, and never edited: the only change allowed is voiding a
// record once (anulado_at, anulado_por and motivo_anulacion set together). A record can only be added to an
// ACTIVO Ingreso. Triggers on both engines enforce all three.

const MONITOREO_COLUMNS = ['tipo', 'iah', 'saturacion_minima', 'horas_uso_promedio', 'porcentaje_noches_4h', 'presion_cmh2o', 'fuga_lpm'];
const PSICOLOGIA_COLUMNS = ['tipo_sesion', 'numero_sesion', 'isi', 'epworth'];
const OTRO_COLUMNS = ['nombre_examen', 'resultado'];
/** Every column a void must leave unchanged. */
const CONTENT_COLUMNS = ['id', 'ingreso_id', 'kind', 'fecha', 'registrado_por', 'created_at', 'observaciones', ...MONITOREO_COLUMNS, ...PSICOLOGIA_COLUMNS, ...OTRO_COLUMNS];

const allNull = (cols: string[]) => cols.map((c) => `${c} is null`).join(' and ');

/** The guard on insert (records only on an ACTIVO Ingreso), named for the benchmark's loader (bench/load-triggers.ts). */
const INSERT_GUARD = 'exam_records_insert_activo';
export const INSERT_TRIGGERS = [{ table: 'exam_records', name: () => INSERT_GUARD, effect: 'guard' }] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const id = idColumn(db);

  await db.schema
    .createTable('exam_records')
    .addColumn('id', id.type, id.build)
    .addColumn('ingreso_id', 'integer', (c) => c.notNull().references('ingresos.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('MONITOREO','PSICOLOGIA','OTRO')`))
    .addColumn('fecha', 'text', (c) => c.notNull().check(sql`length(fecha) = 10`))
    .addColumn('registrado_por', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('observaciones', 'text', (c) => c.check(sql`length(observaciones) <= 2000`))
    // Monitoreo (hundredths, except tipo).
    .addColumn('tipo', 'text', (c) =>
      c.check(sql`tipo in ('POLISOMNOGRAFIA','POLIGRAFIA','TITULACION_CPAP','DESCARGA_CPAP','OXIMETRIA')`),
    )
    .addColumn('iah', 'integer', (c) => c.check(sql`iah between 0 and 20000`))
    .addColumn('saturacion_minima', 'integer', (c) => c.check(sql`saturacion_minima between 0 and 10000`))
    .addColumn('horas_uso_promedio', 'integer', (c) => c.check(sql`horas_uso_promedio between 0 and 2400`))
    .addColumn('porcentaje_noches_4h', 'integer', (c) => c.check(sql`porcentaje_noches_4h between 0 and 10000`))
    .addColumn('presion_cmh2o', 'integer', (c) => c.check(sql`presion_cmh2o between 0 and 3000`))
    .addColumn('fuga_lpm', 'integer', (c) => c.check(sql`fuga_lpm between 0 and 20000`))
    // Psicologia (whole numbers).
    .addColumn('tipo_sesion', 'text', (c) =>
      c.check(sql`tipo_sesion in ('EVALUACION_INICIAL','TCC_I','SEGUIMIENTO','CIERRE')`),
    )
    .addColumn('numero_sesion', 'integer', (c) => c.check(sql`numero_sesion between 1 and 50`))
    .addColumn('isi', 'integer', (c) => c.check(sql`isi between 0 and 28`))
    .addColumn('epworth', 'integer', (c) => c.check(sql`epworth between 0 and 24`))
    // Otros.
    .addColumn('nombre_examen', 'text', (c) => c.check(sql`length(nombre_examen) between 1 and 200`))
    .addColumn('resultado', 'text', (c) => c.check(sql`length(resultado) <= 2000`))
    // Voiding: hidden from the clinical view, kept in the cycle's history.
    .addColumn('anulado_at', 'text')
    .addColumn('anulado_por', 'integer', (c) => c.references('users.id'))
    .addColumn('motivo_anulacion', 'text', (c) => c.check(sql`length(motivo_anulacion) between 1 and 2000`))
    .addCheckConstraint(
      'exam_records_kind_shape',
      sql.raw(
        `(kind = 'MONITOREO' and tipo is not null and ${allNull([...PSICOLOGIA_COLUMNS, ...OTRO_COLUMNS])})` +
          ` or (kind = 'PSICOLOGIA' and tipo_sesion is not null and ${allNull([...MONITOREO_COLUMNS, ...OTRO_COLUMNS])})` +
          ` or (kind = 'OTRO' and nombre_examen is not null and ${allNull([...MONITOREO_COLUMNS, ...PSICOLOGIA_COLUMNS])})`,
      ),
    )
    .addCheckConstraint(
      'exam_records_void_together',
      sql`(anulado_at is null and anulado_por is null and motivo_anulacion is null)
        or (anulado_at is not null and anulado_por is not null and motivo_anulacion is not null)`,
    )
    .execute();

  // The clinical view and the archive view: one cycle's records by descending id.
  await db.schema.createIndex('exam_records_ingreso_idx').on('exam_records').columns(['ingreso_id', 'id']).execute();
  // Trends (one kind of a cycle by date) and the dashboard's "no monitoring record in the last 90 days".
  await db.schema
    .createIndex('exam_records_ingreso_kind_fecha_idx')
    .on('exam_records')
    .columns(['ingreso_id', 'kind', 'fecha'])
    .execute();

  const voidChangesContent = CONTENT_COLUMNS.map((c) => `new.${c} is not old.${c}`).join(' or ');
  if (isPostgres(db)) {
    await sql`create function exam_records_guard_insert() returns trigger language plpgsql as $$
      begin
        if not exists (select 1 from ingresos where id = new.ingreso_id and estado = 'ACTIVO') then
          raise exception 'exam_records: the Ingreso is not ACTIVO';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger ${sql.raw(INSERT_GUARD)} before insert on exam_records
      for each row execute function exam_records_guard_insert()`.execute(db);
    await sql`create function exam_records_guard_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then raise exception 'exam_records: records are never deleted'; end if;
        if old.anulado_at is not null or new.anulado_at is null
          or (to_jsonb(new) - 'anulado_at' - 'anulado_por' - 'motivo_anulacion')
             <> (to_jsonb(old) - 'anulado_at' - 'anulado_por' - 'motivo_anulacion') then
          raise exception 'exam_records: the only change allowed is voiding a record once';
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger exam_records_no_change before update or delete on exam_records
      for each row execute function exam_records_guard_change()`.execute(db);
  } else {
    await sql`create trigger ${sql.raw(INSERT_GUARD)} before insert on exam_records
      when not exists (select 1 from ingresos where id = new.ingreso_id and estado = 'ACTIVO')
      begin select raise(abort, 'exam_records: the Ingreso is not ACTIVO'); end`.execute(db);
    await sql`create trigger exam_records_no_delete before delete on exam_records
      begin select raise(abort, 'exam_records: records are never deleted'); end`.execute(db);
    await sql
      .raw(
        `create trigger exam_records_void_only before update on exam_records
      when old.anulado_at is not null or new.anulado_at is null or ${voidChangesContent}
      begin select raise(abort, 'exam_records: the only change allowed is voiding a record once'); end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('exam_records').execute();
  if (isPostgres(db)) {
    await sql`drop function if exists exam_records_guard_insert()`.execute(db);
    await sql`drop function if exists exam_records_guard_change()`.execute(db);
  }
}
