import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

export type CitaEstado = 'PENDIENTE' | 'AGENDADA' | 'ATENDIDA' | 'NO_ASISTIO' | 'CANCELADA' | 'PAUSADA';

/** A kind of visit, tied to the exam kind (and tipo) that records it when attended. */
export interface AgendaTiposTable {
  codigo: string;
  nombre: string;
  examen: 'MONITOREO' | 'PSICOLOGIA' | 'OTRO';
  examen_tipo: string | null;
  duracion_min: number;
  /** What the patient brings (the reminder says it). */
  indicaciones: Generated<string>;
  orden: Generated<number>;
}

/** An edition of a program's visit plan, in force from `vigente_desde`. */
export interface AgendaPlanesTable {
  id: Generated<number>;
  programa: 'PROGRAMA AOS' | 'PROGRAMA INSOMNIO';
  vigente_desde: string;
  created_at: string;
  created_by: number | null;
}

/** A line of a plan: `repeticiones` visits of `tipo`, the first `dia` days after the cycle's start, `intervalo_dias` apart. */
export interface AgendaPlanVisitasTable {
  id: Generated<number>;
  plan_id: number;
  tipo: string;
  dia: number;
  repeticiones: number;
  intervalo_dias: Generated<number>;
}

export interface AgendaRecursosTable {
  id: Generated<number>;
  nombre: string;
  clase: 'SALA' | 'POLIGRAFO' | 'CPAP';
  activo: Generated<number>;
}

/** The clinic's agenda settings: one row (id 1). */
export interface AgendaAjustesTable {
  id: number;
  /** 'HH:MM' */
  hora_apertura: string;
  hora_cierre: string;
  lugar: string;
}

export interface CitasTable {
  id: Generated<number>;
  paciente_id: number;
  ingreso_id: number;
  tipo: string;
  estado: CitaEstado;
  plan_visita_id: number | null;
  /** The day it is due (planned visits); null for an unplanned one. */
  vence_el: string | null;
  /** The booking (null while due): 'YYYY-MM-DD', 'HH:MM', minutes. */
  fecha: string | null;
  hora: string | null;
  duracion_min: number | null;
  /** The booked span in minutes since 1970-01-01 of the clinic's local time (the overlap guard reads them). */
  inicio_min: number | null;
  fin_min: number | null;
  profesional_id: number | null;
  recurso_id: number | null;
  exam_record_id: number | null;
  /** Why it was cancelled. */
  motivo: string | null;
  recordado_at: string | null;
  recordado_por: number | null;
  created_at: string;
  updated_at: string;
}

/** Every change of a visit: its estado (`desde` null when it was created) and what changed, as JSON in `detalle`. */
export interface CitaHistorialTable {
  id: Generated<number>;
  cita_id: number;
  at: string;
  user_id: number | null;
  desde: CitaEstado | null;
  hacia: CitaEstado;
  detalle: string | null;
}

export type Canal = 'TELEFONO' | 'SMS' | 'WHATSAPP' | 'EMAIL';

/** A patient's consent to be contacted by one channel (Ley 1581 de 2012): given on a date, withdrawable, never deleted. */
export interface ContactoConsentimientosTable {
  id: Generated<number>;
  paciente_id: number;
  canal: Canal;
  otorgado_el: string;
  retirado_el: string | null;
  registrado_por: number | null;
  created_at: string;
  updated_at: string;
}

/** A professional's calendar feed: the secret token's SHA-256, revocable. */
export interface AgendaFeedsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: string;
  revocado_at: string | null;
}

/** Written only by the database's triggers (migration 0540): read, never inserted or updated by the application. */
type Kept<T> = { [K in keyof T]: ColumnType<T[K], never, never> };

/**
 * The no-shows still to re-book (decision 0260): a NO_ASISTIO visit of an ACTIVO cycle with no other visit of its
 * cycle and kind booked or attended on its day or later, one row each, kept by triggers on citas and ingresos.
 */
export type AgendaPorReagendarTable = Kept<{ cita_id: number; ingreso_id: number; tipo: string; fecha: string }>;

/**
 * The ACTIVO cycles of the AOS program's patients, each with its latest CPAP download not voided (null without one),
 * kept by triggers on ingresos, patients and exam_records (decision 0260).
 */
export type AgendaCpapCiclosTable = Kept<{
  ingreso_id: number;
  fecha_inicio: string;
  ultima_descarga: string | null;
  horas_uso_promedio: number | null;
  porcentaje_noches_4h: number | null;
}>;

export interface AgendaTables {
  contacto_consentimientos: ContactoConsentimientosTable;
  agenda_feeds: AgendaFeedsTable;
  agenda_tipos: AgendaTiposTable;
  agenda_planes: AgendaPlanesTable;
  agenda_plan_visitas: AgendaPlanVisitasTable;
  agenda_recursos: AgendaRecursosTable;
  agenda_ajustes: AgendaAjustesTable;
  citas: CitasTable;
  cita_historial: CitaHistorialTable;
  agenda_por_reagendar: AgendaPorReagendarTable;
  agenda_cpap_ciclos: AgendaCpapCiclosTable;
}

/** The registry's lines of these tables (src/platform/tables.ts). The agenda's pages are not kept (decision 0100). */
export const AGENDA_TABLE_ENTRIES = {
  agenda_tipos: { versioned: true },
  agenda_planes: { versioned: true },
  agenda_plan_visitas: { versioned: true },
  agenda_recursos: { versioned: true },
  agenda_ajustes: { versioned: true },
  citas: { versioned: true, patient: { column: 'paciente_id' } },
  cita_historial: {},
  contacto_consentimientos: { versioned: true, patient: { column: 'paciente_id' } },
  agenda_feeds: {},
  // The worklists' candidates (decision 0260): kept by triggers in the statements that change these tables.
  agenda_por_reagendar: { derivedFrom: ['citas', 'ingresos'] },
  agenda_cpap_ciclos: { derivedFrom: ['ingresos', 'patients', 'exam_records'] },
} as const satisfies TableEntries<keyof AgendaTables>;

export type CitaRow = Selectable<CitasTable>;
export type NewCitaRow = Insertable<CitasTable>;
