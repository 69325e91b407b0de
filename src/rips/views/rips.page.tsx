import { ENTIDADES_SALUD, TIPOS_USUARIO, labelOf } from '../../patients/patient.rules.js';
import { FormError, SelectField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { RipsReview } from '../rips.actions.js';
import { addMonths, fechaAtencion, OPERACIONES, RIPS_MSG, RIPS_VERSION, servicioOf } from '../rips.rules.js';
import { servicioLabel } from '../rips.services.js';

export interface RipsPageProps {
  ctx: PageContext;
  values: FormValues;
  errors: FieldErrors;
  /** the month read, when the month and the insurer are valid */
  review: { mes: string; entidad: string; data: RipsReview } | null;
}

/**
 * /dashboard/rips/: for an insurer and the month of the services, every patient and service that goes in the RIPS
 * and every problem the validator would reject, each with a link to the record that fixes it; then the file's form.
 */
export function RipsPage({ ctx, values, errors, review }: RipsPageProps) {
  const queryErrors = Object.fromEntries(Object.entries(errors).filter(([k]) => k === 'mes' || k === 'entidad_salud'));
  const fileErrors = Object.fromEntries(Object.entries(errors).filter(([k]) => k !== 'mes' && k !== 'entidad_salud'));
  return (
    <Layout ctx={ctx} title="RIPS del mes">
      <h1>RIPS del mes</h1>
      <p class="muted">
        RIPS en JSON (Resolución 2275 de 2023, versión {RIPS_VERSION}) de los servicios de un mes para una entidad. Somno lo revisa antes de generarlo; la
        validación oficial (MUV) la hace el validador que la clínica tiene instalado. <a href="/users/rips/">Configuración del RIPS</a>
      </p>
      <form method="get" action="/dashboard/rips/" novalidate class="card">
        <FormError errors={queryErrors} />
        <div class="grid-2">
          <TextField name="mes" label="Mes de los servicios (AAAA-MM)" values={values} errors={queryErrors} required maxLength={7} />
          <SelectField name="entidad_salud" label="Entidad de salud" choices={ENTIDADES_SALUD} values={values} errors={queryErrors} required />
        </div>
        <button type="submit" class="button">
          Revisar el mes
        </button>
      </form>
      {review && <Review values={values} errors={fileErrors} review={review} />}
    </Layout>
  );
}

function Review({ values, errors, review }: { values: FormValues; errors: FieldErrors; review: NonNullable<RipsPageProps['review']> }) {
  const { data, mes, entidad } = review;
  const problems = data.problems;
  return (
    <>
      <section class="card" aria-labelledby="rips_summary">
        <h2 id="rips_summary">
          {entidad}, servicios de {mes}
        </h2>
        <p data-rips-patients={String(data.patientCount)} data-rips-services={String(data.serviceCount)}>
          {data.patientCount} paciente(s) con {data.serviceCount} servicio(s) en el periodo (los registros anulados no se reportan).
        </p>
      </section>
      <section class="card" aria-labelledby="rips_problems" id="problemas">
        <h2 id="rips_problems">Problemas</h2>
        {problems.length === 0 ? (
          <p data-rips-problems="0">Ningún problema: el RIPS se puede generar.</p>
        ) : (
          <>
            <p class="field-error" data-rips-problems={String(problems.length)}>
              {RIPS_MSG.problems(problems.length)}
            </p>
            <ul class="rips-problems">
              {problems.map((p) => (
                <li data-problem={p.kind} data-paciente={p.pacienteId === undefined ? undefined : String(p.pacienteId)} data-exam={p.examId === undefined ? undefined : String(p.examId)}>
                  {p.message} <a href={p.href}>Corregir</a>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <section class="card" aria-labelledby="rips_file">
        <h2 id="rips_file">Generar el archivo</h2>
        <p class="muted">
          CapitaPeriodo: la factura de cápita de {addMonths(mes, 1)} con los servicios de {mes}. CapitaFinal: los servicios de {mes} con la factura final. RS:
          RIPS sin factura.
        </p>
        <form method="get" action="/dashboard/rips.json" novalidate>
          <FormError errors={errors} />
          <input type="hidden" name="mes" value={mes} />
          <input type="hidden" name="entidad_salud" value={entidad} />
          <div class="grid-2">
            <SelectField name="operacion" label="Operación" choices={OPERACIONES} values={values} errors={errors} required />
            <TextField name="factura" label="Número de factura (numFactura)" values={values} errors={errors} maxLength={20} hint="Prefijo y número, p. ej. FEV1234. Vacío solo para RS." />
          </div>
          <button type="submit" class="button primary" disabled={problems.length > 0}>
            Descargar RIPS (JSON)
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="rips_list">
        <h2 id="rips_list">Pacientes y servicios</h2>
        {data.truncated && <p class="muted">Se muestran los primeros {data.patients.length} pacientes de {data.patientCount}; los problemas de todos están arriba.</p>}
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Pacientes y servicios">
          <table class="table" data-table="rips-services">
            <thead>
              <tr>
                <th scope="col">Paciente</th>
                <th scope="col">Tipo de usuario</th>
                <th scope="col">Fecha y hora</th>
                <th scope="col">Servicio</th>
                <th scope="col">CUPS</th>
                <th scope="col">Profesional</th>
              </tr>
            </thead>
            <tbody>
              {data.patients.flatMap((p) =>
                p.services.map((s, i) => (
                  <tr data-paciente={String(p.row.id)} data-exam={String(s.svc.id)}>
                    <td data-label="Paciente">
                      {i === 0 ? (
                        <a href={`/patients/${p.row.id}/`}>
                          {p.row.nombre} {p.row.apellido} · {p.row.tipo_documento} {p.row.documento}
                        </a>
                      ) : (
                        ''
                      )}
                    </td>
                    <td data-label="Tipo de usuario">{i === 0 ? (p.row.tipo_usuario === '' ? 'Sin registrar' : labelOf(TIPOS_USUARIO, p.row.tipo_usuario)) : ''}</td>
                    <td data-label="Fecha y hora">{fechaAtencion(s.svc)}</td>
                    <td data-label="Servicio">{servicioLabel(servicioOf(s.svc))}{s.svc.nombre_examen ? ` (${s.svc.nombre_examen})` : ''}</td>
                    <td data-label="CUPS">{s.entry ? `${s.entry.cups} · ${s.entry.bloque}` : 'Sin código'}</td>
                    <td data-label="Profesional">
                      {s.svc.prof_username}
                      {s.svc.prof_documento ? ` · ${s.svc.prof_tipo_documento} ${s.svc.prof_documento}` : ''}
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
