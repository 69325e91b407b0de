// The three forms that add a record to the ACTIVO Ingreso. Only the form that was posted carries the typed
// values and field errors back; the others start fresh.

import type { ComponentChildren } from 'preact';
import { SelectField, TextAreaField, TextField, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField } from '../../web/layout.js';
import { TIPOS_MONITOREO, TIPOS_SESION, type ExamKindValue } from '../exam.rules.js';
import { EXAM_FIELDS, examFieldHint, type ExamFieldName } from '../exam.fields.js';
import { EXAM_FORM_FIELDS } from '../exam.schema.js';
import { formLabel } from '../../shared/field-defs.js';
import type { BookedVisitOfDay } from '../../agenda/agenda.visits.repository.js';
import { escapedMarkup, joinMarkup, markupOf, Prerendered, splitMarkup, type Markup } from '../../web/render.js';

/** A field's label, from the definitions the history reads too. */
const L = (name: ExamFieldName): string => formLabel(EXAM_FIELDS[name]);
/** A number's range under its label, from the same definitions as its parser. */
const H = (name: ExamFieldName): string | undefined => examFieldHint(EXAM_FIELDS[name]);

/** A kind's form labels by field name, in form order (the error summary lists the fields in error with them). */
export const examFormLabels = (kind: ExamKindValue): Record<string, string> => ({
  ...Object.fromEntries(EXAM_FORM_FIELDS[kind].map((name) => [name, name in EXAM_FIELDS ? L(name as ExamFieldName) : name])),
  cita_id: 'Cita agendada',
});

export interface PostedForm {
  kind: ExamKindValue;
  values: FormValues;
  errors: FieldErrors;
}

/** The path segment of each kind's POST endpoint. */
export const KIND_PATHS: Record<ExamKindValue, string> = { MONITOREO: 'monitoreo', PSICOLOGIA: 'psicologia', OTRO: 'otros' };

function ExamForm({
  patientId,
  kind,
  title,
  errors,
  children,
}: {
  patientId: number;
  kind: ExamKindValue;
  title: string;
  errors: FieldErrors;
  children: ComponentChildren;
}) {
  const path = KIND_PATHS[kind];
  return (
    <form method="post" action={`/exams/${patientId}/${path}/`} id={`form-${path}`} class="card exam-form" data-exam-form={kind} novalidate>
      <h3>{title}</h3>
      <CsrfField />
      {children}
      <div class="actions">
        <button type="submit" class="button primary">
          Guardar
        </button>
      </div>
    </form>
  );
}

/** The booked visit a record may mark attended: offered when the patient has one of that exam kind on the day. */
function VisitChoice({ kind, visits, values, errors, idPrefix }: { kind: ExamKindValue; visits: readonly BookedVisitOfDay[]; values: FormValues; errors: FieldErrors; idPrefix: string }) {
  const mine = visits.filter((v) => v.examen === kind);
  if (mine.length === 0 && !errors.cita_id) return null;
  const choices = mine.map((v) => ({ value: String(v.id), label: `${v.hora ?? ''} · ${v.tipo_nombre}`.trim() }));
  return (
    <SelectField
      values={values}
      errors={errors}
      idPrefix={idPrefix}
      name="cita_id"
      label="Cita agendada que este registro atiende"
      choices={choices}
      placeholder="Ninguna (no marcar una cita)"
      hint="Al guardar, la cita queda atendida y vinculada a este registro."
    />
  );
}

/**
 * The three forms. Without a posted form or a visit booked that day (most clinical views a GET serves) they depend
 * on the patient's id and the day alone: rendered once a day with an id that no patient has, and that id's places
 * filled in (issue 30, decision 0160).
 */
export function ExamForms({ patientId, today, visits = [], posted }: { patientId: number; today: string; visits?: readonly BookedVisitOfDay[]; posted?: PostedForm }) {
  if (posted || visits.length > 0) return <ExamFormsMarkup patientId={patientId} today={today} visits={visits} posted={posted} />;
  if (fresh?.today !== today) {
    const pieces = splitMarkup(markupOf(<ExamFormsMarkup patientId={NO_PATIENT} today={today} />), `/exams/${NO_PATIENT}/`);
    // Each form's action names the patient, and nothing else.
    if (pieces.length !== 4) throw new Error(`ExamForms: the patient's id appears ${pieces.length - 1} times`);
    fresh = { today, pieces };
  }
  const at = escapedMarkup(`/exams/${patientId}/`);
  const { pieces } = fresh;
  return <Prerendered markup={joinMarkup([pieces[0]!, at, pieces[1]!, at, pieces[2]!, at, pieces[3]!])} />;
}

/** An id no patient has (ids start at 1). */
const NO_PATIENT = -7_301_999;
/** The forms of the day without a posted form, cut where the patient's id goes. */
let fresh: { today: string; pieces: Markup[] } | null = null;

function ExamFormsMarkup({ patientId, today, visits = [], posted }: { patientId: number; today: string; visits?: readonly BookedVisitOfDay[]; posted?: PostedForm }) {
  const state = (kind: ExamKindValue) => {
    const prefix = `${KIND_PATHS[kind]}_`;
    if (posted?.kind === kind) return { values: posted.values, errors: posted.errors, idPrefix: prefix };
    // The day's one booked visit of this kind is preselected: registering its exam is attending it.
    const mine = visits.filter((v) => v.examen === kind);
    return { values: { fecha: today, cita_id: mine.length === 1 ? String(mine[0]!.id) : '' }, errors: {}, idPrefix: prefix };
  };
  const m = state('MONITOREO');
  const p = state('PSICOLOGIA');
  const o = state('OTRO');
  const decimal = { inputMode: 'decimal' };
  const whole = { inputMode: 'numeric' };
  return (
    <section class="exam-forms no-print" aria-labelledby="forms_h">
      <h2 id="forms_h">Agregar un registro</h2>
      <div class="grid-2">
        <ExamForm patientId={patientId} kind="MONITOREO" title="Monitoreo" errors={m.errors}>
          <TextField {...m} name="fecha" label={L('fecha')} type="date" required />
          <TextField {...m} name="hora" label={L('hora')} inputMode="numeric" hint="HH:MM, 24 horas (para el RIPS)" />
          <SelectField {...m} name="tipo" label={L('tipo')} choices={TIPOS_MONITOREO} required />
          <div class="fields">
            <TextField {...m} {...decimal} name="iah" label={L('iah')} hint={H('iah')} />
            <TextField {...m} {...decimal} name="saturacion_minima" label={L('saturacion_minima')} hint={H('saturacion_minima')} />
            <TextField {...m} {...decimal} name="horas_uso_promedio" label={L('horas_uso_promedio')} hint={H('horas_uso_promedio')} />
            <TextField {...m} {...decimal} name="porcentaje_noches_4h" label={L('porcentaje_noches_4h')} hint={H('porcentaje_noches_4h')} />
            <TextField {...m} {...decimal} name="presion_cmh2o" label={L('presion_cmh2o')} hint={H('presion_cmh2o')} />
            <TextField {...m} {...decimal} name="fuga_lpm" label={L('fuga_lpm')} hint={H('fuga_lpm')} />
          </div>
          <TextAreaField {...m} name="observaciones" label={L('observaciones')} maxLength={EXAM_FIELDS.observaciones.max} />
          <VisitChoice kind="MONITOREO" visits={visits} {...m} />
        </ExamForm>
        <ExamForm patientId={patientId} kind="PSICOLOGIA" title="Psicología" errors={p.errors}>
          <TextField {...p} name="fecha" label={L('fecha')} type="date" required />
          <TextField {...p} name="hora" label={L('hora')} inputMode="numeric" hint="HH:MM, 24 horas (para el RIPS)" />
          <SelectField {...p} name="tipo_sesion" label={L('tipo_sesion')} choices={TIPOS_SESION} required />
          <div class="fields">
            <TextField {...p} {...whole} name="numero_sesion" label={L('numero_sesion')} hint={H('numero_sesion')} />
            <TextField {...p} {...whole} name="isi" label={L('isi')} hint={H('isi')} />
            <TextField {...p} {...whole} name="epworth" label={L('epworth')} hint={H('epworth')} />
          </div>
          <TextAreaField {...p} name="observaciones" label={L('observaciones')} maxLength={EXAM_FIELDS.observaciones.max} />
          <VisitChoice kind="PSICOLOGIA" visits={visits} {...p} />
        </ExamForm>
        <ExamForm patientId={patientId} kind="OTRO" title="Otro examen" errors={o.errors}>
          <TextField {...o} name="fecha" label={L('fecha')} type="date" required />
          <TextField {...o} name="hora" label={L('hora')} inputMode="numeric" hint="HH:MM, 24 horas (para el RIPS)" />
          <TextField {...o} name="nombre_examen" label={L('nombre_examen')} required maxLength={EXAM_FIELDS.nombre_examen.max} />
          <TextAreaField {...o} name="resultado" label={L('resultado')} maxLength={EXAM_FIELDS.resultado.max} />
          <TextAreaField {...o} name="observaciones" label={L('observaciones')} maxLength={EXAM_FIELDS.observaciones.max} />
          <VisitChoice kind="OTRO" visits={visits} {...o} />
        </ExamForm>
      </div>
    </section>
  );
}
