import { sql, type Kysely } from 'kysely';
import { idColumn, isPostgres } from './util.js';

// The program's agenda (issue 28; decisions 0100-0102). What a cycle should see happen, and when:
//
// - agenda_tipos: the kinds of visit, each tied to the exam kind (and its tipo) that records it when attended, with
//   its usual length and what the patient brings.
// - agenda_planes / agenda_plan_visitas: the visit plan of each program, in editions (an edition is in force from
//   its `vigente_desde`; a cycle follows the edition in force on the day it started). A line: a kind, the day after
//   the cycle's start its first visit is due, how many, and the days between them.
// - agenda_recursos: rooms and devices a visit may hold.
// - agenda_ajustes: the clinic's settings (one row): its hours and its address, for bookings and reminders.
// - citas: the visits, from due (PENDIENTE) to booked (AGENDADA), attended (ATENDIDA), missed (NO_ASISTIO),
//   cancelled (CANCELADA) or paused with their cycle (PAUSADA). A booked visit's span is kept as whole minutes
//   (`inicio_min`, `fin_min`: minutes since 1970-01-01 of the clinic's local time), so that the database itself can
//   refuse two overlapping visits of one professional or one resource: an exclusion constraint on PostgreSQL
//   (btree_gist), a trigger on SQLite (whose writes take turns).
// - cita_historial: every change of a visit (its estado, and its booking), with who and when.
//
// Migrations never import application code: the codes are written here as in agenda.rules.ts.

const BOOKED = `(estado = 'AGENDADA' or estado = 'ATENDIDA')`;

/**
 * The trigger on INSERT this migration makes, for the benchmark's loader (bench/load-triggers.ts): SQLite's overlap
 * guard, which only refuses (PostgreSQL's guard is an exclusion constraint, not a trigger, and holds on every load).
 */
export const INSERT_TRIGGERS = [{ table: 'citas', name: (engine: 'sqlite' | 'postgres') => (engine === 'sqlite' ? 'citas_sin_solape_insert' : null), effect: 'guard' }] as const;
/** The longest visit (minutes): also bounds the search for an overlap. */
const MAX_MIN = 480;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const id = idColumn(db);

  await db.schema
    .createTable('agenda_tipos')
    .addColumn('codigo', 'text', (c) => c.primaryKey())
    .addColumn('nombre', 'text', (c) => c.notNull())
    .addColumn('examen', 'text', (c) => c.notNull().check(sql`examen = 'MONITOREO' or examen = 'PSICOLOGIA' or examen = 'OTRO'`))
    .addColumn('examen_tipo', 'text')
    .addColumn('duracion_min', 'integer', (c) => c.notNull().check(sql`duracion_min > 0 and duracion_min <= ${sql.lit(MAX_MIN)}`))
    .addColumn('indicaciones', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('orden', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('agenda_planes')
    .addColumn('id', id.type, id.build)
    .addColumn('programa', 'text', (c) => c.notNull().check(sql`programa = 'PROGRAMA AOS' or programa = 'PROGRAMA INSOMNIO'`))
    .addColumn('vigente_desde', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id'))
    .addUniqueConstraint('agenda_planes_programa_vigente_key', ['programa', 'vigente_desde'])
    .execute();

  await db.schema
    .createTable('agenda_plan_visitas')
    .addColumn('id', id.type, id.build)
    .addColumn('plan_id', 'integer', (c) => c.notNull().references('agenda_planes.id').onDelete('cascade'))
    .addColumn('tipo', 'text', (c) => c.notNull().references('agenda_tipos.codigo'))
    .addColumn('dia', 'integer', (c) => c.notNull().check(sql`dia >= 0 and dia <= 3660`))
    .addColumn('repeticiones', 'integer', (c) => c.notNull().check(sql`repeticiones >= 1 and repeticiones <= 52`))
    .addColumn('intervalo_dias', 'integer', (c) => c.notNull().defaultTo(0).check(sql`intervalo_dias >= 0 and intervalo_dias <= 366`))
    .execute();
  await db.schema.createIndex('agenda_plan_visitas_plan_idx').on('agenda_plan_visitas').column('plan_id').execute();

  await db.schema
    .createTable('agenda_recursos')
    .addColumn('id', id.type, id.build)
    .addColumn('nombre', 'text', (c) => c.notNull().unique())
    .addColumn('clase', 'text', (c) => c.notNull().check(sql`clase = 'SALA' or clase = 'POLIGRAFO' or clase = 'CPAP'`))
    .addColumn('activo', 'integer', (c) => c.notNull().defaultTo(1).check(sql`activo = 0 or activo = 1`))
    .execute();

  await db.schema
    .createTable('agenda_ajustes')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('hora_apertura', 'text', (c) => c.notNull())
    .addColumn('hora_cierre', 'text', (c) => c.notNull())
    .addColumn('lugar', 'text', (c) => c.notNull())
    .addCheckConstraint('agenda_ajustes_horario', sql`hora_apertura < hora_cierre`)
    .execute();

  await db.schema
    .createTable('citas')
    .addColumn('id', id.type, id.build)
    .addColumn('paciente_id', 'integer', (c) => c.notNull().references('patients.id').onDelete('cascade'))
    .addColumn('ingreso_id', 'integer', (c) => c.notNull().references('ingresos.id').onDelete('cascade'))
    .addColumn('tipo', 'text', (c) => c.notNull().references('agenda_tipos.codigo'))
    .addColumn('estado', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`estado = 'PENDIENTE' or estado = 'AGENDADA' or estado = 'ATENDIDA' or estado = 'NO_ASISTIO' or estado = 'CANCELADA' or estado = 'PAUSADA'`,
        ),
    )
    .addColumn('plan_visita_id', 'integer', (c) => c.references('agenda_plan_visitas.id'))
    .addColumn('vence_el', 'text')
    .addColumn('fecha', 'text')
    .addColumn('hora', 'text')
    .addColumn('duracion_min', 'integer', (c) => c.check(sql`duracion_min > 0 and duracion_min <= ${sql.lit(MAX_MIN)}`))
    .addColumn('inicio_min', 'integer')
    .addColumn('fin_min', 'integer')
    .addColumn('profesional_id', 'integer', (c) => c.references('users.id'))
    .addColumn('recurso_id', 'integer', (c) => c.references('agenda_recursos.id'))
    .addColumn('exam_record_id', 'integer', (c) => c.references('exam_records.id'))
    .addColumn('motivo', 'text')
    .addColumn('recordado_at', 'text')
    .addColumn('recordado_por', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // A booked, attended or missed visit has its whole booking; a due one has its due date or was unplanned.
    .addCheckConstraint(
      'citas_reserva_completa',
      sql`(estado = 'PENDIENTE' or estado = 'PAUSADA' or estado = 'CANCELADA') or (fecha is not null and hora is not null and duracion_min is not null and inicio_min is not null and fin_min = inicio_min + duracion_min and profesional_id is not null)`,
    )
    .execute();
  await db.schema.createIndex('citas_ingreso_idx').on('citas').columns(['ingreso_id', 'estado']).execute();
  await db.schema.createIndex('citas_paciente_idx').on('citas').columns(['paciente_id', 'estado']).execute();
  await db.schema.createIndex('citas_fecha_idx').on('citas').columns(['fecha', 'hora']).execute();
  await db.schema.createIndex('citas_estado_vence_idx').on('citas').columns(['estado', 'vence_el']).execute();
  await db.schema.createIndex('citas_profesional_idx').on('citas').columns(['profesional_id', 'inicio_min']).execute();
  await db.schema.createIndex('citas_recurso_idx').on('citas').columns(['recurso_id', 'inicio_min']).execute();
  await db.schema.createIndex('citas_exam_record_idx').on('citas').column('exam_record_id').execute();

  await db.schema
    .createTable('cita_historial')
    .addColumn('id', id.type, id.build)
    .addColumn('cita_id', 'integer', (c) => c.notNull().references('citas.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id'))
    .addColumn('desde', 'text')
    .addColumn('hacia', 'text', (c) => c.notNull())
    .addColumn('detalle', 'text')
    .execute();
  await db.schema.createIndex('cita_historial_cita_idx').on('cita_historial').column('cita_id').execute();

  // No double booking, by the database.
  if (pg) {
    await sql`create extension if not exists btree_gist`.execute(db);
    await sql`alter table citas add constraint citas_sin_solape_profesional
      exclude using gist (profesional_id with =, int4range(inicio_min, fin_min) with &&) where ${sql.raw(BOOKED)}`.execute(db);
    await sql`alter table citas add constraint citas_sin_solape_recurso
      exclude using gist (recurso_id with =, int4range(inicio_min, fin_min) with &&) where (recurso_id is not null and ${sql.raw(BOOKED)})`.execute(db);
  } else {
    const clash = (column: string, self: string) => `exists (select 1 from citas c where c.${column} = new.${column}
        and (c.estado = 'AGENDADA' or c.estado = 'ATENDIDA') ${self}
        and c.inicio_min > new.inicio_min - ${MAX_MIN} and c.inicio_min < new.fin_min and c.fin_min > new.inicio_min)`;
    const body = (self: string) => `begin
        select raise(abort, 'cita_solapada: profesional') where ${clash('profesional_id', self)};
        select raise(abort, 'cita_solapada: recurso') where new.recurso_id is not null and ${clash('recurso_id', self)};
      end`;
    await sql`create trigger citas_sin_solape_insert before insert on citas
      when new.estado = 'AGENDADA' or new.estado = 'ATENDIDA' ${sql.raw(body(''))}`.execute(db);
    await sql`create trigger citas_sin_solape_update before update of estado, inicio_min, fin_min, profesional_id, recurso_id on citas
      when new.estado = 'AGENDADA' or new.estado = 'ATENDIDA' ${sql.raw(body('and c.id <> new.id'))}`.execute(db);
  }

  // The seed: sensible plans an administrator adjusts by publishing a new edition (decision 0101).
  await db.insertInto('agenda_ajustes').values({ id: 1, hora_apertura: '07:00', hora_cierre: '19:00', lugar: 'Clínica del sueño Somno' }).execute();
  const tipos = [
    ['CONSULTA_INGRESO', 'Consulta médica de ingreso', 'OTRO', null, 30, 'Documento de identidad, orden médica y exámenes previos.'],
    ['PSG_BASAL', 'Polisomnografía basal', 'MONITOREO', 'POLISOMNOGRAFIA', 60, 'Documento de identidad, ropa cómoda para dormir y medicamentos habituales; no tomar café ni alcohol ese día.'],
    ['TITULACION_CPAP', 'Titulación de CPAP', 'MONITOREO', 'TITULACION_CPAP', 60, 'Documento de identidad, ropa cómoda para dormir y medicamentos habituales.'],
    ['CONTROL_CPAP', 'Control de CPAP', 'MONITOREO', 'DESCARGA_CPAP', 30, 'El equipo CPAP con su tarjeta de memoria, la máscara y el documento de identidad.'],
    ['PSG_CONTROL', 'Polisomnografía de control', 'MONITOREO', 'POLISOMNOGRAFIA', 60, 'Documento de identidad, ropa cómoda para dormir y el equipo CPAP.'],
    ['EVALUACION_PSICOLOGIA', 'Evaluación inicial de psicología', 'PSICOLOGIA', 'EVALUACION_INICIAL', 60, 'Documento de identidad y el diario de sueño de las últimas dos semanas.'],
    ['SESION_TCC_I', 'Sesión de TCC-I', 'PSICOLOGIA', 'TCC_I', 45, 'El diario de sueño de la última semana.'],
    ['CIERRE_PSICOLOGIA', 'Cierre de psicología', 'PSICOLOGIA', 'CIERRE', 45, 'El diario de sueño de la última semana.'],
    ['CONSULTA_CONTROL', 'Consulta médica de control', 'OTRO', null, 30, 'Documento de identidad y los resultados de sus exámenes.'],
  ] as const;
  await db
    .insertInto('agenda_tipos')
    .values(tipos.map(([codigo, nombre, examen, examen_tipo, duracion_min, indicaciones], orden) => ({ codigo, nombre, examen, examen_tipo, duracion_min, indicaciones, orden })))
    .execute();
  await db
    .insertInto('agenda_recursos')
    .values([
      { nombre: 'Consultorio 1', clase: 'SALA', activo: 1 },
      { nombre: 'Consultorio 2', clase: 'SALA', activo: 1 },
      { nombre: 'Sala de polisomnografía', clase: 'SALA', activo: 1 },
      { nombre: 'Polígrafo 1', clase: 'POLIGRAFO', activo: 1 },
      { nombre: 'CPAP de préstamo 1', clase: 'CPAP', activo: 1 },
    ])
    .execute();
  const plans: Record<string, [string, number, number, number][]> = {
    'PROGRAMA AOS': [
      ['CONSULTA_INGRESO', 0, 1, 0],
      ['PSG_BASAL', 14, 1, 0],
      ['CONTROL_CPAP', 60, 10, 30],
      ['CONSULTA_CONTROL', 180, 1, 0],
      ['PSG_CONTROL', 330, 1, 0],
    ],
    'PROGRAMA INSOMNIO': [
      ['CONSULTA_INGRESO', 0, 1, 0],
      ['EVALUACION_PSICOLOGIA', 7, 1, 0],
      ['SESION_TCC_I', 21, 8, 14],
      ['CIERRE_PSICOLOGIA', 140, 1, 0],
      ['CONSULTA_CONTROL', 180, 1, 0],
    ],
  };
  for (const [programa, lines] of Object.entries(plans)) {
    const plan = await db
      .insertInto('agenda_planes')
      .values({ programa, vigente_desde: '2000-01-01', created_at: '2026-11-27T00:00:00.000Z', created_by: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('agenda_plan_visitas')
      .values(lines.map(([tipo, dia, repeticiones, intervalo_dias]) => ({ plan_id: plan.id, tipo, dia, repeticiones, intervalo_dias })))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) {
    await sql`drop trigger if exists citas_sin_solape_insert`.execute(db);
    await sql`drop trigger if exists citas_sin_solape_update`.execute(db);
  }
  for (const table of ['cita_historial', 'citas', 'agenda_ajustes', 'agenda_recursos', 'agenda_plan_visitas', 'agenda_planes', 'agenda_tipos']) {
    await db.schema.dropTable(table).execute();
  }
}
