import { ErrorSummary, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { formatDateEs } from '../../shared/dates.js';
import { documentoHolderLink, PATIENT_FORM_LABELS, PatientFields } from './patient-form.js';
import { OTHER_PERSON_FIELD } from '../patient.schema.js';


interface SimilarPerson {
  id: number;
  nombre: string;
  apellido: string;
  documento: string;
  fecha_nacimiento: string;
}

/** Patients with the same birth date and a similar name: links to each, and the "es otra persona" confirmation. */
function SimilarPeopleWarning({ similar }: { similar: readonly SimilarPerson[] }) {
  return (
    <div class="message message-warning duplicate-warning" role="alert" data-message-level="warning" data-duplicate-warning="">
      <p>
        <strong>¿Ya está registrado?</strong> {similar.length === 1 ? 'Hay un paciente' : `Hay ${similar.length} pacientes`} con la misma fecha de
        nacimiento y un nombre parecido. No se guardó nada.
      </p>
      <ul>
        {similar.map((p) => (
          <li>
            <a href={`/patients/${p.id}/`} data-similar-patient-id={String(p.id)}>
              {p.nombre} {p.apellido}
            </a>{' '}
            · documento {p.documento} · nacido(a) el {formatDateEs(p.fecha_nacimiento)}
          </li>
        ))}
      </ul>
      <p class="field check">
        <label>
          <input type="checkbox" name={OTHER_PERSON_FIELD} value="1" /> Confirmo que es otra persona y quiero registrarla
        </label>
      </p>
    </div>
  );
}

export function CreatePatientPage({
  ctx,
  values,
  errors,
  similar = [],
  documentoHolder = null,
}: {
  ctx: PageContext;
  values: FormValues;
  errors: FieldErrors;
  similar?: readonly SimilarPerson[];
  documentoHolder?: { id: number; name: string } | null;
}) {
  return (
    <Layout ctx={ctx} title="Nuevo paciente">
      <p>
        <a href="/patients/">← Pacientes</a>
      </p>
      <h1>Nuevo paciente</h1>
      <p>
        <a href="/patients/import/">Importar pacientes desde una hoja de cálculo</a>
      </p>
      <p class="muted">Los campos marcados con * son obligatorios. Al guardar se abre su primer ciclo (ingreso) ACTIVO.</p>
      <form method="post" action="/patients/create/" novalidate class="patient-form">
        <CsrfField />
        <ErrorSummary errors={errors} labels={PATIENT_FORM_LABELS} intro="Revise los campos marcados: no se guardó nada." />
        {similar.length > 0 && <SimilarPeopleWarning similar={similar} />}
        <PatientFields values={values} errors={errors} errorLinks={documentoHolderLink(documentoHolder)} />
        <div class="actions">
          <button type="submit" class="button primary">
            Guardar paciente
          </button>
          <a href="/patients/" class="button">
            Cancelar
          </a>
        </div>
      </form>
    </Layout>
  );
}
