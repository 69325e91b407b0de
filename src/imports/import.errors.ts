// The refusals of an uploaded file: an IMPORT_BAD_FILE domain error carrying the message the page shows, and the
// bounds a file is read within (decisions 0042 and 0057).

import { conflict, type DomainError } from '../shared/domain-error.js';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from './import.rules.js';

/** The uploaded file cannot be imported as it is; `details.message` is what the page shows. */
export const IMPORT_BAD_FILE = 'import.bad_file';
export const badFile = (message: string): DomainError<{ message: string }> => conflict(IMPORT_BAD_FILE, { message });

/** The most characters a cell holds (Excel's own limit). */
export const MAX_CELL_CHARS = 32_767;
/** The most characters of one row, all its cells together. */
export const MAX_RECORD_CHARS = 100_000;
/** The most columns with data a row may have. */
export const MAX_COLUMNS = 500;
/** The most characters of a workbook's shared strings, all together. */
export const MAX_SHARED_CHARS = 16_000_000;

const MB = MAX_IMPORT_BYTES / 1024 / 1024;
const fmt = (n: number) => n.toLocaleString('es-CO');

export const FILE_MSG = {
  empty: 'El archivo está vacío.',
  tooBig: `El archivo supera ${MB} MB. Divídalo en varios archivos más pequeños.`,
  tooManyRows: `El archivo tiene más de ${fmt(MAX_IMPORT_ROWS)} filas de datos; el máximo es ${fmt(MAX_IMPORT_ROWS)}. Divídalo en varios archivos.`,
  kind: 'Solo se aceptan archivos .csv o .xlsx (Excel). Guarde la hoja en uno de esos formatos.',
  protected: 'El libro está protegido con contraseña (o es un .xls antiguo). Quite la contraseña y guárdelo como .xlsx, o expórtelo como CSV.',
  corrupt: 'El archivo .xlsx está dañado o no es un libro de Excel válido.',
  unpacksTooBig: 'El libro .xlsx ocupa demasiado al descomprimirlo: no parece una hoja de pacientes. Guárdelo de nuevo desde Excel o expórtelo como CSV.',
  tooManyStrings: `El libro tiene demasiado texto (más de ${fmt(MAX_SHARED_CHARS)} caracteres): no parece una hoja de pacientes.`,
  unreadable: 'El archivo no se pudo leer: es demasiado grande o está dañado.',
  csvBroken: (detail: string) => `El CSV no se pudo leer: ${detail}`,
  noSheet: 'El libro no tiene ninguna hoja con datos.',
  noHeader: 'La primera fila debe tener los nombres de las columnas.',
  formula: (ref: string) => `La celda ${ref} contiene una fórmula. Copie y pegue la hoja «como valores» y vuelva a subirla.`,
  cellError: (ref: string) => `La celda ${ref} contiene un error de Excel (#¡VALOR!, #N/A…). Corríjala y vuelva a subir el archivo.`,
  cellTooLong: (ref: string) => `La celda ${ref} tiene más de ${fmt(MAX_CELL_CHARS)} caracteres.`,
  stringTooLong: `El libro tiene un texto de más de ${fmt(MAX_CELL_CHARS)} caracteres, más de lo que cabe en una celda.`,
  rowTooLong: (row: number) => `La fila ${row} tiene más de ${fmt(MAX_RECORD_CHARS)} caracteres.`,
  tooManyColumns: (row: number) => `La fila ${row} tiene datos en más de ${fmt(MAX_COLUMNS)} columnas.`,
  binary: 'El archivo no es texto: no parece un CSV.',
  similarGroup: (date: string, line: number, max: number) =>
    `Más de ${max} filas tienen la misma fecha de nacimiento (${date}) y nombres casi iguales (la fila ${line} es una de ellas): ` +
    'no parece una lista de personas distintas. Revise esas filas y vuelva a subir el archivo.',
} as const;
