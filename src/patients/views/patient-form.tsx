import { DEPARTAMENTOS, municipiosOf } from '../divipola.js';
import {
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  ESTRATOS,
  GENEROS,
  MAX_LENGTHS,
  PROGRAMAS,
  TIPOS_DOCUMENTO,
  ZONAS,
  type Choice,
} from '../patient.rules.js';
import { SelectField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { DIVIPOLA_CATALOGUE_URL } from '../divipola.catalogue.js';
import { formLabel } from '../../shared/field-defs.js';
import { PATIENT_FIELDS, type PatientFieldName } from '../patient.fields.js';

/** A field's label, from the definitions the history reads too. */
const L = (name: PatientFieldName): string => formLabel(PATIENT_FIELDS[name]);

/** The form's labels by field name, in form order (the error summary lists the fields in error with them). */
export const PATIENT_FORM_LABELS: Readonly<Record<string, string>> = Object.fromEntries(
  (Object.keys(PATIENT_FIELDS) as PatientFieldName[]).map((name) => [name, L(name)]),
);

/** Options as strings, plus the posted value when it is not one of them, so an invalid choice is shown again. */
function withPosted(choices: readonly Choice<string | number>[], posted: string): { value: string; label: string }[] {
  const list = choices.map((c) => ({ value: String(c.value), label: c.value === c.label ? c.label : `${c.value} · ${c.label}` }));
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
      choices={withPosted(props.choices, props.values[props.name] ?? '')}
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

/** Every field of the patient form, in the fieldsets a person scans: decisions §4. */
export function PatientFields({ values, errors }: { values: FormValues; errors: FieldErrors }) {
  const v = values;
  const e = errors;
  // The server narrows the cities to the chosen department (so it works with scripts off); app.js does it live.
  const municipios = municipiosOf(v.departamento || 'SANTANDER');
  return (
    <>
      <fieldset>
        <legend>Identificación</legend>
        <div class="fields">
          <TextField name="nombre" label={L('nombre')} values={v} errors={e} required maxLength={MAX_LENGTHS.nombre} />
          <TextField name="apellido" label={L('apellido')} values={v} errors={e} required maxLength={MAX_LENGTHS.apellido} />
          <Choose name="tipo_documento" label={L('tipo_documento')} choices={TIPOS_DOCUMENTO} values={v} errors={e} />
          <TextField name="documento" label={L('documento')} values={v} errors={e} required maxLength={MAX_LENGTHS.documento} />
          <TextField name="fecha_nacimiento" label={L('fecha_nacimiento')} type="date" values={v} errors={e} required />
          <Choose name="genero" label={L('genero')} choices={GENEROS} values={v} errors={e} />
          <Choose name="estado_civil" label={L('estado_civil')} choices={ESTADOS_CIVILES} values={v} errors={e} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Contacto</legend>
        <div class="fields">
          <TextField name="telefono" label={L('telefono')} type="tel" values={v} errors={e} required maxLength={MAX_LENGTHS.telefono} />
          <TextField name="celular" label={L('celular')} type="tel" values={v} errors={e} required maxLength={MAX_LENGTHS.celular} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Ubicación</legend>
        <div class="fields">
          <PlaceSelect name="departamento" label={L('departamento')} options={DEPARTAMENTOS} values={v} errors={e} required={false} hint="Si lo deja vacío: SANTANDER." />
          <PlaceSelect
            name="ciudad"
            label={L('ciudad')}
            options={municipios}
            values={v}
            errors={e}
            required
            hint="Municipios del departamento elegido."
          />
          <Choose name="zona" label={L('zona')} choices={ZONAS} values={v} errors={e} />
          <Choose name="estrato" label={L('estrato')} choices={ESTRATOS} values={v} errors={e} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Medidas</legend>
        <div class="fields">
          <TextField name="peso" label={L('peso')} inputMode="decimal" values={v} errors={e} hint="Ej.: 72,5 — hasta 999,99" />
          <TextField name="altura" label={L('altura')} inputMode="decimal" values={v} errors={e} hint="Ej.: 1,75 — hasta 99,99" />
          <TextField name="perimetro_abdominal" label={L('perimetro_abdominal')} inputMode="decimal" values={v} errors={e} hint="Hasta 999,99" />
          <TextField name="cuello" label={L('cuello')} inputMode="decimal" values={v} errors={e} hint="Hasta 999,99" />
        </div>
      </fieldset>
      <fieldset>
        <legend>Remisión</legend>
        <div class="fields">
          <TextField name="medico_remitente" label={L('medico_remitente')} values={v} errors={e} required maxLength={MAX_LENGTHS.medico_remitente} />
          <TextField name="especialidad" label={L('especialidad')} values={v} errors={e} required maxLength={MAX_LENGTHS.especialidad} />
          <Choose name="diagnostico_clinico" label={L('diagnostico_clinico')} choices={DIAGNOSTICOS} values={v} errors={e} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Programa</legend>
        <div class="fields">
          <Choose name="programa" label={L('programa')} choices={PROGRAMAS} values={v} errors={e} />
          <Choose name="entidad_salud" label={L('entidad_salud')} choices={ENTIDADES_SALUD} values={v} errors={e} />
          <TextField name="valor_capita" label={L('valor_capita')} inputMode="decimal" values={v} errors={e} hint="Si lo deja vacío: 259.783." />
          <TextField
            name="fecha_inicio_programa"
            label={L('fecha_inicio_programa')}
            type="date"
            values={v}
            errors={e}
            hint="Inicio del ciclo activo. Si lo deja vacío: hoy al crear; sin cambios al editar."
          />
        </div>
      </fieldset>
    </>
  );
}
