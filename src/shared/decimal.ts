// Decimals travel as integer hundredths (1,75 → 175) so they are stored and summed exactly, never as binary
// floating point. Parsing and formatting work on the digit strings; no float ever holds a user's value.

export type ParseDecimalResult = { ok: true; value: number } | { ok: false; error: string };

export const DECIMAL_INVALID_MESSAGE = 'Ingrese un número válido, con máximo 2 decimales.';
export const DECIMAL_NEGATIVE_MESSAGE = 'El valor no puede ser negativo.';
export function decimalMaxMessage(maxValueHundredths: number): string {
  return `El valor máximo es ${formatHundredths(maxValueHundredths)}.`;
}

// Digits, then optionally one separator ('.' or ',') and one or two digits. No sign, exponent, thousands
// separators or inner spaces: '1.000' is read as three decimals and refused rather than guessed at.
const DECIMAL = /^(\d+)(?:[.,](\d{1,2}))?$/;

/**
 * Parses '1,75', '1.75', '75', ' 75 ', '0,5' (→ 50) into hundredths, refusing anything above
 * `maxValueHundredths`.
 *
 * Decisions: any leading minus is refused with DECIMAL_NEGATIVE_MESSAGE, '-0' included (no field accepts a
 * sign). '.5' and '5.' are refused (a digit is needed on both sides of the separator). A blank string is
 * refused with DECIMAL_INVALID_MESSAGE; callers decide first whether blank means "no value" or a default.
 */
export function parseDecimalHundredths(input: string, maxValueHundredths: number): ParseDecimalResult {
  const s = input.trim();
  if (/^-\s*\d/.test(s)) return { ok: false, error: DECIMAL_NEGATIVE_MESSAGE };
  const m = DECIMAL.exec(s);
  if (!m) return { ok: false, error: DECIMAL_INVALID_MESSAGE };
  const integerDigits = (m[1] ?? '').replace(/^0+(?=\d)/, '');
  // Longer than any allowed maximum: answer before Number() could lose precision.
  if (integerDigits.length > 15) return { ok: false, error: decimalMaxMessage(maxValueHundredths) };
  const fraction = (m[2] ?? '').padEnd(2, '0');
  const value = Number(integerDigits) * 100 + Number(fraction);
  if (value > maxValueHundredths) return { ok: false, error: decimalMaxMessage(maxValueHundredths) };
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
 * 175 → '1,75', 25978300 → '259783,00'. This is the form re-fill format, and parseDecimalHundredths reads it
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
  const { sign, whole, cents } = splitHundredths(hundredths);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}$ ${grouped}${cents === '00' ? '' : `,${cents}`}`;
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
