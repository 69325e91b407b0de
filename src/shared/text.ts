// Text normalisation. Two variants on purpose:
//
// - normalizeForSearch: for free-text search and ordering of names. Lower case, no accents, single spaces;
//   punctuation is kept so a search is a literal substring match ('jose perez' finds 'José  Pérez').
// - normalizeForMatch: for recognising a posted value against a fixed catalogue (DIVIPOLA, choice lists).
//   Upper case, no accents, and every character that is not a letter or digit removed, so 'bogota dc',
//   'Bogotá D.C.' and 'BOGOTÁ, D.C.' all give 'BOGOTADC'. Checked to be collision-free on the catalogues.

// After NFD, accents are separate combining marks (á = a + U+0301, ñ = n + U+0303): dropping them leaves
// the base letter.
const COMBINING_MARKS = /\p{M}+/gu;
const WHITESPACE = /\s+/gu;
const NOT_ALNUM = /[^A-Z0-9]+/g;
const NON_ASCII = /[^\u0000-\u007f]/;

export function stripAccents(s: string): string {
  // ASCII has no marks and is its own NFD and NFC: most of what is typed (codes, choices, many names) skips ICU.
  if (!NON_ASCII.test(s)) return s;
  return s.normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC');
}

/** 'José  PÉREZ ' → 'jose perez'. Lower case, no accents, single spaces, trimmed. */
export function normalizeForSearch(s: string): string {
  return stripAccents(s).toLowerCase().replace(WHITESPACE, ' ').trim();
}

/** 'Bogotá, D.C.' → 'BOGOTADC'. Upper case, no accents, only ASCII letters and digits. */
export function normalizeForMatch(s: string): string {
  return stripAccents(s).toUpperCase().replace(NOT_ALNUM, '');
}

/** Trims and collapses inner whitespace runs to one space: for names typed with stray spaces. */
export function collapseSpaces(s: string): string {
  return s.replace(WHITESPACE, ' ').trim();
}

/** Characters as a person and the database's length() count them (code points, not UTF-16 units): '😀' is one. */
export const charCount = (s: string): number => [...s].length;

/** A count with its noun in the right number, as people write it: «1 fila omitida», «2.345 filas omitidas». */
export function countOf(n: number, singular: string, plural: string): string {
  return `${n.toLocaleString('es-CO')} ${n === 1 ? singular : plural}`;
}
