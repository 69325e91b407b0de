import { formatDateEs } from '../../shared/dates.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import type { DateViolationRow, ListedDateRule } from '../date-violations.repository.js';

/** Each rule in a few words, and what one row that breaks it says (its date, then the date it conflicts with). */
const RULES: Record<ListedDateRule, { title: string; says: (r: DateViolationRow) => string }> = {
  exam_outside_cycle: {
    title: 'Examen fuera de su ciclo',
    says: (r) =>
      r.fecha < r.against
        ? `El examen n.º ${r.record_id} es del ${formatDateEs(r.fecha)}, antes del inicio del ciclo (${formatDateEs(r.against)}).`
        : `El examen n.º ${r.record_id} es del ${formatDateEs(r.fecha)}, después de la terminación del ciclo (${formatDateEs(r.against)}).`,
  },
  start_before_birth: {
    title: 'Ciclo que empieza antes del nacimiento',
    says: (r) => `El ciclo empieza el ${formatDateEs(r.fecha)}; la fecha de nacimiento es el ${formatDateEs(r.against)}.`,
  },
  end_before_start: {
    title: 'Ciclo que termina antes de empezar',
    says: (r) => `El ciclo termina el ${formatDateEs(r.fecha)} y empieza el ${formatDateEs(r.against)}.`,
  },
  start_after_status_change: {
    title: 'Ciclo que empieza después de un cambio de estado',
    says: (r) => `El ciclo empieza el ${formatDateEs(r.fecha)}; su primer cambio de estado es del ${formatDateEs(r.against)}.`,
  },
  end_before_status_change: {
    title: 'Terminación anterior a un cambio de estado',
    says: (r) => `El ciclo termina el ${formatDateEs(r.fecha)}; su último cambio de estado es del ${formatDateEs(r.against)}.`,
  },
  history_out_of_order: {
    title: 'Historial de estados fuera de orden',
    says: (r) => `El cambio de estado n.º ${r.record_id} es del ${formatDateEs(r.fecha)}, anterior a un cambio previo del ${formatDateEs(r.against)}.`,
  },
};

/**
 * /users/fechas/ (administrators): stored rows whose dates break a rule the database now holds on every write
 * (decision 0063), written before it did. Nothing was changed: staff open each record and find out which date is
 * wrong; the correction goes through the forms, which check it. A row leaves the list once its dates agree.
 */
export function DateViolationsPage({ ctx, rows, truncated }: { ctx: PageContext; rows: DateViolationRow[]; truncated: ListedDateRule[] }) {
  return (
    <Layout ctx={ctx} title="Fechas inconsistentes">
      <h1>Fechas inconsistentes</h1>
      <p>
        Registros guardados antes de que la base de datos exigiera que las fechas concuerden (exámenes dentro de su
        ciclo, ciclos que empiezan después del nacimiento y terminan después de sus exámenes y de su último cambio de
        estado, historial de estados en orden). No se cambió nada: abra cada ficha, averigüe cuál fecha está mal y
        corríjala; el registro desaparecerá de esta lista cuando sus fechas concuerden.
      </p>
      {rows.length === 0 ? (
        <p data-date-violations="0">No hay fechas inconsistentes.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Fechas inconsistentes">
          <table class="table" data-table="date-violations" data-date-violations={String(rows.length)}>
            <thead>
              <tr>
                <th scope="col">Regla</th>
                <th scope="col">Ficha</th>
                <th scope="col">Paciente</th>
                <th scope="col">Ciclo</th>
                <th scope="col">Detalle</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr data-rule={r.rule} data-patient-id={String(r.patient_id)} data-ingreso-id={String(r.ingreso_id)}>
                  <td data-label="Regla">{RULES[r.rule].title}</td>
                  <td data-label="Ficha">
                    <a href={`/patients/${r.patient_id}/`}>n.º {r.patient_id}</a>
                  </td>
                  <td data-label="Paciente">
                    {r.nombre} {r.apellido}
                  </td>
                  <td data-label="Ciclo">n.º {r.ingreso_id}</td>
                  <td data-label="Detalle">{RULES[r.rule].says(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {truncated.length > 0 && (
        <p class="message message-warning" data-truncated>
          Hay más registros de los que se muestran en: {truncated.map((rule) => RULES[rule].title).join('; ')}. Corrija
          los mostrados y vuelva a abrir esta página.
        </p>
      )}
    </Layout>
  );
}
