// The agenda administration's forms (issue 28): a new plan edition, the clinic's hours and place, a resource. What
// depends on the database or the day (the kinds known, the latest edition, a name taken) the action checks.
import { z } from 'zod';
import { parseIsoDate } from '../shared/dates.js';
import { acrossFields, fail } from '../web/form.js';
import { ADMIN_MSG, hoursProblem, isClaseRecurso, isProgramaPlan, LINE_LIMITS, lineFields, LUGAR_MAX, PLAN_FORM_LINES, RECURSO_NOMBRE_MAX } from './agenda.admin.rules.js';
import { minutesOfDay } from './agenda.rules.js';

/** A whole number from `min` to `max`, or null when blank (a blank line is skipped). */
const wholeOrBlank = (min: number, max: number, message: string) =>
  z.string().transform((raw, ctx): number | null => {
    const s = raw.trim();
    if (s === '') return null;
    if (!/^\d{1,5}$/.test(s)) return fail(ctx, message);
    const n = Number(s);
    return n < min || n > max ? fail(ctx, message) : n;
  });
const codeOrBlank = z.string().transform((raw, ctx): string | null => {
  const s = raw.trim();
  if (s === '') return null;
  return /^[A-Z0-9_]{1,40}$/.test(s) ? s : fail(ctx, ADMIN_MSG.tipo);
});

const LINE_NUMBERS = Array.from({ length: PLAN_FORM_LINES }, (_, i) => i + 1);

const lineShape: Record<string, z.ZodType<unknown, string>> = {};
for (const n of LINE_NUMBERS) {
  const f = lineFields(n);
  lineShape[f.tipo] = codeOrBlank;
  lineShape[f.dia] = wholeOrBlank(0, LINE_LIMITS.diaMax, ADMIN_MSG.dia);
  lineShape[f.repeticiones] = wholeOrBlank(1, LINE_LIMITS.repeticionesMax, ADMIN_MSG.repeticiones);
  lineShape[f.intervalo] = wholeOrBlank(0, LINE_LIMITS.intervaloMax, ADMIN_MSG.intervalo);
}

export interface EditionLine {
  /** Its row on the form (1-based): where its errors stand. */
  n: number;
  tipo: string;
  dia: number;
  repeticiones: number;
  intervalo_dias: number;
}

type EditionFields = { programa: string; vigente_desde: string } & Record<string, unknown>;

export const editionForm = z
  .object({
    programa: z.string().transform((raw, ctx) => {
      const s = raw.trim();
      return isProgramaPlan(s) ? s : fail(ctx, ADMIN_MSG.programa);
    }),
    vigente_desde: z.string().transform((raw, ctx) => {
      const s = raw.trim();
      if (s === '') return fail(ctx, 'Ingrese desde qué fecha rige.');
      return parseIsoDate(s) ?? fail(ctx, 'Ingrese la fecha como AAAA-MM-DD.');
    }),
    ...lineShape,
  })
  .check(
    acrossFields<EditionFields>((valid, problem) => {
      let lines = 0;
      for (const n of LINE_NUMBERS) {
        const f = lineFields(n);
        const raw = [f.tipo, f.dia, f.repeticiones, f.intervalo].map((k) => (k in valid ? valid[k] : undefined));
        // A field that failed its own parse is absent from `valid`: its message already stands beside it.
        if (raw.some((v) => v === undefined)) {
          lines++;
          continue;
        }
        const [tipo, dia, repeticiones, intervalo] = raw as [string | null, number | null, number | null, number | null];
        if (tipo === null && dia === null && repeticiones === null && intervalo === null) continue;
        lines++;
        if (tipo === null) problem(f.tipo, ADMIN_MSG.lineIncomplete);
        if (dia === null) problem(f.dia, ADMIN_MSG.lineIncomplete);
        if ((repeticiones ?? 1) > 1 && (intervalo ?? 0) === 0) problem(f.intervalo, ADMIN_MSG.intervaloNeeded);
      }
      if (lines === 0) problem(lineFields(1).tipo, ADMIN_MSG.noLines);
    }),
  );

/** The edition's lines from a parsed form, in form order (blank lines left out; one visit when `repeticiones` is blank). */
export function editionLines(data: Record<string, unknown>): EditionLine[] {
  const out: EditionLine[] = [];
  for (const n of LINE_NUMBERS) {
    const f = lineFields(n);
    const tipo = data[f.tipo] as string | null;
    const dia = data[f.dia] as number | null;
    if (tipo === null || dia === null) continue;
    const repeticiones = (data[f.repeticiones] as number | null) ?? 1;
    out.push({ n, tipo, dia, repeticiones, intervalo_dias: repeticiones === 1 ? 0 : ((data[f.intervalo] as number | null) ?? 0) });
  }
  return out;
}

const horaField = z.string().transform((raw, ctx) => {
  const s = raw.trim();
  return minutesOfDay(s) === null ? fail(ctx, ADMIN_MSG.hora) : s;
});

export const ajustesForm = z
  .object({
    hora_apertura: horaField,
    hora_cierre: horaField,
    lugar: z.string().transform((raw, ctx) => {
      const s = raw.trim().replace(/\s+/g, ' ');
      return s === '' || s.length > LUGAR_MAX ? fail(ctx, ADMIN_MSG.lugar) : s;
    }),
  })
  .check(
    acrossFields<{ hora_apertura: string; hora_cierre: string; lugar: string }>((v, problem) => {
      if (v.hora_apertura === undefined || v.hora_cierre === undefined) return;
      const p = hoursProblem(v.hora_apertura, v.hora_cierre);
      if (p) problem('hora_cierre', p);
    }),
  );
export type AjustesInput = z.output<typeof ajustesForm>;

const nombreRecurso = z.string().transform((raw, ctx) => {
  const s = raw.trim().replace(/\s+/g, ' ');
  return s === '' || s.length > RECURSO_NOMBRE_MAX ? fail(ctx, ADMIN_MSG.nombre) : s;
});

export const newRecursoForm = z.object({
  nombre: nombreRecurso,
  clase: z.string().transform((raw, ctx) => {
    const s = raw.trim();
    return isClaseRecurso(s) ? s : fail(ctx, ADMIN_MSG.clase);
  }),
});
export type NewRecursoInput = z.output<typeof newRecursoForm>;

/** Renaming a resource and whether it is offered for new bookings ('1' active; an unchecked box posts nothing). */
export const editRecursoForm = z.object({
  nombre: nombreRecurso,
  activo: z.string().transform((raw) => raw.trim() === '1'),
});
export type EditRecursoInput = z.output<typeof editRecursoForm>;
