// The agenda's forms as zod schemas: each field from its text to its value with its Spanish message. What depends
// on the database or the day (the clinic's hours, a past date, whether the professional exists, overlaps) is
// checked by the action (agenda.actions.ts) over agenda.rules.ts.
import { z } from 'zod';
import { parseIsoDate } from '../shared/dates.js';
import { parsePageNumber } from '../shared/paging.js';
import { fail, parseId } from '../web/form.js';
import { AGENDA_MSG, isCanal, MAX_DURACION_MIN, minutesOfDay } from './agenda.rules.js';

const idField = (missing: string) =>
  z.string().transform((raw, ctx) => {
    const id = parseId(raw.trim());
    return id === null ? fail(ctx, missing) : id;
  });

const optionalId = (invalid: string) =>
  z.string().transform((raw, ctx): number | null => {
    const s = raw.trim();
    if (s === '') return null;
    const id = parseId(s);
    return id === null ? fail(ctx, invalid) : id;
  });

const fecha = z.string().transform((raw, ctx) => {
  const s = raw.trim();
  if (s === '') return fail(ctx, 'Ingrese la fecha de la cita.');
  return parseIsoDate(s) ?? fail(ctx, 'Ingrese la fecha como AAAA-MM-DD.');
});

const hora = z.string().transform((raw, ctx) => {
  const s = raw.trim();
  if (s === '') return fail(ctx, 'Ingrese la hora de la cita.');
  return minutesOfDay(s) === null ? fail(ctx, AGENDA_MSG.hora) : s;
});

const duracion = z.string().transform((raw, ctx) => {
  const s = raw.trim();
  if (!/^\d{1,4}$/.test(s)) return fail(ctx, AGENDA_MSG.duracion);
  const n = Number(s);
  return n < 1 || n > MAX_DURACION_MIN ? fail(ctx, AGENDA_MSG.duracion) : n;
});

/** When, how long, with whom and where: the booking's fields, shared by a new booking and a reschedule. */
const slot = {
  fecha,
  hora,
  duracion_min: duracion,
  profesional: idField(AGENDA_MSG.unknownProfesional),
  recurso: optionalId(AGENDA_MSG.unknownRecurso),
};

export const bookingForm = z.object({
  patient_id: idField('Paciente desconocido.'),
  tipo: z.string().transform((raw, ctx) => {
    const s = raw.trim();
    return /^[A-Z0-9_]{1,40}$/.test(s) ? s : fail(ctx, AGENDA_MSG.unknownTipo);
  }),
  ...slot,
});
export type BookingInput = z.output<typeof bookingForm>;

export const rescheduleForm = z.object(slot);
export type RescheduleInput = z.output<typeof rescheduleForm>;

export const MOTIVO_MAX = 500;
export const cancelForm = z.object({
  motivo: z.string().transform((raw, ctx) => {
    const s = raw.trim();
    if (s === '') return fail(ctx, AGENDA_MSG.motivo);
    return s.length > MOTIVO_MAX ? fail(ctx, `El motivo admite hasta ${MOTIVO_MAX} caracteres.`) : s;
  }),
});

export const attendForm = z.object({ exam_record_id: optionalId(AGENDA_MSG.examOther) });

/**
 * The day view's query: a day (today when absent or malformed), and optionally one professional or resource's week.
 * `pagina` pages the whole clinic's days (1 when absent or not a number, and for one professional's or resource's
 * days, which are shown whole); a page past the last shows the last.
 */
export interface AgendaQuery {
  fecha: string;
  profesional: number | null;
  recurso: number | null;
  semana: boolean;
  pagina: number;
}
export function parseAgendaQuery(query: unknown, today: string): AgendaQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof q[k] === 'string' ? (q[k]).trim() : '');
  const profesional = parseId(str('profesional'));
  const recurso = parseId(str('recurso'));
  return {
    fecha: parseIsoDate(str('fecha')) ?? today,
    profesional,
    recurso,
    semana: str('vista') === 'semana',
    pagina: profesional === null && recurso === null ? parsePageNumber(str('pagina')) : 1,
  };
}

const canalField = z.string().transform((raw, ctx) => {
  const s = raw.trim();
  return isCanal(s) ? s : fail(ctx, 'Elija un canal de la lista.');
});
const dateField = (missing: string) =>
  z.string().transform((raw, ctx) => {
    const s = raw.trim();
    if (s === '') return fail(ctx, missing);
    return parseIsoDate(s) ?? fail(ctx, 'Ingrese la fecha como AAAA-MM-DD.');
  });

export const consentForm = z.object({ canal: canalField, otorgado_el: dateField('Ingrese la fecha en que se otorgó.') });
export const withdrawConsentForm = z.object({ retirado_el: dateField('Ingrese la fecha en que se retiró.') });
export const remindForm = z.object({ canal: canalField });
