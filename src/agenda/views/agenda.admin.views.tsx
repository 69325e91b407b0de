// The agenda's administration pages (issue 28), for administrators: the visit plans in editions, the clinic's hours
// and place, and the resources.
import { formatDateEs, formatDateTimeEs } from '../../shared/dates.js';
import { ErrorSummary, SelectField, TextField, type Choice, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { EditionLineRow, EditionRow } from '../agenda.admin.repository.js';
import { CLASES_RECURSO, claseLabel, lineFields, LUGAR_MAX, PLAN_FORM_LINES, PROGRAMAS_PLAN, RECURSO_NOMBRE_MAX, repeatText } from '../agenda.admin.rules.js';

const EXAM_LABEL: Record<string, string> = { MONITOREO: 'Monitoreo', PSICOLOGIA: 'Psicología', OTRO: 'Sin examen (consulta)' };

const EDITION_LABELS: Record<string, string> = {
  programa: 'Programa',
  vigente_desde: 'Rige desde',
  ...Object.fromEntries(
    Array.from({ length: PLAN_FORM_LINES }, (_, i) => {
      const f = lineFields(i + 1);
      return [
        [f.tipo, `Visita ${i + 1}: tipo`],
        [f.dia, `Visita ${i + 1}: día`],
        [f.repeticiones, `Visita ${i + 1}: veces`],
        [f.intervalo, `Visita ${i + 1}: cada cuántos días`],
      ];
    }).flat(),
  ),
};

export interface PlansPageProps {
  ctx: PageContext;
  editions: EditionRow[];
  lines: EditionLineRow[];
  today: string;
  timeZone: string;
  tipos: Choice[];
  values: FormValues;
  errors: FieldErrors;
}

/** The edition in force today for each program: the latest one from today or before. */
function inForceIds(editions: EditionRow[], today: string): Set<number> {
  const out = new Set<number>();
  for (const p of PROGRAMAS_PLAN) {
    const current = editions.filter((e) => e.programa === p.value && e.vigente_desde <= today).sort((a, b) => (a.vigente_desde < b.vigente_desde ? 1 : -1))[0];
    if (current) out.add(current.id);
  }
  return out;
}

/** GET /users/agenda/planes/: each program's plan editions with their visits, and the form of a new edition. */
export function PlansPage(p: PlansPageProps) {
  const inForce = inForceIds(p.editions, p.today);
  return (
    <Layout ctx={p.ctx} title="Planes de visitas">
      <p>
        <a href="/users/agenda/">← Agenda: horario, lugar y recursos</a>
      </p>
      <h1>Planes de visitas</h1>
      <p class="muted">
        Cada ciclo sigue la edición del plan de su programa vigente el día en que empezó. Una edición nueva rige solo para los ciclos que empiecen
        desde su fecha: las visitas ya planeadas no cambian.
      </p>
      {PROGRAMAS_PLAN.map((prog) => (
        <section class="card" data-programa={prog.value}>
          <h2>{prog.label}</h2>
          {p.editions
            .filter((e) => e.programa === prog.value)
            .map((e) => {
              const state = inForce.has(e.id) ? 'vigente' : e.vigente_desde > p.today ? 'futura' : 'anterior';
              return (
                <div class="plan-edition" data-edition={String(e.id)} data-estado={state}>
                  <h3>
                    Desde el {formatDateEs(e.vigente_desde)}
                    {state === 'vigente' ? ' (vigente)' : state === 'futura' ? ' (programada)' : ' (anterior)'}
                  </h3>
                  <p class="muted">
                    Publicada {formatDateTimeEs(e.created_at, p.timeZone)}
                    {e.creado_por ? ` por ${e.creado_por}` : ''}
                  </p>
                  <div class="table-wrap" tabIndex={0} role="region" aria-label={`Visitas de la edición desde ${e.vigente_desde}`}>
                    <table class="table table-compact">
                      <thead>
                        <tr>
                          <th scope="col">Visita</th>
                          <th scope="col">Examen que la registra</th>
                          <th scope="col">Día desde el inicio</th>
                          <th scope="col">Repeticiones</th>
                        </tr>
                      </thead>
                      <tbody>
                        {p.lines
                          .filter((l) => l.plan_id === e.id)
                          .map((l) => (
                            <tr data-tipo={l.tipo}>
                              <td data-label="Visita">{l.tipo_nombre}</td>
                              <td data-label="Examen que la registra">
                                {EXAM_LABEL[l.examen] ?? l.examen}
                                {l.examen_tipo ? ` · ${l.examen_tipo}` : ''}
                              </td>
                              <td data-label="Día desde el inicio">{l.dia}</td>
                              <td data-label="Repeticiones">{repeatText(l)}</td>
                            </tr>
                          ))}
                      </tbody>
                    </table>
                  </div>
                </div>
              );
            })}
          <p>
            <a href={`/users/agenda/planes/?programa=${encodeURIComponent(prog.value)}#nueva`}>Nueva edición a partir de la más reciente</a>
          </p>
        </section>
      ))}
      <section class="card" id="nueva">
        <h2>Publicar una edición nueva</h2>
        <form method="post" action="/users/agenda/planes/" novalidate>
          <CsrfField />
          <ErrorSummary errors={p.errors} labels={EDITION_LABELS} intro="No se publicó la edición: revise los campos marcados." />
          <div class="grid-2">
            <SelectField name="programa" label={EDITION_LABELS.programa!} choices={PROGRAMAS_PLAN} values={p.values} errors={p.errors} required />
            <TextField name="vigente_desde" label={EDITION_LABELS.vigente_desde!} type="date" values={p.values} errors={p.errors} required hint="Hoy o una fecha futura, posterior a la última edición." />
          </div>
          <p class="muted">
            Una fila por visita: el día del primer vencimiento contado desde el inicio del ciclo; si se repite, cuántas veces y cada cuántos días (por
            ejemplo 8 veces cada 14 días). Deje vacías las filas que no use.
          </p>
          {Array.from({ length: PLAN_FORM_LINES }, (_, i) => {
            const f = lineFields(i + 1);
            return (
              <fieldset class="plan-line" data-line={String(i + 1)}>
                <legend>Visita {i + 1}</legend>
                <div class="fields">
                  <SelectField name={f.tipo} label="Tipo de visita" choices={p.tipos} values={p.values} errors={p.errors} placeholder="(sin visita)" />
                  <TextField name={f.dia} label="Día desde el inicio" inputMode="numeric" values={p.values} errors={p.errors} />
                  <TextField name={f.repeticiones} label="Veces" inputMode="numeric" values={p.values} errors={p.errors} hint="1 si no se repite" />
                  <TextField name={f.intervalo} label="Cada cuántos días" inputMode="numeric" values={p.values} errors={p.errors} />
                </div>
              </fieldset>
            );
          })}
          <button type="submit" class="button primary">
            Publicar edición
          </button>
        </form>
      </section>
    </Layout>
  );
}

const SETTINGS_LABELS = { hora_apertura: 'Hora de apertura', hora_cierre: 'Hora de cierre', lugar: 'Lugar (lo dicen los recordatorios)' } as const;
const RECURSO_LABELS = { nombre: 'Nombre', clase: 'Clase', activo: 'Se ofrece para citas nuevas' } as const;

export interface AgendaSettingsPageProps {
  ctx: PageContext;
  settings: FormValues;
  recursos: { id: number; nombre: string; clase: string; activo: number; citas: number | null }[];
  /** The form posted and refused: which, its values and errors. */
  posted: { form: 'ajustes' | 'recurso_nuevo' | number; values: FormValues; errors: FieldErrors } | null;
}

/** GET /users/agenda/: the clinic's hours and place, and its resources (rooms, polygraphs, CPAP devices). */
export function AgendaSettingsPage({ ctx, settings, recursos, posted }: AgendaSettingsPageProps) {
  const sVals = posted?.form === 'ajustes' ? posted.values : settings;
  const sErr = posted?.form === 'ajustes' ? posted.errors : {};
  const nVals = posted?.form === 'recurso_nuevo' ? posted.values : {};
  const nErr = posted?.form === 'recurso_nuevo' ? posted.errors : {};
  return (
    <Layout ctx={ctx} title="Configuración de la agenda">
      <h1>Configuración de la agenda</h1>
      <p class="actions">
        <a class="button" href="/users/agenda/planes/">
          Planes de visitas
        </a>
        <a class="button" href="/agenda/">
          Ir a la agenda
        </a>
      </p>
      <section class="card" id="horario">
        <h2>Horario y lugar de la clínica</h2>
        <p class="muted">Una cita debe empezar y terminar dentro del horario. Los cambios quedan en la auditoría.</p>
        <form method="post" action="/users/agenda/" novalidate>
          <CsrfField />
          <ErrorSummary errors={sErr} labels={SETTINGS_LABELS} intro="No se guardó: revise los campos marcados." />
          <div class="grid-2">
            <TextField name="hora_apertura" label={SETTINGS_LABELS.hora_apertura} inputMode="numeric" values={sVals} errors={sErr} required hint="HH:MM, 24 horas" maxLength={5} />
            <TextField name="hora_cierre" label={SETTINGS_LABELS.hora_cierre} inputMode="numeric" values={sVals} errors={sErr} required hint="HH:MM, 24 horas" maxLength={5} />
          </div>
          <TextField name="lugar" label={SETTINGS_LABELS.lugar} values={sVals} errors={sErr} required maxLength={LUGAR_MAX} />
          <button type="submit" class="button primary">
            Guardar horario y lugar
          </button>
        </form>
      </section>
      <section class="card" id="recursos">
        <h2>Recursos</h2>
        <p class="muted">Un recurso desactivado no se ofrece para citas nuevas; las citas que ya lo tenían lo conservan.</p>
        {recursos.map((r) => {
          const mine = posted?.form === r.id;
          const v = mine ? posted.values : { nombre: r.nombre, activo: r.activo === 1 ? '1' : '' };
          const err = mine ? posted.errors : {};
          const prefix = `r${r.id}_`;
          return (
            <form method="post" action={`/users/agenda/recursos/${r.id}/`} class="resource-form" novalidate data-recurso={String(r.id)} data-activo={r.activo === 1 ? '1' : '0'}>
              <CsrfField />
              <ErrorSummary errors={err} labels={RECURSO_LABELS} intro="No se guardó el recurso." idPrefix={prefix} />
              <h3>
                {r.nombre} <small class="muted">· {claseLabel(r.clase)} · {r.citas ?? 0} citas</small>
              </h3>
              <div class="grid-2">
                <TextField name="nombre" label={RECURSO_LABELS.nombre} values={v} errors={err} required maxLength={RECURSO_NOMBRE_MAX} idPrefix={prefix} />
                <div class="checkbox-field">
                  <input type="checkbox" id={`id_${prefix}activo`} name="activo" value="1" checked={v.activo === '1'} />
                  <label for={`id_${prefix}activo`}>{RECURSO_LABELS.activo}</label>
                </div>
              </div>
              <button type="submit" class="button">
                Guardar {r.nombre}
              </button>
            </form>
          );
        })}
        <h3>Agregar un recurso</h3>
        <form method="post" action="/users/agenda/recursos/" novalidate>
          <CsrfField />
          <ErrorSummary errors={nErr} labels={RECURSO_LABELS} intro="No se agregó el recurso: revise los campos marcados." idPrefix="nuevo_" />
          <div class="grid-2">
            <TextField name="nombre" label={RECURSO_LABELS.nombre} values={nVals} errors={nErr} required maxLength={RECURSO_NOMBRE_MAX} idPrefix="nuevo_" />
            <SelectField name="clase" label={RECURSO_LABELS.clase} choices={CLASES_RECURSO} values={nVals} errors={nErr} required idPrefix="nuevo_" />
          </div>
          <button type="submit" class="button primary">
            Agregar recurso
          </button>
        </form>
      </section>
    </Layout>
  );
}
