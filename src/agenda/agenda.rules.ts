// The agenda's pure rules (issue 28): the plan of a cycle, a booking's span and its checks, the worklists' weeks,
// CPAP adherence and the reminder's text. No SQL, no HTTP.
import { addDays, formatDateEs, splitIsoDate } from '../shared/dates.js';
import type { CitaEstado } from './agenda.table.js';

export const CITA_ESTADOS = [
  { value: 'PENDIENTE', label: 'Pendiente' },
  { value: 'AGENDADA', label: 'Agendada' },
  { value: 'ATENDIDA', label: 'Atendida' },
  { value: 'NO_ASISTIO', label: 'No asistió' },
  { value: 'CANCELADA', label: 'Cancelada' },
  { value: 'PAUSADA', label: 'Pausada' },
] as const satisfies readonly { value: CitaEstado; label: string }[];

export const estadoLabel = (estado: string): string => CITA_ESTADOS.find((e) => e.value === estado)?.label ?? estado;

/** The longest visit, in minutes (8 h); also in the migration's checks. */
export const MAX_DURACION_MIN = 480;

// ---------------------------------------------------------------------------------------------------------
// The plan of a cycle

export interface PlanLine {
  id: number;
  tipo: string;
  dia: number;
  repeticiones: number;
  intervalo_dias: number;
}

export interface PlannedVisit {
  plan_visita_id: number;
  tipo: string;
  vence_el: string;
}

/**
 * How far back a plan reaches when a cycle is registered late (an import, a record typed after the fact): a visit
 * due more than this many days before the day the cycle is registered is not planned (decision 0101): it either
 * happened and has its exam record, or it is too late to be useful.
 */
export const PLAN_LOOKBACK_DAYS = 30;

/** The due visits of a cycle starting `fechaInicio`, registered on `today`: every line's visits, by due date. */
export function planVisits(lines: readonly PlanLine[], fechaInicio: string, today: string): PlannedVisit[] {
  const earliest = addDays(today, -PLAN_LOOKBACK_DAYS);
  const out: PlannedVisit[] = [];
  for (const line of lines) {
    for (let i = 0; i < line.repeticiones; i++) {
      const vence_el = addDays(fechaInicio, line.dia + i * line.intervalo_dias);
      if (vence_el >= earliest) out.push({ plan_visita_id: line.id, tipo: line.tipo, vence_el });
    }
  }
  return out.sort((a, b) => (a.vence_el < b.vence_el ? -1 : a.vence_el > b.vence_el ? 1 : a.plan_visita_id - b.plan_visita_id));
}

/** The edition in force for a cycle starting `fechaInicio`: the latest one valid from that day or before. */
export function editionInForce<E extends { vigente_desde: string }>(editions: readonly E[], fechaInicio: string): E | null {
  let best: E | null = null;
  for (const e of editions) if (e.vigente_desde <= fechaInicio && (best === null || e.vigente_desde > best.vigente_desde)) best = e;
  return best;
}

// ---------------------------------------------------------------------------------------------------------
// What a cycle's estado does to its visits (decision 0102)

export type CycleEstado = 'ACTIVO' | 'SUSPENDIDO' | 'TERMINADO';

/** The visits a change of the cycle moves, from which estados to which; null when it moves none. */
export function visitsFollowingCycle(from: CycleEstado, to: CycleEstado): { from: readonly CitaEstado[]; to: CitaEstado } | null {
  if (to === 'SUSPENDIDO') return { from: ['PENDIENTE', 'AGENDADA'], to: 'PAUSADA' };
  if (to === 'ACTIVO' && from === 'SUSPENDIDO') return { from: ['PAUSADA'], to: 'PENDIENTE' };
  if (to === 'TERMINADO') return { from: ['PENDIENTE', 'AGENDADA', 'PAUSADA'], to: 'CANCELADA' };
  return null;
}

export const CYCLE_MOTIVO: Record<CycleEstado, string> = {
  SUSPENDIDO: 'Ciclo suspendido',
  ACTIVO: 'Ciclo reactivado',
  TERMINADO: 'Ciclo terminado',
};

/** Whether a visit in `estado` may be booked, rescheduled, cancelled, attended or marked missed. */
export const CAN = {
  book: (e: CitaEstado) => e === 'PENDIENTE',
  reschedule: (e: CitaEstado) => e === 'AGENDADA',
  cancel: (e: CitaEstado) => e === 'PENDIENTE' || e === 'AGENDADA',
  attend: (e: CitaEstado) => e === 'AGENDADA',
  noShow: (e: CitaEstado) => e === 'AGENDADA',
} as const;

/** What of an exam record says which visit it records: its kind, date and tipo (monitoring) or session (psychology). */
export interface ExamOfVisit {
  kind: string;
  fecha: string;
  tipo: string | null;
  tipo_sesion: string | null;
}

/**
 * Whether an exam record is what records a visit of this kind (decision 0101: each kind names its exam kind and, for
 * monitoring and psychology, its tipo); a kind without a tipo takes any record of its exam kind.
 */
export function visitRecordedBy(tipo: { examen: string; examen_tipo: string | null }, exam: Pick<ExamOfVisit, 'kind' | 'tipo' | 'tipo_sesion'>): boolean {
  if (tipo.examen !== exam.kind) return false;
  if (tipo.examen_tipo === null) return true;
  return tipo.examen_tipo === (exam.kind === 'PSICOLOGIA' ? exam.tipo_sesion : exam.tipo);
}

// ---------------------------------------------------------------------------------------------------------
// A booking's span and its checks

const HORA = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of 'HH:MM', or null when it is not a time of day. */
export function minutesOfDay(hora: string): number | null {
  const m = HORA.exec(hora);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export const hhmm = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The booked start as whole minutes since 1970-01-01 of the clinic's local time (what the overlap guard compares). */
export function startMinute(fecha: string, hora: string): number {
  const { year, month, day } = splitIsoDate(fecha);
  const m = minutesOfDay(hora);
  if (m === null) throw new RangeError(`not a time: ${hora}`);
  return Date.UTC(year, month - 1, day) / 60000 + m;
}

export const AGENDA_MSG = {
  pastDate: 'La fecha ya pasó: elija hoy o una fecha futura.',
  outsideHours: (apertura: string, cierre: string) => `La cita debe quedar dentro del horario de la clínica (${apertura} a ${cierre}).`,
  duracion: `La duración debe ser de 1 a ${MAX_DURACION_MIN} minutos (8 horas).`,
  hora: 'Ingrese la hora como HH:MM (por ejemplo 08:30).',
  overlapProfesional: 'El profesional ya tiene otra cita en ese horario.',
  overlapRecurso: 'El recurso ya está ocupado en ese horario.',
  unknownProfesional: 'Elija un profesional de la lista.',
  unknownRecurso: 'Elija un recurso de la lista.',
  unknownTipo: 'Elija un tipo de cita de la lista.',
  cycleFinished: 'El ciclo del paciente está terminado: inicie un ciclo nuevo antes de agendar.',
  noCycle: 'El paciente no tiene un ciclo abierto.',
  cycleSuspended: 'El ciclo del paciente está suspendido: reactívelo antes de agendar.',
  motivo: 'Indique el motivo de la cancelación.',
  notBookable: 'Esta cita ya no se puede cambiar.',
  examOther: 'Elija un examen del paciente en este ciclo.',
  visitNotOffered: 'Esa cita no corresponde a este registro: elija una cita agendada del paciente para la fecha del examen y de este tipo de examen, o no vincule ninguna.',
} as const;

export interface Horario {
  hora_apertura: string;
  hora_cierre: string;
}

/**
 * The refusals of a booking's date and time against the day and the clinic's hours, by field: a date in the past,
 * a visit that starts before opening or ends after closing.
 */
export function bookingTimeErrors(input: { fecha: string; hora: string; duracion_min: number; today: string; horario: Horario }): Record<string, string> {
  const errors: Record<string, string> = {};
  if (input.fecha < input.today) errors.fecha = AGENDA_MSG.pastDate;
  const start = minutesOfDay(input.hora);
  const opens = minutesOfDay(input.horario.hora_apertura)!;
  const closes = minutesOfDay(input.horario.hora_cierre)!;
  if (start !== null && (start < opens || start + input.duracion_min > closes)) {
    errors.hora = AGENDA_MSG.outsideHours(input.horario.hora_apertura, input.horario.hora_cierre);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------------
// Weeks and CPAP adherence (worklists)

/** Monday of the week of `date` (weeks run Monday to Sunday in Colombia). */
export function weekStart(date: string): string {
  const { year, month, day } = splitIsoDate(date);
  const dow = new Date(Date.UTC(year, month - 1, day)).getUTCDay(); // 0 Sunday
  return addDays(date, -((dow + 6) % 7));
}

/** The usual definition: use of at least 4 h on at least 70 % of nights (values in hundredths, as stored). */
export const ADHERENCE = { minHorasHundredths: 400, minNochesHundredths: 7000, windowDays: 30, firstControlDays: 90 } as const;

/** True when a CPAP download (hundredths of an hour, hundredths of a percent) shows adherence; null when unknown. */
export function isCpapAdherent(horasUsoPromedio: number | null, porcentajeNoches4h: number | null): boolean | null {
  if (horasUsoPromedio === null || porcentajeNoches4h === null) return null;
  return horasUsoPromedio >= ADHERENCE.minHorasHundredths && porcentajeNoches4h >= ADHERENCE.minNochesHundredths;
}

// ---------------------------------------------------------------------------------------------------------
// Reminders

const WEEKDAYS = ['domingo', 'lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'];
const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

/** 'lunes 30 de noviembre de 2026' (es-CO, written out: no locale data needed). */
export function longDateEs(date: string): string {
  const { year, month, day } = splitIsoDate(date);
  const dow = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return `${WEEKDAYS[dow]} ${day} de ${MONTHS[month - 1]} de ${year}`;
}

/** '2:30 p. m.' as Colombians write it. */
export function timeEs(hora: string): string {
  const m = minutesOfDay(hora);
  if (m === null) return hora;
  const h = Math.floor(m / 60);
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}:${String(m % 60).padStart(2, '0')} ${h < 12 ? 'a. m.' : 'p. m.'}`;
}

export function reminderText(input: { nombre: string; tipo: string; fecha: string; hora: string; lugar: string; indicaciones: string }): string {
  const bring = input.indicaciones ? ` Por favor traiga: ${input.indicaciones}` : '';
  return `Hola ${input.nombre}, le recordamos su cita de ${input.tipo} el ${longDateEs(input.fecha)} a las ${timeEs(input.hora)} en ${input.lugar}.${bring}`;
}

/** Initials of a name ('Ana María', 'Pérez') → 'A. M. P.': what the calendar feed shows of a patient. */
export function initials(nombre: string, apellido: string): string {
  return `${nombre} ${apellido}`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `${w[0]!.toUpperCase()}.`)
    .join(' ');
}

export const dueLabel = (vence: string | null): string => (vence ? formatDateEs(vence) : 'Sin plan');

// ---------------------------------------------------------------------------------------------------------
// Contact consent (Ley 1581 de 2012) and the click-to-chat link

export const CANALES = [
  { value: 'TELEFONO', label: 'Llamada telefónica' },
  { value: 'SMS', label: 'SMS' },
  { value: 'WHATSAPP', label: 'WhatsApp' },
  { value: 'EMAIL', label: 'Correo electrónico' },
] as const;
export type CanalValue = (typeof CANALES)[number]['value'];
export const isCanal = (s: string): s is CanalValue => CANALES.some((c) => c.value === s);
export const canalLabel = (s: string): string => CANALES.find((c) => c.value === s)?.label ?? s;

/**
 * The WhatsApp click-to-chat link for a Colombian mobile number (10 digits starting with 3) with the text ready to
 * send; null for any other number. Whether the patient consented is the caller's check.
 */
export function whatsappLink(celular: string, text: string): string | null {
  const digits = celular.replace(/\D/g, '');
  const local = digits.length === 12 && digits.startsWith('57') ? digits.slice(2) : digits;
  if (!/^3\d{9}$/.test(local)) return null;
  return `https://wa.me/57${local}?text=${encodeURIComponent(text)}`;
}
