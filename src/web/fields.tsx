import type { ComponentChildren } from 'preact';

/** Field errors by field name; a form-wide error goes under the key `_form`. */
export type FieldErrors = Record<string, string>;
/** What the person typed, kept as text so an invalid form comes back exactly as it was entered. */
export type FormValues = Record<string, string>;
/** A link shown after a field's error: the record the error is about (a documento already registered). */
export interface ErrorLink {
  href: string;
  text: string;
}

interface BaseProps {
  name: string;
  label: string;
  values: FormValues;
  errors: FieldErrors;
  required?: boolean;
  hint?: string;
  /** Prefix for the element ids, when one page has several forms with the same field names. */
  idPrefix?: string;
  /** shown after the field's error, when it has one */
  errorLink?: ErrorLink | undefined;
}

function FieldShell({
  name,
  label,
  errors,
  required,
  hint,
  idPrefix = '',
  errorLink,
  children,
}: Omit<BaseProps, 'values'> & { children: ComponentChildren }) {
  const error = errors[name];
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={`id_${idPrefix}${name}`}>
        {label}
        {required && (
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children}
      {hint && (
        <small class="hint" id={`hint_${idPrefix}${name}`}>
          {hint}
        </small>
      )}
      {error && (
        <p class="field-error" id={`error_${idPrefix}${name}`}>
          {error}
        </p>
      )}
      {error && errorLink && (
        <p class="field-error-link">
          <a href={errorLink.href} data-error-link>
            {errorLink.text}
          </a>
        </p>
      )}
    </div>
  );
}

const aria = (name: string, errors: FieldErrors, hint?: string, idPrefix = '') => {
  const describedBy = [errors[name] ? `error_${idPrefix}${name}` : null, hint ? `hint_${idPrefix}${name}` : null].filter(Boolean);
  return {
    'aria-invalid': errors[name] ? ('true' as const) : undefined,
    'aria-describedby': describedBy.length > 0 ? describedBy.join(' ') : undefined,
  };
};

export function TextField(
  props: BaseProps & { maxLength?: number; type?: 'text' | 'tel' | 'date' | 'password' | 'search'; inputMode?: string; autocomplete?: string },
) {
  const { name, values, errors, required, maxLength, type = 'text', hint, inputMode, autocomplete, idPrefix = '' } = props;
  return (
    <FieldShell {...props}>
      <input
        id={`id_${idPrefix}${name}`}
        name={name}
        type={type}
        value={values[name] ?? ''}
        required={required}
        maxLength={maxLength}
        inputMode={inputMode}
        autocomplete={autocomplete}
        {...aria(name, errors, hint, idPrefix)}
      />
    </FieldShell>
  );
}

export function TextAreaField(props: BaseProps & { maxLength?: number; rows?: number }) {
  const { name, values, errors, required, maxLength, rows = 3, hint, idPrefix = '' } = props;
  return (
    <FieldShell {...props}>
      <textarea
        id={`id_${idPrefix}${name}`}
        name={name}
        required={required}
        maxLength={maxLength}
        rows={rows}
        {...aria(name, errors, hint, idPrefix)}
      >
        {values[name] ?? ''}
      </textarea>
    </FieldShell>
  );
}

export interface Choice {
  value: string;
  label: string;
}

export function SelectField(props: BaseProps & { choices: readonly Choice[]; placeholder?: string }) {
  const { name, values, errors, required, choices, placeholder = 'Seleccione…', hint, idPrefix = '' } = props;
  const current = values[name] ?? '';
  return (
    <FieldShell {...props}>
      <select id={`id_${idPrefix}${name}`} name={name} required={required} {...aria(name, errors, hint, idPrefix)}>
        <option value="">{placeholder}</option>
        {choices.map((c) => (
          <option value={c.value} selected={c.value === current}>
            {c.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

/** The form-wide error, if any, shown above the fields. */
export function FormError({ errors, focus = false }: { errors: FieldErrors; focus?: boolean }) {
  if (!errors._form) return null;
  // `focus`: it takes the focus when the page opens, as ErrorSummary does (app.js too); unlabelled, so that it never
  // answers for a field's label.
  const focusable = focus ? { tabIndex: -1, autofocus: true, 'data-error-summary': true } : {};
  return (
    <div class="message message-error" role="alert" data-message-level="error" {...focusable}>
      {errors._form}
    </div>
  );
}

/**
 * What is wrong with a posted form, above its fields: the form-wide error, then every field in error by its
 * label, each a link to the field. It takes the focus when the page opens (autofocus; app.js as well), so a
 * person using a screen reader or a keyboard starts from it. Nothing when there are no errors.
 */
export function ErrorSummary({
  errors,
  labels,
  intro,
  idPrefix = '',
}: {
  errors: FieldErrors;
  /** labels of the form's fields, by name, in form order */
  labels: Readonly<Record<string, string>>;
  intro: string;
  idPrefix?: string;
}) {
  const names = Object.keys(errors).filter((n) => n !== '_form');
  if (names.length === 0 && !errors._form) return null;
  const ordered = [...Object.keys(labels).filter((n) => names.includes(n)), ...names.filter((n) => !(n in labels))];
  const titleId = `error_summary_${idPrefix}title`;
  return (
    <div class="message message-error error-summary" role="alert" data-message-level="error" data-error-summary tabIndex={-1} autofocus aria-labelledby={titleId}>
      <p id={titleId} class="error-summary-title">
        {errors._form ?? intro}
      </p>
      {ordered.length > 0 && (
        <ul>
          {ordered.map((name) => (
            <li>
              <a href={`#id_${idPrefix}${name}`}>
                {labels[name] ?? name}: {errors[name]}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
