// Pure rules of the patient record: choice lists (values exactly the specification's), field limits, and the
// computed edad and IMC. No I/O; "today" is an argument.

import { addYears, formatDateEs, splitIsoDate } from '../shared/dates.js';
import { normalizeForMatch, normalizeForSearch } from '../shared/text.js';

export interface Choice<V extends string | number = string> {
  readonly value: V;
  readonly label: string;
}

export const TIPOS_DOCUMENTO = [
  { value: 'RC', label: 'Registro civil' },
  { value: 'TI', label: 'Tarjeta de identidad' },
  { value: 'CC', label: 'Cédula de ciudadanía' },
  { value: 'CE', label: 'Cédula de extranjería' },
  { value: 'PA', label: 'Pasaporte' },
  { value: 'PE', label: 'Permiso especial de permanencia' },
] as const satisfies readonly Choice[];

export const GENEROS = [
  { value: 'M', label: 'Masculino' },
  { value: 'F', label: 'Femenino' },
  { value: 'O', label: 'Otro' },
] as const satisfies readonly Choice[];

export const ZONAS = [
  { value: 'URBANA', label: 'Urbana' },
  { value: 'RURAL', label: 'Rural' },
] as const satisfies readonly Choice[];

export const ESTADOS_CIVILES = [
  { value: 'SOLTERO', label: 'Soltero(a)' },
  { value: 'CASADO', label: 'Casado(a)' },
  { value: 'UNIÓN LIBRE', label: 'Unión libre' },
  { value: 'VIUDO', label: 'Viudo(a)' },
  { value: 'DIVORCIADO', label: 'Divorciado(a)' },
] as const satisfies readonly Choice[];

// The specification's neutral names for the two insurers; the label is the value until real names are agreed.
export const ENTIDADES_SALUD = [
  { value: 'ENTITY_A', label: 'ENTITY_A' },
  { value: 'ENTITY_B', label: 'ENTITY_B' },
] as const satisfies readonly Choice[];

/**
 * RIPS table RIPSTipoUsuarioVersion2 (SISPRO, Resolución 2275 de 2023): the patient's régimen as RIPS reports it.
 * Optional on the form: patients registered before it was asked keep it blank until staff fill it in (decision 0090).
 */
export const TIPOS_USUARIO = [
  { value: '01', label: '01 Contributivo cotizante' },
  { value: '02', label: '02 Contributivo beneficiario' },
  { value: '03', label: '03 Contributivo adicional' },
  { value: '04', label: '04 Subsidiado' },
  { value: '05', label: '05 No afiliado' },
  { value: '06', label: '06 Especial o de excepción cotizante' },
  { value: '07', label: '07 Especial o de excepción beneficiario' },
  { value: '08', label: '08 Persona privada de la libertad a cargo del Fondo Nacional de Salud' },
  { value: '09', label: '09 Tomador o amparado ARL' },
  { value: '10', label: '10 Tomador o amparado SOAT' },
  { value: '11', label: '11 Tomador o amparado planes voluntarios de salud' },
  { value: '12', label: '12 Particular' },
  { value: '13', label: '13 Especial o de excepción no cotizante (Ley 352 de 1997)' },
] as const satisfies readonly Choice[];

export const ESTRATOS = [
  { value: 1, label: '1' },
  { value: 2, label: '2' },
  { value: 3, label: '3' },
  { value: 4, label: '4' },
  { value: 5, label: '5' },
  { value: 6, label: '6' },
] as const satisfies readonly Choice<number>[];

export const DIAGNOSTICOS = [{ value: 'G47.3', label: 'Apnea del Sueño' }] as const satisfies readonly Choice[];

export const PROGRAMAS = [
  { value: 'PROGRAMA AOS', label: 'Programa AOS' },
  { value: 'PROGRAMA INSOMNIO', label: 'Programa insomnio' },
] as const satisfies readonly Choice[];

export type TipoDocumento = (typeof TIPOS_DOCUMENTO)[number]['value'];
export type Genero = (typeof GENEROS)[number]['value'];
export type Zona = (typeof ZONAS)[number]['value'];
export type EstadoCivil = (typeof ESTADOS_CIVILES)[number]['value'];
export type EntidadSalud = (typeof ENTIDADES_SALUD)[number]['value'];
export type Estrato = (typeof ESTRATOS)[number]['value'];
export type Diagnostico = (typeof DIAGNOSTICOS)[number]['value'];
export type Programa = (typeof PROGRAMAS)[number]['value'];

export const DEFAULT_DIAGNOSTICO: Diagnostico = 'G47.3';

/** The values of a choice list, e.g. for a check or a database constraint. */
export function choiceValues<V extends string | number>(choices: readonly Choice<V>[]): V[] {
  return choices.map((c) => c.value);
}

/**
 * Tolerant match of a posted value against a choice list: case, accents, spaces and punctuation ignored
 * ('union libre' → 'UNIÓN LIBRE', 'g47.3' → 'G47.3', ' 3 ' → 3). Only values are matched, not labels, because
 * the wire values are the specification's. Returns the canonical value or null.
 */
export function matchChoice<V extends string | number>(choices: readonly Choice<V>[], input: string | number): V | null {
  const key = normalizeForMatch(String(input));
  if (key === '') return null;
  return (choiceKeysOf(choices).get(key) as V | undefined) ?? null;
}

// Each list's values by their tolerant key, made the first time the list is matched: the lists are constants, and a
// form matches eight of them twice (its fields, then the values it shows again).
const choiceKeys = new WeakMap<readonly Choice<string | number>[], ReadonlyMap<string, string | number>>();

function choiceKeysOf(choices: readonly Choice<string | number>[]): ReadonlyMap<string, string | number> {
  let keys = choiceKeys.get(choices);
  if (keys === undefined) {
    const byKey = new Map<string, string | number>();
    // The first value of a key wins, as a search of the list in order would give.
    for (const c of choices) {
      const key = normalizeForMatch(String(c.value));
      if (!byKey.has(key)) byKey.set(key, c.value);
    }
    keys = byKey;
    choiceKeys.set(choices, keys);
  }
  return keys;
}

/** Label of a stored value, falling back to the value itself (e.g. a value from an older list). */
export function labelOf<V extends string | number>(choices: readonly Choice<V>[], value: V | string | number): string {
  return choices.find((c) => c.value === value)?.label ?? String(value);
}

/** Maximum lengths of the text fields (characters), from the specification. */
export const MAX_LENGTHS = {
  nombre: 100,
  apellido: 100,
  documento: 20,
  telefono: 20,
  celular: 20,
  medico_remitente: 100,
  especialidad: 100,
} as const;

/** Upper bound of each decimal field, in hundredths (999,99 → 99999). */
export const DECIMAL_MAX_HUNDREDTHS = {
  peso: 99999,
  altura: 9999,
  perimetro_abdominal: 99999,
  cuello: 99999,
  valor_capita: 9999999999,
} as const;

/** 259783 pesos, used when valor_capita is left blank. */
export const DEFAULT_VALOR_CAPITA_HUNDREDTHS = 25978300;

// Characters nobody sees: format characters (zero-width space and joiners, BOM, bidi marks), controls, and the
// other default-ignorable code points (variation selectors, soft hyphen…).
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]/gu;
// What people type between groups of digits: any space, dots (after NFKC: '.', '·', '。'), and any dash or minus.
const SEPARATORS = /[\s\p{Z}.\u00B7\u2027\u3002\uFF61\p{Pd}\u2212]/gu;

/**
 * The canonical form of a documento (decision 0030): Unicode NFKC (full-width '８' → '8'), invisible characters
 * removed, the separators people type (spaces, dots, hyphens) removed, letters upper-cased. Two documentos that
 * look the same to a person have the same key; the unique index is on it, and new rows store it as documento.
 */
export function documentoKey(documento: string): string {
  return documento.normalize('NFKC').replace(INVISIBLE, '').replace(SEPARATORS, '').toUpperCase();
}

/** Document types whose number holds only digits; the others (foreign documents, passports) letters and digits. */
const NUMERIC_DOCUMENTOS: readonly TipoDocumento[] = ['RC', 'TI', 'CC'];

export const DOCUMENTO_MSG = {
  empty: 'Escriba el número del documento.',
  digitsOnly: (tipo: string): string =>
    `${tipo}: el número solo puede tener dígitos (los espacios, puntos y guiones se ignoran).`,
  lettersAndDigits: (tipo: string): string =>
    `${tipo}: el número solo puede tener letras sin tilde (A-Z) y dígitos (los espacios, puntos y guiones se ignoran).`,
  tooLong: (max: number, length: number): string => `Máximo ${max} caracteres sin contar separadores (tiene ${length}).`,
} as const;

/**
 * Whether a canonical documento (documentoKey's result) can be a document of the type: numeric types (RC, TI, CC)
 * hold digits only, CE, PA and PE ASCII letters and digits; 1 to 20 characters. A Spanish message, or null.
 */
export function documentoProblem(tipo: TipoDocumento, key: string): string | null {
  if (key === '') return DOCUMENTO_MSG.empty;
  const label = labelOf(TIPOS_DOCUMENTO, tipo);
  if (NUMERIC_DOCUMENTOS.includes(tipo)) {
    if (!/^[0-9]+$/.test(key)) return DOCUMENTO_MSG.digitsOnly(label);
  } else if (!/^[A-Z0-9]+$/.test(key)) {
    return DOCUMENTO_MSG.lettersAndDigits(label);
  }
  if (key.length > MAX_LENGTHS.documento) return DOCUMENTO_MSG.tooLong(MAX_LENGTHS.documento, key.length);
  return null;
}

/**
 * The key of a patient whose documento collided with an older patient's when keys became canonical (migration
 * 0040): the canonical key, '#', the patient's id. It stays unique until staff resolve the pair (decision 0030).
 */
export function collidingDocumentoKey(key: string, patientId: number): string {
  return `${key}#${patientId}`;
}

/**
 * The key to store when a patient is saved with the canonical documento `key`: a patient still listed as colliding
 * keeps its '<key>#<id>' while its documento stays the same (so its other fields can be corrected meanwhile).
 */
export function keptDocumentoKey(current: { id: number; documento_key: string }, key: string): string {
  return current.documento_key === collidingDocumentoKey(key, current.id) ? current.documento_key : key;
}

/**
 * What the lists search for (decision 0050): the query without accents and case, except a documento typed with
 * its separators, searched as documentos are stored (canonical, decision 0030). Digits with spaces, dots or
 * hyphens ('1.098.572.175', '1098-572', '1 098 572 175') and one word of letters and digits with dots or hyphens
 * ('AB-12.345') lose them; anything else (names, names with a number) is searched as typed.
 */
export function searchNeedle(query: string): string {
  const needle = normalizeForSearch(query);
  const compact = documentoKey(needle).toLowerCase();
  if (compact === needle || compact === '') return needle;
  if (/^[0-9]+$/.test(compact)) return compact;
  if (!needle.includes(' ') && /^[a-z0-9]+$/.test(compact) && /[0-9]/.test(compact)) return compact;
  return needle;
}

// A comma or semicolon against a word ('Rodríguez, María') is punctuation, never part of a name or documento.
const EDGE_PUNCTUATION = /^[,;]+|[,;]+$/g;

/**
 * The words a list search must each find, in any order, in a patient's search text (decision 0070): 'maria
 * rodriguez' finds María Fernanda Rodríguez Pérez. The query is read as searchNeedle reads it, so a documento typed
 * with spaces ('1 098 572 175') stays one word; then each word as searchNeedle reads one ('1.098' → '1098'), without
 * commas or semicolons at its edges. Every other character stays: a word of punctuation (`"`, `--`) must be found
 * too, so a fragment of SQL finds nobody. Repeated words count once.
 */
export function searchWords(query: string): string[] {
  const typed = searchNeedle(query).split(' ').filter((w) => w !== '');
  const words = typed.map((w) => searchNeedle(w.replace(EDGE_PUNCTUATION, ''))).filter((w) => w !== '');
  // Commas alone (',') are still a search, of themselves: they never widen the list to everyone.
  return [...new Set(words.length > 0 ? words : typed)];
}

/**
 * The columns derived from a patient's names and documento, kept up to date on every write: the uniqueness
 * key, the accent- and case-free search text (so 'jose perez' finds José Pérez) and the ordering keys.
 */
export function patientDerivedColumns(p: { nombre: string; apellido: string; documento: string }): {
  documento_key: string;
  search_text: string;
  apellido_norm: string;
  nombre_norm: string;
} {
  const key = documentoKey(p.documento);
  // A documento stored as typed before keys were canonical ('88.123.4') is found by its key too (searchNeedle).
  const keyText = key.toLowerCase() === normalizeForSearch(p.documento) ? '' : ` ${key.toLowerCase()}`;
  return {
    documento_key: key,
    search_text: normalizeForSearch(`${p.nombre} ${p.apellido} ${p.documento}`) + keyText,
    apellido_norm: normalizeForSearch(p.apellido),
    nombre_norm: normalizeForSearch(p.nombre),
  };
}

/** The oldest a patient can be: a birth date at most this many years before today (decision 0031). */
export const BIRTH_MAX_YEARS = 120;

export const BIRTH_MSG = {
  notBeforeToday: (today: string): string =>
    `La fecha de nacimiento debe ser anterior a hoy (${formatDateEs(today)}).`,
  tooOld: (oldest: string): string =>
    `La fecha de nacimiento no puede ser de hace más de ${BIRTH_MAX_YEARS} años (la más antigua aceptada es el ${formatDateEs(oldest)}).`,
} as const;

/** Why a (real calendar) birth date cannot be, or null: it must be before today and at most 120 years ago. */
export function birthDateProblem(fechaNacimiento: string, today: string): string | null {
  if (fechaNacimiento >= today) return BIRTH_MSG.notBeforeToday(today);
  const oldest = addYears(today, -BIRTH_MAX_YEARS);
  if (fechaNacimiento < oldest) return BIRTH_MSG.tooOld(oldest);
  return null;
}

/**
 * Whole years completed on `today`. Someone born on 29 February completes a year on 1 March in common years
 * (28 February is still the day before the birthday). A birth date after today gives 0.
 */
export function edad(fechaNacimiento: string, today: string): number {
  const b = splitIsoDate(fechaNacimiento);
  const t = splitIsoDate(today);
  let years = t.year - b.year;
  if (t.month < b.month || (t.month === b.month && t.day < b.day)) years--;
  return Math.max(0, years);
}

/**
 * IMC (BMI, kg/m²) rounded half up to one decimal, from peso (kg) and altura (m) in hundredths. Computed in
 * integers: bmi × 10 = peso × 1000 / altura². Null when either is missing or zero.
 */
export function imc(pesoHundredths: number | null, alturaHundredths: number | null): number | null {
  if (pesoHundredths === null || alturaHundredths === null) return null;
  if (pesoHundredths <= 0 || alturaHundredths <= 0) return null;
  const a2 = alturaHundredths * alturaHundredths;
  const tenths = Math.floor((2 * pesoHundredths * 1000 + a2) / (2 * a2));
  return tenths / 10;
}

// ---------------------------------------------------------------------------------------------------------
// Possible duplicate people (decision 0043): same birth date and a similar full name.

/** The words of a full name, accent- and case-free, punctuation dropped: 'José  Pérez-Gómez' → ['jose', 'perez', 'gomez']. */
export function nameWords(nombre: string, apellido: string): string[] {
  return normalizeForSearch(`${nombre} ${apellido}`)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w !== '');
}

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent swaps), stopping early above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    for (let j = 0; j <= b.length; j++) prev2[j] = prev[j]!;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Whether two full names may be the same person's: equal once accents, case, spacing and punctuation are
 * ignored, the same words in another order (swapped surnames, or nombre and apellido swapped), or one typo
 * apart (one character added, dropped, changed, or two neighbours swapped).
 */
export function similarNames(a: { nombre: string; apellido: string }, b: { nombre: string; apellido: string }): boolean {
  return similarWords(nameWords(a.nombre, a.apellido), nameWords(b.nombre, b.apellido));
}

/** similarNames on the names' words (nameWords), so one name can be compared with many without splitting it again. */
function similarWords(wa: readonly string[], wb: readonly string[]): boolean {
  if (wa.length === 0 || wb.length === 0) return false;
  const ja = wa.join(' ');
  const jb = wb.join(' ');
  if (ja === jb) return true;
  if ([...wa].sort().join(' ') === [...wb].sort().join(' ')) return true;
  return editDistance(ja, jb, 1) <= 1;
}

export interface PersonIdentity {
  nombre: string;
  apellido: string;
  fecha_nacimiento: string;
}

/** The candidates that may be the same person: the same birth date and a similar full name. */
export function similarPeople<T extends PersonIdentity>(person: PersonIdentity, candidates: readonly T[]): T[] {
  const words = nameWords(person.nombre, person.apellido);
  return candidates.filter((c) => c.fecha_nacimiento === person.fecha_nacimiento && similarWords(words, nameWords(c.nombre, c.apellido)));
}
