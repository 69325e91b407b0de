import type { ComponentChildren } from 'preact';

/** Field errors by field name; a form-wide error goes under the key `_form`. */
export type FieldErrors = Record<string, string>;
/** What the person typed, kept as text so an invalid form comes back exactly as it was entered. */
export type FormValues = Record<string, string>;

interface BaseProps {
  name: string;
  label: string;
  values: FormValues;
  errors: FieldErrors;
  required?: boolean;
  hint?: string;
  /** Prefix for the element ids, when one page has several forms with the same field names. */
  idPrefix?: string;
}

function FieldShell({
  name,
  label,
  errors,
  required,
  hint,
  idPrefix = '',
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
        inputMode={inputMode as 'decimal' | undefined}
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
export function FormError({ errors }: { errors: FieldErrors }) {
  if (!errors._form) return null;
  return (
    <div class="message message-error" role="alert" data-message-level="error">
      {errors._form}
    </div>
  );
}
