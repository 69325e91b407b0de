import { z } from 'zod';
import type { FieldErrors, FormValues } from './fields.js';

const CSRF_FIELD = 'csrfmiddlewaretoken';
// Control characters other than tab and line breaks have no place in a form and PostgreSQL refuses NUL.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
/** No field of ours is longer than this; anything longer is refused before validation. */
const ABSURD_LENGTH = 10_000;

export interface ReadForm {
  values: FormValues;
  errors: FieldErrors;
}

/**
 * Reads a form-encoded body into one string per known field. A repeated field, a control character or an
 * absurd length is an error on that field; unknown fields are a form-wide error. Missing fields are ''.
 */
export function readForm(body: unknown, fields: readonly string[]): ReadForm {
  const values: FormValues = {};
  const errors: FieldErrors = {};
  const raw = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  for (const name of fields) {
    const value = raw[name];
    if (value === undefined || value === null) {
      values[name] = '';
    } else if (Array.isArray(value)) {
      values[name] = '';
      errors[name] = 'Este campo se envió más de una vez.';
    } else if (typeof value !== 'string') {
      values[name] = '';
      errors[name] = 'Valor no válido.';
    } else if (value.length > ABSURD_LENGTH) {
      values[name] = '';
      errors[name] = 'El texto es demasiado largo.';
    } else if (CONTROL.test(value)) {
      values[name] = value.replace(new RegExp(CONTROL.source, 'g'), '');
      errors[name] = 'Contiene caracteres no permitidos.';
    } else {
      values[name] = value;
    }
  }
  const unknown = Object.keys(raw).filter((k) => k !== CSRF_FIELD && !fields.includes(k));
  if (unknown.length > 0) {
    errors._form = `El formulario contiene campos desconocidos: ${unknown.slice(0, 5).map((k) => k.slice(0, 40)).join(', ')}.`;
  }
  return { values, errors };
}

export const hasErrors = (errors: FieldErrors): boolean => Object.keys(errors).length > 0;

/** A form's zod schema: an object of the posted fields, each read from its text (checks across fields allowed). */
export type FormSchema = z.ZodObject<Record<string, z.ZodType<unknown, string>>>;

/** What a form gives: the values to store, or one message per field; `values` is the form as read, to show again. */
export type ParsedForm<T> = { ok: true; data: T; values: FormValues } | { ok: false; errors: FieldErrors; values: FormValues };

/** Zod issues as one message per field (the first), keyed by field name; issues of the whole object go to `_form`. */
export function issuesToErrors(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '_form');
    errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * Validates a form already read (readForm's values and errors) with its schema. A field readForm refused keeps
 * readForm's message (its value is '' or without the control characters, so the schema's would mislead); any error,
 * readForm's `_form` included, fails the form.
 */
export function validateForm<S extends FormSchema>(values: FormValues, schema: S, readErrors: FieldErrors = {}): ParsedForm<z.output<S>> {
  const result = schema.safeParse(values);
  if (result.success && !hasErrors(readErrors)) return { ok: true, data: result.data, values };
  const errors = result.success ? { ...readErrors } : { ...issuesToErrors(result.error), ...readErrors };
  return { ok: false, errors, values };
}

/**
 * The one path of a posted form: reads exactly the schema's fields with readForm (repeated fields, control
 * characters, unknown fields), then validates them with the schema.
 */
export function parseForm<S extends FormSchema>(body: unknown, schema: S): ParsedForm<z.output<S>> {
  const read = readForm(body, Object.keys(schema.shape));
  return validateForm(read.values, schema, read.errors);
}

/**
 * A form schema whose rules depend on the request (today, the cycle's start, the user's name), built once: building
 * a zod object costs some 100 µs (zod compiles its parser), parsing one about 4 µs. `build` receives `context()`,
 * which the rules call to read the values given to the returned function; it answers only while that schema's
 * `safeParse` runs (zod parses synchronously) and throws anywhere else, so a rule cannot read another request's.
 */
export function withContext<C, S extends z.ZodType>(build: (context: () => C) => S): (context: C) => S {
  const unset: unique symbol = Symbol('no context');
  let current: C | typeof unset = unset;
  const schema = build(() => {
    if (current === unset) throw new Error('a form schema read its context outside safeParse');
    return current;
  });
  return (context) => {
    // The same schema (its shape, its types), with a safeParse that gives its rules this context.
    const bound = Object.create(schema) as S;
    const safeParse: typeof schema.safeParse = (data, params) => {
      const outer = current;
      current = context;
      try {
        return schema.safeParse(data, params);
      } finally {
        current = outer;
      }
    };
    Object.defineProperty(bound, 'safeParse', { value: safeParse });
    return bound;
  };
}

/** In a field's transform: puts `message` on the field and gives up on its value. */
export function fail(ctx: { addIssue: (issue: { code: 'custom'; message: string }) => void }, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/**
 * A rule across fields for a form schema's `.check()`: documento against tipo_documento, password2 against password,
 * a date against another. It runs even when other fields failed, so every problem is reported at once, and sees
 * only the fields whose own schema passed (the others are absent). `fail` puts a message beside a field; what the
 * rule returns replaces those fields' values (a city matched within its department).
 */
export function acrossFields<T extends Record<string, unknown>>(
  rule: (valid: Partial<T>, fail: (field: keyof T & string, message: string) => void) => Partial<T> | void,
): z.core.$ZodCheck<T> {
  return z.superRefine<T>(
    (value, ctx) => {
      const failed = new Set(ctx.issues.map((issue) => issue.path?.[0]));
      const valid: Partial<T> = {};
      for (const key of Object.keys(value) as (keyof T & string)[]) if (!failed.has(key)) valid[key] = value[key];
      const settled = rule(valid, (field, message) => ctx.addIssue({ code: 'custom', message, path: [field] }));
      if (settled) Object.assign(value, settled);
    },
    { when: () => true },
  );
}

/** A path id: a positive integer within range, or null (the route answers 404). */
export function parseId(raw: unknown): number | null {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw)) return null;
  const n = Number(raw);
  return n <= 2_147_483_647 ? n : null;
}

/** A single query-string value: repeated parameters and non-strings count as absent. */
export function queryValue(query: unknown, name: string): string | undefined {
  const v = (query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}

/** Thrown by parseFormBody; answered with a 400 page that says what was wrong. */
export class FormEncodingError extends Error {
  readonly statusCode = 400;
  readonly code = 'SOMNO_FORM_ENCODING';
  constructor() {
    super('form body is not valid UTF-8 percent-encoding');
  }
}

// Browsers percent-encode everything outside ASCII; other clients (curl -d) may send raw UTF-8, which is
// fine. Bytes that are not UTF-8 reach us as U+FFFD (the body is decoded before parsing): those are refused.
const UNDECODABLE = /\uFFFD/;

function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // A malformed escape or one that is not UTF-8 (%C3%28, %FF, a lone surrogate).
    throw new FormEncodingError();
  }
}

/**
 * Parses an application/x-www-form-urlencoded body strictly: invalid UTF-8, raw or percent-encoded, is refused
 * instead of being stored as replacement characters. A repeated name gives an array (readForm refuses it).
 */
export function parseFormBody(text: string): Record<string, string | string[]> {
  if (UNDECODABLE.test(text)) throw new FormEncodingError();
  const result: Record<string, string | string[]> = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    const previous = result[name];
    if (previous === undefined) result[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else result[name] = [previous, value];
  }
  return result;
}

/** The list URL with its filters (empty ones left out) and page, e.g. '/patients/?query_search=ana&page=2'. */
export function listUrl(base: string, params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === '') continue;
    search.set(k, String(v));
  }
  const s = search.toString();
  return s ? `${base}?${s}` : base;
}
