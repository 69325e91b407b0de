import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { ErrorSummary, SelectField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { CANALES, canalLabel, longDateEs } from '../agenda.rules.js';

const LABELS = { canal: 'Canal', otorgado_el: 'Fecha en que lo otorgó', retirado_el: 'Fecha de retiro' } as const;

export interface ConsentPageProps {
  ctx: PageContext;
  patient: { id: number; nombre: string; apellido: string };
  consents: { id: number; canal: string; otorgado_el: string; retirado_el: string | null }[];
  values: FormValues;
  errors: FieldErrors;
}

/** GET /agenda/consentimiento/<patient>/: the patient's contact consents (Ley 1581 de 2012), given and withdrawn. */
export function ConsentPage(p: ConsentPageProps) {
  return (
    <Layout ctx={p.ctx} title="Consentimiento de contacto">
      <p>
        <a href={`/patients/${p.patient.id}/`}>← {`${p.patient.nombre} ${p.patient.apellido}`}</a>
      </p>
      <h1>Consentimiento de contacto: {`${p.patient.nombre} ${p.patient.apellido}`}</h1>
      <p>Ley 1581 de 2012: el paciente autoriza cada canal por separado y puede retirar la autorización en cualquier momento.</p>
      <ErrorSummary errors={p.errors} labels={LABELS} intro="No se guardó: revise los campos marcados." />
      <table class="table">
        <thead>
          <tr>
            <th scope="col">Canal</th>
            <th scope="col">Otorgado</th>
            <th scope="col">Retirado</th>
          </tr>
        </thead>
        <tbody>
          {p.consents.map((c) => (
            <tr data-consent={c.canal} data-vigente={c.retirado_el === null ? '1' : '0'}>
              <td data-label="Canal">{canalLabel(c.canal)}</td>
              <td data-label="Otorgado">{formatDateEs(c.otorgado_el)}</td>
              <td data-label="Retirado">
                {c.retirado_el !== null ? (
                  formatDateEs(c.retirado_el)
                ) : (
                  <form method="post" action={`/agenda/consentimiento/retirar/${c.id}/`} class="inline-form" novalidate>
                    <CsrfField />
                    <TextField name="retirado_el" idPrefix={`c${c.id}_`} label={LABELS.retirado_el} type="date" values={p.values} errors={{}} />
                    <button type="submit" class="button small">
                      Retirar
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action={`/agenda/consentimiento/${p.patient.id}/`} class="card narrow-form" novalidate>
        <h2>Registrar un consentimiento</h2>
        <CsrfField />
        <SelectField name="canal" label={LABELS.canal} choices={CANALES} values={p.values} errors={p.errors} required />
        <TextField name="otorgado_el" label={LABELS.otorgado_el} type="date" values={p.values} errors={p.errors} required />
        <button type="submit" class="button primary">
          Registrar
        </button>
      </form>
    </Layout>
  );
}

export interface ReminderRow {
  id: number;
  paciente_id: number;
  nombre: string;
  apellido: string;
  hora: string | null;
  tipo_nombre: string;
  celular: string;
  telefono: string | null;
  text: string;
  canales: string[];
  whatsapp: string | null;
  recordado_at: string | null;
  recordado_por: string | null;
}

/** GET /agenda/recordatorios/: tomorrow's booked visits, each with its reminder and the channels the patient allowed. */
export function RemindersPage({ ctx, fecha, rows, timeZone }: { ctx: PageContext; fecha: string; rows: ReminderRow[]; timeZone: string }) {
  return (
    <Layout ctx={ctx} title="Recordatorios">
      <h1>Recordatorios para el {longDateEs(fecha)}</h1>
      <p>Solo se ofrece un mensaje por los canales que el paciente autorizó.</p>
      {rows.length === 0 ? (
        <p>No hay citas agendadas ese día.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Hora</th>
              <th scope="col">Paciente</th>
              <th scope="col">Recordatorio</th>
              <th scope="col">Recordado</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr data-cita={String(r.id)}>
                <td data-label="Hora">{r.hora}</td>
                <td data-label="Paciente">
                  <a href={`/patients/${r.paciente_id}/`}>{`${r.nombre} ${r.apellido}`}</a>
                  <br />
                  <a href={`/agenda/consentimiento/${r.paciente_id}/`}>Consentimiento</a>
                </td>
                <td data-label="Recordatorio">
                  {r.canales.length === 0 ? (
                    <span data-sin-consentimiento>Sin consentimiento de contacto registrado.</span>
                  ) : (
                    <>
                      <p class="reminder-text" data-reminder-text>
                        {r.text}
                      </p>
                      <p>
                        {r.canales.includes('TELEFONO') && <span>Llamar: {r.celular}. </span>}
                        {r.canales.includes('SMS') && <span>SMS: {r.celular}. </span>}
                        {r.whatsapp && (
                          <a class="button small" href={r.whatsapp} target="_blank" rel="noopener noreferrer" data-whatsapp>
                            Abrir WhatsApp
                          </a>
                        )}
                      </p>
                    </>
                  )}
                </td>
                <td data-label="Recordado">
                  {r.recordado_at ? (
                    <span data-recordado>
                      {formatDateTimeEs(r.recordado_at, timeZone)} por {r.recordado_por ?? '—'}
                    </span>
                  ) : (
                    r.canales.length > 0 && (
                      <form method="post" action={`/agenda/citas/${r.id}/recordado/`} class="inline-form" novalidate>
                        <CsrfField />
                        <SelectField name="canal" idPrefix={`r${r.id}_`} label="Canal" choices={CANALES.filter((c) => r.canales.includes(c.value))} values={{ canal: r.canales[0] ?? '' }} errors={{}} />
                        <button type="submit" class="button small">
                          Marcar recordado
                        </button>
                      </form>
                    )
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

/** GET /agenda/calendario/: the acting user's feed addresses: create one (shown once), revoke. */
export function FeedPage({ ctx, feeds, newUrl, timeZone }: { ctx: PageContext; feeds: { id: number; created_at: string; revocado_at: string | null }[]; newUrl: string | null; timeZone: string }) {
  return (
    <Layout ctx={ctx} title="Mi calendario">
      <h1>Mi agenda en el calendario del teléfono</h1>
      <p>Una dirección secreta que su aplicación de calendario consulta. Muestra las iniciales del paciente y el tipo de cita, nunca su documento ni su diagnóstico.</p>
      {newUrl && (
        <div class="message message-success" data-feed-url>
          <p>Copie esta dirección ahora (no se volverá a mostrar):</p>
          <p>
            <code>{newUrl}</code>
          </p>
        </div>
      )}
      <form method="post" action="/agenda/calendario/" class="actions" novalidate>
        <CsrfField />
        <button type="submit" class="button primary">
          Crear una dirección
        </button>
      </form>
      <table class="table table-compact">
        <thead>
          <tr>
            <th scope="col">Creada</th>
            <th scope="col">Estado</th>
          </tr>
        </thead>
        <tbody>
          {feeds.map((f) => (
            <tr>
              <td data-label="Creada">{formatDateTimeEs(f.created_at, timeZone)}</td>
              <td data-label="Estado">
                {f.revocado_at ? (
                  `Revocada el ${formatDateTimeEs(f.revocado_at, timeZone)}`
                ) : (
                  <form method="post" action={`/agenda/calendario/${f.id}/revocar/`} class="inline-form" novalidate>
                    <CsrfField />
                    <button type="submit" class="button small danger">
                      Revocar
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
