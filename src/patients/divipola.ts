// Departamento → municipio catalogue (DANE DIVIPOLA), decisions §4. Values are the names exactly as DANE writes
// them ('SANTANDER', 'BOGOTÁ, D.C.'); posted values are matched ignoring case, accents, spaces and punctuation
// (normalizeForMatch) and answered in that listed form.

import { normalizeForMatch } from '../shared/text.js';
import { DIVIPOLA, type DivipolaDepartamento } from './divipola.data.js';

export { DIVIPOLA };
export type { DivipolaDepartamento, DivipolaMunicipio } from './divipola.data.js';

export const DEFAULT_DEPARTAMENTO = 'SANTANDER';

/** Department names, sorted by name (accents ignored). */
export const DEPARTAMENTOS: readonly string[] = Object.freeze(DIVIPOLA.map((d) => d.nombre));

interface DepartamentoIndex {
  departamento: DivipolaDepartamento;
  municipioNames: readonly string[];
  municipioByKey: ReadonlyMap<string, string>;
}

// Built once at load: lookups run on every patient form post and list render.
const byName = new Map<string, DepartamentoIndex>();
const byKey = new Map<string, DepartamentoIndex>();
for (const departamento of DIVIPOLA) {
  const municipioByKey = new Map<string, string>();
  for (const m of departamento.municipios) municipioByKey.set(normalizeForMatch(m.nombre), m.nombre);
  const index: DepartamentoIndex = {
    departamento,
    municipioNames: Object.freeze(departamento.municipios.map((m) => m.nombre)),
    municipioByKey,
  };
  byName.set(departamento.nombre, index);
  byKey.set(normalizeForMatch(departamento.nombre), index);
}

if (!byName.has(DEFAULT_DEPARTAMENTO)) throw new Error(`DIVIPOLA data lacks ${DEFAULT_DEPARTAMENTO}`);

/** The municipio names of a department given in its listed form (use matchDepartamento first); [] if unknown. */
export function municipiosOf(departamento: string): readonly string[] {
  return byName.get(departamento)?.municipioNames ?? [];
}

/** 'santander', 'Bogotá D.C.', 'bogota, d.c.' → the listed name; null when no department matches. */
export function matchDepartamento(input: string): string | null {
  const key = normalizeForMatch(input);
  if (key === '') return null;
  return byKey.get(key)?.departamento.nombre ?? null;
}

/**
 * The listed name of the municipio `input` within `departamento` (itself matched tolerantly), or null when the
 * department is unknown or the municipio is not one of its own: 'medellin' is found in ANTIOQUIA, not in
 * SANTANDER.
 */
export function matchCiudad(departamento: string, input: string): string | null {
  const dep = byKey.get(normalizeForMatch(departamento));
  if (!dep) return null;
  const key = normalizeForMatch(input);
  if (key === '') return null;
  return dep.municipioByKey.get(key) ?? null;
}

/** DANE code of a listed departamento/municipio pair ('SANTANDER', 'BUCARAMANGA' → '68001'), or null. */
export function municipioCodigo(departamento: string, ciudad: string): string | null {
  return byName.get(departamento)?.departamento.municipios.find((m) => m.nombre === ciudad)?.codigo ?? null;
}

/** DANE code of a listed departamento ('SANTANDER' → '68'), or null. */
export function departamentoCodigo(departamento: string): string | null {
  return byName.get(departamento)?.departamento.codigo ?? null;
}
