// The RIPS forms (the settings, an insurer, a catalogue edition) and the RIPS page's query string.

import { z } from 'zod';
import { choiceField } from '../patients/patient.field-parsers.js';
import { ENTIDADES_SALUD, choiceValues } from '../patients/patient.rules.js';
import { parseIsoDate, parseIsoMonth } from '../shared/dates.js';
import { fail } from '../web/form.js';
import { KNOWN_SERVICIOS } from './rips.services.js';
import {
  BLOQUES,
  CAUSAS_MOTIVO,
  FACTURA_PATTERN,
  FINALIDADES,
  GRUPOS_SERVICIOS,
  MODALIDADES,
  OPERACIONES,
  RIPS_MSG,
  VIAS_INGRESO,
  monthBounds,
  type Operacion,
} from './rips.rules.js';

const digits = (min: number, max: number, message: string) =>
  z.string().transform((raw, ctx) => {
    const v = raw.replace(/[\s.\-]/g, '');
    if (v === '') return '';
    return new RegExp(`^[0-9]{${min},${max}}$`).test(v) ? v : fail(ctx, message);
  });

const cie10 = z.string().transform((raw, ctx) => {
  const v = raw.trim().toUpperCase().replace('.', '');
  return /^[A-Z][0-9]{2}[0-9A-Z]{0,2}$/.test(v) ? v : fail(ctx, 'Escriba un código CIE-10, p. ej. G47.3 o G473.');
});

/** The provider's settings. Blank NIT or REPS code may be saved (the RIPS page then lists them as problems). */
export const ripsSettingsSchema = z.object({
  nit: digits(5, 20, 'El NIT lleva solo dígitos, sin el dígito de verificación (5 a 20 dígitos).'),
  codigo_prestador: digits(12, 12, 'El código REPS de la sede tiene 12 dígitos: los 10 del prestador y los 2 de la sede.'),
  modalidad_grupo_servicio: choiceField(MODALIDADES),
  grupo_servicios: choiceField(GRUPOS_SERVICIOS),
  finalidad_tecnologia_salud: choiceField(FINALIDADES),
  causa_motivo_atencion: choiceField(CAUSAS_MOTIVO),
  via_ingreso_servicio_salud: choiceField(VIAS_INGRESO),
  diagnostico_aos: cie10,
  diagnostico_insomnio: cie10,
});
export type RipsSettingsInput = z.output<typeof ripsSettingsSchema>;

const text = (max: number, required: boolean) =>
  z.string().transform((raw, ctx) => {
    const v = raw.trim();
    if (v === '' && required) return fail(ctx, 'Este campo es obligatorio.');
    return v.length <= max ? v : fail(ctx, `Máximo ${max} caracteres.`);
  });

export const ripsEntidadSchema = z.object({
  entidad_salud: choiceField(ENTIDADES_SALUD),
  nombre: text(120, true),
  codigo: text(20, false),
});
export type RipsEntidadInput = z.output<typeof ripsEntidadSchema>;

/** A new edition of a service's codes, valid from a date on. */
export const catalogueEditionSchema = z.object({
  servicio: choiceField(KNOWN_SERVICIOS),
  vigente_desde: z.string().transform((raw, ctx) => parseIsoDate(raw.trim()) ?? fail(ctx, 'Ingrese una fecha válida (AAAA-MM-DD).')),
  bloque: choiceField(BLOQUES),
  cups: z.string().transform((raw, ctx) => {
    const v = raw.trim().toUpperCase();
    return /^[0-9A-Z]{6}$/.test(v) ? v : fail(ctx, 'El código CUPS tiene 6 caracteres, p. ej. 891704.');
  }),
  cod_servicio: z.string().transform((raw, ctx) => {
    const v = raw.trim();
    return /^[0-9]{1,4}$/.test(v) && Number(v) > 0 ? Number(v) : fail(ctx, 'El código de servicio REPS es un número, p. ej. 331 (neumología) o 344 (psicología).');
  }),
});
export type CatalogueEditionInput = z.output<typeof catalogueEditionSchema>;

/** The RIPS page's query, read: each field's value or its message. */
export interface RipsQuery {
  values: { mes: string; entidad_salud: string; factura: string; operacion: string };
  errors: Record<string, string>;
  /** the services' month, its period, the insurer, the operation and the invoice, once valid */
  mes: string | null;
  period: { start: string; end: string } | null;
  entidad: string | null;
  operacion: Operacion | null;
  factura: string | null;
}

const first = (query: unknown, name: string): string => {
  const v = (query as Record<string, unknown> | null)?.[name];
  return typeof v === 'string' ? v : '';
};

/**
 * Reads ?mes=&entidad_salud=&factura=&operacion= (decision 0093): `mes` is the month of the services reported; a
 * month not yet started has none. The invoice is needed by CapitaPeriodo and CapitaFinal, refused by RS.
 * `forFile`: the operation and the invoice are required (the download), not on the page.
 */
export function parseRipsQuery(query: unknown, today: string, forFile: boolean): RipsQuery {
  const values = { mes: first(query, 'mes').trim().slice(0, 20), entidad_salud: first(query, 'entidad_salud').trim().slice(0, 40), factura: first(query, 'factura').trim().slice(0, 40), operacion: first(query, 'operacion').trim().slice(0, 20) };
  const errors: Record<string, string> = {};
  let mes: string | null = null;
  if (values.mes === '') errors.mes = RIPS_MSG.mesMissing;
  else {
    mes = parseIsoMonth(values.mes);
    if (mes === null) errors.mes = RIPS_MSG.mesInvalid(values.mes);
    else if (mes > today.slice(0, 7)) {
      errors.mes = RIPS_MSG.mesFuture(mes);
      mes = null;
    }
  }
  const entidad = (choiceValues(ENTIDADES_SALUD) as string[]).includes(values.entidad_salud) ? values.entidad_salud : null;
  if (entidad === null) errors.entidad_salud = RIPS_MSG.entidad;
  let operacion: Operacion | null = (OPERACIONES.map((o) => o.value) as string[]).includes(values.operacion) ? (values.operacion as Operacion) : null;
  if (operacion === null && (forFile || values.operacion !== '')) errors.operacion = RIPS_MSG.operacion;
  let factura: string | null = null;
  if (values.factura !== '') {
    if (!FACTURA_PATTERN.test(values.factura)) errors.factura = RIPS_MSG.factura;
    else factura = values.factura;
  }
  if (forFile && operacion !== null && operacion !== 'RS' && values.factura === '') errors.factura = RIPS_MSG.facturaRequired;
  if (operacion === 'RS' && values.factura !== '') errors.factura = RIPS_MSG.facturaWithRs;
  return { values, errors, mes, period: mes === null ? null : monthBounds(mes), entidad, operacion, factura };
}
