import { ErrorSummary, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { PATIENT_FORM_LABELS, PatientFields } from './patient-form.js';

export function CreatePatientPage({ ctx, values, errors }: { ctx: PageContext; values: FormValues; errors: FieldErrors }) {
  return (
    <Layout ctx={ctx} title="Nuevo paciente">
      <p>
        <a href="/patients/">← Pacientes</a>
      </p>
      <h1>Nuevo paciente</h1>
      <p class="muted">Los campos marcados con * son obligatorios. Al guardar se abre su primer ciclo (ingreso) ACTIVO.</p>
      <form method="post" action="/patients/create/" novalidate class="patient-form">
        <CsrfField />
        <ErrorSummary errors={errors} labels={PATIENT_FORM_LABELS} intro="Revise los campos marcados: no se guardó nada." />
        <PatientFields values={values} errors={errors} />
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
