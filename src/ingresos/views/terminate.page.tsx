import { formatDateEs } from '../../shared/dates.js';
import { ErrorSummary, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField, Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { MOTIVO_MAX_LENGTH } from '../ingreso.rules.js';
import { cycleName } from '../cycle-number.js';

export const TERMINATE_LABELS = { fecha_terminacion: 'Fecha de terminación', motivo_estado: 'Motivo' } as const;

export interface TerminateCycle {
  id: number;
  /** its cycle number among the patient's */
  numero: number;
  nombre: string;
  fecha_inicio: string;
  estado: string;
  /** The earliest date it can end on: its start, its last status change or its last exam, whichever is latest. */
  earliestEnd: string;
}

/**
 * GET /patients/ingreso/terminar/<id>/: the question "terminate this cycle?" on a page of our own (it works without
 * JavaScript), with the date and the reason. It posts to the status endpoint; an invalid answer comes back here
 * with the errors beside the fields. `back` is the follow page the person came from (Cancelar).
 */
export function TerminatePage({
  ctx,
  cycle,
  values,
  errors,
  back,
  today,
}: {
  ctx: PageContext;
  cycle: TerminateCycle;
  values: FormValues;
  errors: FieldErrors;
  back: { url: string; query: string; page: number };
  today: string;
}) {
  return (
    <Layout ctx={ctx} title="Terminar el ciclo">
      <p>
        <a href={back.url}>← Seguimiento</a>
      </p>
      <h1>¿Terminar el ciclo de {cycle.nombre}?</h1>
      <div class="message message-warning" data-confirm-question>
        <p>
          El {cycleName(cycle.numero).toLowerCase()} ({cycle.estado}, desde el {formatDateEs(cycle.fecha_inicio)}) quedará TERMINADO y archivado.{' '}
          <strong>No podrá volver a activarse</strong>; para continuar la atención se inicia un ciclo nuevo.
        </p>
      </div>
      <form method="post" action={`/patients/ingreso/estado/${cycle.id}/TERMINADO/`} class="card narrow-form" novalidate>
        <CsrfField />
        <input type="hidden" name="confirmacion" value="1" />
        {back.query !== '' && <input type="hidden" name="query_search" value={back.query} />}
        {back.page > 1 && <input type="hidden" name="page" value={String(back.page)} />}
        <ErrorSummary errors={errors} labels={TERMINATE_LABELS} intro="No se terminó el ciclo: revise los campos marcados." />
        <TextField
          name="fecha_terminacion"
          label={TERMINATE_LABELS.fecha_terminacion}
          type="date"
          values={{ fecha_terminacion: today, ...values }}
          errors={errors}
          required
          hint={`Entre el ${formatDateEs(cycle.earliestEnd)} y hoy.`}
        />
        <TextField name="motivo_estado" label={TERMINATE_LABELS.motivo_estado} values={values} errors={errors} required maxLength={MOTIVO_MAX_LENGTH} />
        <div class="actions">
          <button type="submit" class="button danger">
            Sí, terminar el ciclo
          </button>
          <a class="button" href={back.url}>
            Cancelar
          </a>
        </div>
      </form>
    </Layout>
  );
}
