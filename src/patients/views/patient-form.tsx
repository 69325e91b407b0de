import { DEPARTAMENTOS, municipiosOf } from '../divipola.js';
import type { Choice } from '../patient.rules.js';
import { SelectField, TextField, type ErrorLink, type FieldErrors, type FormValues } from '../../web/fields.js';
import { cutMarkup, joinMarkup, markupByChoice, markupOf, markupTemplate, Prerendered, type Markup } from '../../web/render.js';
import { DIVIPOLA_CATALOGUE_URL } from '../divipola.catalogue.js';
import { formLabel } from '../../shared/field-defs.js';
import {
  PATIENT_FIELDS,
  PATIENT_FORM_FIELDS,
  PATIENT_FORM_SECTIONS,
  type PatientField,
  type PatientFieldName,
  type PatientFormSection,
} from '../patient.fields.js';

/** A field's label, from the definitions the history reads too. */
const L = (name: PatientFieldName): string => formLabel(PATIENT_FIELDS[name]);

/** The fields of each fieldset: the table's order, a field with `after` placed after that one. */
const SECTION_FIELDS: ReadonlyMap<PatientFormSection, readonly PatientFieldName[]> = new Map(
  PATIENT_FORM_SECTIONS.map((section) => {
    const inSection = PATIENT_FORM_FIELDS.filter((n) => PATIENT_FIELDS[n].form.section === section);
    const placed = inSection.filter((n) => !('after' in PATIENT_FIELDS[n].form));
    for (const n of inSection) {
      const after = (PATIENT_FIELDS[n].form as { after?: string }).after;
      if (after !== undefined) placed.splice(placed.indexOf(after as PatientFieldName) + 1, 0, n);
    }
    return [section, placed];
  }),
);

/** The form's labels by field name, in the form's order (the error summary lists the fields in error with them). */
export const PATIENT_FORM_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  PATIENT_FORM_SECTIONS.flatMap((section) => SECTION_FIELDS.get(section)!.map((name) => [name, L(name)])),
);

/**
 * The order the form offers some choices in, for the browser's type-ahead (decision 0112): typing a letter twice
 * goes to the second option starting with it, so «CC» lands on CC only when CE comes before it; «CE», «TI», «RC»,
 * «PA» and «PE» match by their two letters. Each option starts with its code, the words after it.
 */
const TYPEAHEAD_ORDER: Readonly<Record<string, readonly string[]>> = {
  tipo_documento: ['RC', 'TI', 'CE', 'CC', 'PA', 'PE'],
};

function inTypeaheadOrder(name: string, choices: readonly Choice<string | number>[]): readonly Choice<string | number>[] {
  const order = TYPEAHEAD_ORDER[name];
  if (!order) return choices;
  const rank = (c: Choice<string | number>) => {
    const i = order.indexOf(String(c.value));
    return i === -1 ? order.length : i;
  };
  return [...choices].sort((a, b) => rank(a) - rank(b));
}

/** Options as strings, plus the posted value when it is not one of them, so an invalid choice is shown again. */
function withPosted(choices: readonly Choice<string | number>[], posted: string): { value: string; label: string }[] {
  // A label that already begins with its code (RIPS's user types) is shown as it is: never «01 · 01 Contributivo…».
  const list = choices.map((c) => ({
    value: String(c.value),
    label: c.value === c.label || c.label.startsWith(`${c.value} `) ? c.label : `${c.value} · ${c.label}`,
  }));
  if (posted !== '' && !list.some((c) => c.value === posted)) list.push({ value: posted, label: `${posted} (no válido)` });
  return list;
}

function Choose(props: { name: string; label: string; choices: readonly Choice<string | number>[]; values: FormValues; errors: FieldErrors; required?: boolean }) {
  return (
    <SelectField
      name={props.name}
      label={props.label}
      values={props.values}
      errors={props.errors}
      required={props.required ?? true}
      choices={withPosted(inTypeaheadOrder(props.name, props.choices), props.values[props.name] ?? '')}
    />
  );
}

/**
 * Departamento and ciudad: like SelectField, plus the data-departamento / data-ciudad hooks that app.js uses
 * to narrow the city list in the browser (data-ciudad names the catalogue's URL).
 */
function PlaceSelect(props: {
  name: 'departamento' | 'ciudad';
  label: string;
  options: readonly string[];
  values: FormValues;
  errors: FieldErrors;
  required: boolean;
  hint?: string;
}) {
  const { name, label, values, errors, required, hint } = props;
  const current = values[name] ?? '';
  const options = current !== '' && !props.options.includes(current) ? [...props.options, current] : props.options;
  const error = errors[name];
  const describedBy = [error ? `error_${name}` : null, hint ? `hint_${name}` : null].filter(Boolean).join(' ');
  const hook = name === 'departamento' ? { 'data-departamento': '' } : { 'data-ciudad': DIVIPOLA_CATALOGUE_URL };
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={`id_${name}`}>
        {label}
        {required && (
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      <select
        id={`id_${name}`}
        name={name}
        required={required}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        {...hook}
      >
        <option value="">Seleccione…</option>
        {options.map((o) => (
          <option value={o} selected={o === current}>
            {props.options.includes(o) ? o : `${o} (no válido)`}
          </option>
        ))}
      </select>
      {hint && (
        <small class="hint" id={`hint_${name}`}>
          {hint}
        </small>
      )}
      {error && (
        <p class="field-error" id={`error_${name}`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** One field as the field table describes it; departamento and ciudad are the place selects. */
function PatientInput({ name, values, errors, errorLink }: { name: PatientFieldName; values: FormValues; errors: FieldErrors; errorLink?: ErrorLink | undefined }) {
  const def: PatientField<unknown> = PATIENT_FIELDS[name];
  if (name === 'departamento') {
    return <PlaceSelect name="departamento" label={L(name)} options={DEPARTAMENTOS} values={values} errors={errors} required={def.required} hint={def.form.hint} />;
  }
  if (name === 'ciudad') {
    // The server narrows the cities to the chosen department (so it works with scripts off); app.js does it live.
    const municipios = municipiosOf(values.departamento || 'SANTANDER');
    return <PlaceSelect name="ciudad" label={L(name)} options={municipios} values={values} errors={errors} required={def.required} hint={def.form.hint} />;
  }
  if (def.kind === 'choice') return <Choose name={name} label={L(name)} choices={def.choices as readonly Choice<string | number>[]} values={values} errors={errors} />;
  const decimal = def.kind === 'decimal' || def.kind === 'money';
  return (
    <TextField
      name={name}
      label={L(name)}
      type={def.form.input}
      inputMode={decimal ? 'decimal' : undefined}
      values={values}
      errors={errors}
      required={def.required || undefined}
      maxLength={def.maxLength}
      hint={def.form.hint}
      errorLink={errorLink}
    />
  );
}

/** Every field of the patient form, in the fieldsets a person scans: decisions §4. */
export function PatientFields({ values, errors, errorLinks = {} }: { values: FormValues; errors: FieldErrors; errorLinks?: Partial<Record<string, ErrorLink>> }) {
  // Without errors (every record page a GET serves) the form is markup rendered once, the values escaped into it.
  if (Object.keys(errors).length === 0) return <Prerendered markup={fieldsMarkup(values)} />;
  return (
    <>
      {PATIENT_FORM_SECTIONS.map((section) => (
        <fieldset>
          <legend>{section}</legend>
          <div class="fields">
            {SECTION_FIELDS.get(section)!.map((name) => (
              <PatientInput name={name} values={values} errors={errors} errorLink={errorLinks[name]} />
            ))}
          </div>
        </fieldset>
      ))}
    </>
  );
}

// ---------------------------------------------------------------------------------------------------------
// The form without errors, from markup rendered once (issue 30, decision 0160): its fields, labels, hints and
// option lists were most of a record page's render. Each field's markup depends on its own value only (the
// cities on the department too); the values are escaped as preact escapes them, so the bytes are those of the
// components above.

/** Stands for a value in a field rendered once: private-use characters, which nothing escapes or types. */
const HOLE = '\uF8FF\uF8FEvalor\uF8FE\uF8FF';

const NO_ERRORS: FieldErrors = Object.freeze({});

const departamentos = new Set(DEPARTAMENTOS);
const inputOf = (name: PatientFieldName, values: FormValues) => <PatientInput name={name} values={values} errors={NO_ERRORS} />;

/** A field's markup for a value: a text field's template, or a select's markup per chosen value. */
type FieldMarkup = (value: string, values: FormValues) => Markup;

function fieldMarkupOf(name: PatientFieldName): FieldMarkup {
  if (name === 'departamento') {
    const byValue = markupByChoice((v) => inputOf(name, { departamento: v }), (v) => v === '' || departamentos.has(v));
    return (value) => byValue(value);
  }
  if (name === 'ciudad') {
    // The cities offered are the department's (SANTANDER when none is chosen), as PatientInput does.
    const byDepartamento = new Map<string, (value: string) => Markup>();
    return (value, values) => {
      const departamento = values.departamento || 'SANTANDER';
      if (!departamentos.has(departamento)) return markupOf(inputOf(name, { departamento, ciudad: value }));
      let byValue = byDepartamento.get(departamento);
      if (byValue === undefined) {
        const municipios = new Set(municipiosOf(departamento));
        byValue = markupByChoice((v) => inputOf(name, { departamento, ciudad: v }), (v) => v === '' || municipios.has(v));
        byDepartamento.set(departamento, byValue);
      }
      return byValue(value);
    };
  }
  const def: PatientField<unknown> = PATIENT_FIELDS[name];
  if (def.kind === 'choice') {
    const known = new Set((def.choices as readonly Choice<string | number>[]).map((c) => String(c.value)));
    const byValue = markupByChoice((v) => inputOf(name, { [name]: v }), (v) => v === '' || known.has(v));
    return (value) => byValue(value);
  }
  const template = markupTemplate((v) => inputOf(name, { [name]: v }), HOLE);
  return (value) => template(value);
}

/** Each fieldset's markup around its fields, and each field's markup, made on first use. */
let sections: { around: [Markup, Markup]; fields: { name: PatientFieldName; markup: FieldMarkup }[] }[] | null = null;

function fieldsMarkup(values: FormValues): Markup {
  sections ??= PATIENT_FORM_SECTIONS.map((section) => ({
    around: cutMarkup(
      <fieldset>
        <legend>{section}</legend>
        <div class="fields">{HOLE}</div>
      </fieldset>,
      HOLE,
    ),
    fields: SECTION_FIELDS.get(section)!.map((name) => ({ name, markup: fieldMarkupOf(name) })),
  }));
  const pieces: Markup[] = [];
  for (const { around, fields } of sections) {
    pieces.push(around[0]);
    for (const { name, markup } of fields) pieces.push(markup(values[name] ?? '', values));
    pieces.push(around[1]);
  }
  return joinMarkup(pieces);
}

/** The link beside «Ya existe un paciente con este documento»: the record that holds it (issue 29, point 8). */
export const documentoHolderLink = (holder: { id: number; name: string } | null | undefined): Partial<Record<string, ErrorLink>> =>
  holder ? { documento: { href: `/patients/${holder.id}/`, text: `Ver la ficha de ${holder.name} (n.º ${holder.id}).` } } : {};
