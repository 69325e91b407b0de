// Decimals travel as integer hundredths (1,75 → 175) so they are stored and summed exactly, never as binary
// floating point. Parsing and formatting work on the digit strings; no float ever holds a user's value.

export type ParseDecimalResult = { ok: true; value: number } | { ok: false; error: string };

export const DECIMAL_INVALID_MESSAGE = 'Ingrese un número válido, con máximo 2 decimales.';
export const DECIMAL_NEGATIVE_MESSAGE = 'El valor no puede ser negativo.';
export function decimalMaxMessage(maxValueHundredths: number): string {
  return `El valor máximo es ${formatHundredths(maxValueHundredths)}.`;
}

/**
 * What kind of number a field holds, which decides how `1.234` (one dot or comma and exactly three digits) is read
 * (decision 0069):
 * - 'money' (valor cápita: pesos, cents optional): a dot before three digits separates thousands, as the app
 *   itself shows money ('$ 259.783'); a leading '$' is allowed.
 * - 'measure' (peso, altura, perímetros, IAH…): the reading within the field's maximum is taken; when both are
 *   within it, the person is asked.
 */
export type DecimalKind = 'money' | 'measure';

/**
 * A value read both ways within the field's limits: the message shows both readings and how to write each so that
 * it cannot be misread; three decimals that are not zeros cannot be stored, so that reading gets the rule instead.
 */
export function decimalAmbiguousMessage(typed: string, thousands: string, decimal: string, decimalStorable: boolean): string {
  const both = `«${typed}» puede leerse como ${thousands} o como ${decimal}`;
  return decimalStorable
    ? `${both}: escriba ${thousands} (sin separador de miles) o ${decimal} (con coma decimal).`
    : `${both}: escriba ${thousands} si son miles; si son decimales, use máximo 2.`;
}
export const DECIMAL_GROUPING_MESSAGE = 'Los separadores de miles van cada tres cifras (por ejemplo 1.234.567 o 259.783,50).';
function decimalReadAboveMaxMessage(maxValueHundredths: number, typed: string, read: string): string {
  return `El valor máximo es ${formatHundredths(maxValueHundredths)}; «${typed}» se leyó como ${read}.`;
}

// Digit runs separated by single dots or commas; what the separators mean is decided below.
const SHAPE = /^\d+(?:[.,]\d+)*$/;
// The first group of a number written with thousands separators: one to three digits, no leading zero.
const FIRST_GROUP = /^[1-9]\d{0,2}$/;
const THREE = /^\d{3}$/;

const isGrouped = (groups: readonly string[]): boolean => FIRST_GROUP.test(groups[0] ?? '') && groups.slice(1).every((g) => THREE.test(g));

/** A reading of the typed text: the integer digits, the fraction's digits, and whether separators grouped thousands. */
interface Reading {
  whole: string;
  fraction: string;
  grouped: boolean;
}
type Read = { ok: true; reading: Reading } | { ok: false; error: string };
const reading = (whole: string, fraction: string, grouped: boolean): Read => ({ ok: true, reading: { whole, fraction, grouped } });
const refused = (error: string): Read => ({ ok: false, error });

/** Digits with a comma, without needless zeros: how a reading is shown in a message ('1', '234' → '1,234'; '1', '500' → '1,5'). */
function shownReading(whole: string, fraction: string): string {
  const w = whole.replace(/^0+(?=\d)/, '');
  const f = fraction.replace(/0+$/, '');
  return f === '' ? w : `${w},${f}`;
}

/**
 * How the separators of `s` (digits, dots and commas only) are meant:
 * - none: an integer;
 * - both a dot and a comma: the last one, written once, is the decimal separator; the other separates thousands
 *   ('259.783,50', and '1,234.5' as a spreadsheet in English writes it);
 * - one kind, more than once: thousands ('1.234.567');
 * - one separator with one or two digits after it: decimals ('72,5', '72.5');
 * - one separator with three digits after it and a first group of one to three digits ('1.234'): thousands or three
 *   decimals; money reads a dot as thousands, otherwise the reading within `max` is taken, and the person is asked
 *   when both are within it;
 * - anything else ('1.2345', '1234.567'): decimals, refused below when more than two are not zeros.
 */
function readSeparators(s: string, max: number, kind: DecimalKind): Read {
  const groups = s.split(/[.,]/);
  const seps = s.replace(/\d+/g, '');
  if (seps === '') return reading(s, '', false);
  const last = seps[seps.length - 1]!;
  const before = seps.slice(0, -1);
  if (before.includes(last) && before.replaceAll(last, '') !== '') return refused(DECIMAL_GROUPING_MESSAGE);
  if (before !== '' && !before.includes(last)) {
    // A dot and a comma: the other kind separates thousands, the last one the decimals.
    const integerGroups = groups.slice(0, -1);
    return isGrouped(integerGroups) ? reading(integerGroups.join(''), groups[groups.length - 1]!, true) : refused(DECIMAL_GROUPING_MESSAGE);
  }
  if (before !== '') return isGrouped(groups) ? reading(groups.join(''), '', true) : refused(DECIMAL_GROUPING_MESSAGE);
  const [whole, fraction] = groups as [string, string];
  if (fraction.length !== 3 || !FIRST_GROUP.test(whole)) return reading(whole, fraction, false);
  if (kind === 'money' && last === '.') return reading(whole + fraction, '', true);
  const thousandsFits = Number(whole + fraction) * 100 <= max;
  const decimalFits = Number(whole) * 1000 + Number(fraction) <= max * 10;
  if (thousandsFits && decimalFits) return refused(decimalAmbiguousMessage(s, whole + fraction, shownReading(whole, fraction), fraction.endsWith('0')));
  if (thousandsFits) return reading(whole + fraction, '', true);
  return reading(whole, fraction, false);
}

/**
 * Parses a number as a person in Colombia writes it into hundredths, refusing anything above `maxValueHundredths`:
 * '72,5' and '72.5' → 7250, '259.783' (money) → 25978300, '259.783,50' → 25978350, '1.234,5' → 123450. How the
 * separators are read: readSeparators (decision 0069). A fraction may be longer than two digits only with zeros
 * ('72,500' → 7250): no digit a person typed is dropped.
 *
 * Decisions: any leading minus is refused with DECIMAL_NEGATIVE_MESSAGE, '-0' included (no field accepts a
 * sign). '.5' and '5.' are refused (a digit is needed on both sides of a separator); so are spaces inside the number
 * and exponents. A blank string is refused with DECIMAL_INVALID_MESSAGE; callers decide first whether blank means
 * "no value" or a default.
 */
export function parseDecimalHundredths(input: string, maxValueHundredths: number, kind: DecimalKind = 'measure'): ParseDecimalResult {
  let s = input.trim();
  // '$ 259.783' as the record shows money, and '-$ 5' (refused below as negative).
  if (kind === 'money') s = s.replace(/^(-?)\s*\$\s*/, '$1');
  if (/^-\s*\d/.test(s)) return { ok: false, error: DECIMAL_NEGATIVE_MESSAGE };
  if (!SHAPE.test(s)) return { ok: false, error: DECIMAL_INVALID_MESSAGE };
  const read = readSeparators(s, maxValueHundredths, kind);
  if (!read.ok) return read;
  const { grouped } = read.reading;
  const fraction = read.reading.fraction.replace(/(?<=^\d\d)0+$/, '');
  if (fraction.length > 2) return { ok: false, error: DECIMAL_INVALID_MESSAGE };
  const integerDigits = read.reading.whole.replace(/^0+(?=\d)/, '');
  // Longer than any allowed maximum: answer before Number() could lose precision.
  if (integerDigits.length > 15) return { ok: false, error: decimalMaxMessage(maxValueHundredths) };
  const value = Number(integerDigits) * 100 + Number(fraction.padEnd(2, '0'));
  if (value > maxValueHundredths) {
    const typed = input.trim();
    return {
      ok: false,
      error: grouped && typed.length <= 24 ? decimalReadAboveMaxMessage(maxValueHundredths, typed, shownReading(integerDigits, fraction)) : decimalMaxMessage(maxValueHundredths),
    };
  }
  return { ok: true, value };
}

function splitHundredths(n: number): { sign: string; whole: string; cents: string } {
  if (!Number.isSafeInteger(n)) throw new RangeError(`Not an integer number of hundredths: ${n}`);
  const abs = Math.abs(n);
  return {
    sign: n < 0 ? '-' : '',
    whole: String(Math.floor(abs / 100)),
    cents: String(abs % 100).padStart(2, '0'),
  };
}

/**
 * Hundredths as a Colombian decimal with a comma and always two decimals, no thousands separator:
 * 175 → '1,75', 25978300 → '259783,00'. This is the form re-fill format of measurements, and parseDecimalHundredths reads it
 * back unchanged.
 */
export function formatHundredths(n: number): string {
  const { sign, whole, cents } = splitHundredths(n);
  return `${sign}${whole},${cents}`;
}

/**
 * Money in hundredths of a peso, shown as es-CO does ('$ 259.783', '$ 1.234.567,89'): '.' between thousands,
 * ',' before cents, cents only when not whole. Built by hand rather than with Intl so the output is an
 * ordinary space (Intl uses U+00A0) and does not depend on the ICU version.
 */
export function formatCop(hundredths: number): string {
  const amount = formatMoneyInput(hundredths);
  return amount.startsWith('-') ? `-$ ${amount.slice(1)}` : `$ ${amount}`;
}

/**
 * Money as the form shows it again, the amount of formatCop without '$ ' ('259.783', '259.783,50'):
 * parseDecimalHundredths(…, 'money') reads it back unchanged.
 */
export function formatMoneyInput(hundredths: number): string {
  const { sign, whole, cents } = splitHundredths(hundredths);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}${grouped}${cents === '00' ? '' : `,${cents}`}`;
}

/**
 * A measurement in hundredths for reading, es-CO style, without needless zeros: 1250 → '12,5', 3000 → '30',
 * 1234 → '12,34', -250 → '-2,5'.
 */
export function formatMeasure(hundredths: number): string {
  if (!Number.isSafeInteger(hundredths)) throw new RangeError(`Not an integer number of hundredths: ${hundredths}`);
  const abs = Math.abs(hundredths);
  const whole = Math.floor(abs / 100);
  const cents = abs % 100;
  const sign = hundredths < 0 ? '-' : '';
  if (cents === 0) return `${sign}${whole}`;
  return `${sign}${whole},${String(cents).padStart(2, '0').replace(/0$/, '')}`;
}
