import type { IngresoRow } from '../../ingresos/ingreso.table.js';
import { formatDateEs } from '../../shared/dates.js';
import { formatCop, formatHundredths } from '../../shared/decimal.js';
import { ErrorSummary, type FieldErrors, type FormValues } from '../../web/fields.js';
import { CsrfField } from '../../web/layout.js';
import {
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  GENEROS,
  labelOf,
  PROGRAMAS,
  TIPOS_USUARIO,
  TIPOS_DOCUMENTO,
  ZONAS,
} from '../patient.rules.js';
import type { PatientRow } from '../patient.table.js';
import { documentoHolderLink, PATIENT_FORM_LABELS, PatientFields } from './patient-form.js';
import type { ReferralCycle, ReferralMeasures } from '../referral.repository.js';
import { ReferralSheet } from './referral.js';
import { cycleName } from '../../ingresos/cycle-number.js';
import { CANALES } from '../../agenda/agenda.rules.js';

export interface PatientDetail {
  patient: PatientRow;
  /** the day the record is read (printed on paper copies) */
  today: string;
  edad: number;
  imc: number | null;
  /** The ACTIVO Ingreso (the spec's ingreso_actual), or null. */
  ingreso: IngresoRow | null;
  mesCapita: number | null;
  /** the open cycle (ACTIVO or SUSPENDIDO) with its number, for the referral sheet and the cycle's name */
  openCycle: ReferralCycle | null;
  /** the latest value of each measure (the referral sheet) */
  measures: ReferralMeasures;
  /** the contact consents, every channel's, live and withdrawn (Ley 1581 de 2012) */
  consents: readonly { id: number; canal: string; otorgado_el: string; retirado_el: string | null }[];
}

/**
 * Each channel's consent as the record shows it: the live one (given on which date) or the latest withdrawn one,
 * or none.
 */
function ConsentSummary({ patientId, consents }: { patientId: number; consents: PatientDetail['consents'] }) {
  return (
    <section class="card patient-section no-print" id="contacto" aria-labelledby="contacto-title">
      <h2 id="contacto-title">Consentimiento de contacto</h2>
      <dl class="summary">
        {CANALES.map((c) => {
          const mine = consents.filter((x) => x.canal === c.value);
          const live = mine.find((x) => x.retirado_el === null);
          const last = live ?? [...mine].sort((a, b) => (a.otorgado_el < b.otorgado_el ? 1 : a.otorgado_el > b.otorgado_el ? -1 : b.id - a.id))[0];
          return (
            <>
              <dt>{c.label}</dt>
              <dd data-consent={c.value} data-vigente={live ? '1' : '0'}>
                {live
                  ? `Autorizado desde el ${formatDateEs(live.otorgado_el)}`
                  : last
                    ? `Retirado el ${formatDateEs(last.retirado_el!)} (autorizado el ${formatDateEs(last.otorgado_el)})`
                    : 'Sin autorización'}
              </dd>
            </>
          );
        })}
      </dl>
      <p>
        <a href={`/agenda/consentimiento/${patientId}/`}>Registrar o retirar un consentimiento</a>
      </p>
    </section>
  );
}

const dec = (n: number | null, unit: string) => (n === null ? '—' : `${formatHundredths(n)} ${unit}`);

export const patientTitle = (p: PatientRow) => `${p.nombre} ${p.apellido}`;

/** The page's sections, for the in-page navigation. */
const SECTIONS = [
  { id: 'ficha', label: 'Ficha' },
  { id: 'ciclo', label: 'Ciclo actual' },
  { id: 'contacto', label: 'Contacto' },
  { id: 'editar', label: 'Editar' },
  { id: 'historial', label: 'Historial' },
] as const;

/**
 * The record: the patient's data, the current Ingreso and the edit form. Without a posted form it depends on the
 * data and the day alone, and is rendered once per version (decision 0016).
 */
export function PatientRecord({ detail, values, errors, documentoHolder = null }: { detail: PatientDetail; values: FormValues; errors: FieldErrors; documentoHolder?: { id: number; name: string } | null }) {
  const { patient: p, ingreso } = detail;
  const estaActivo = ingreso !== null;
  const rows: [string, string][] = [
    ['Documento', `${labelOf(TIPOS_DOCUMENTO, p.tipo_documento)} (${p.tipo_documento}) ${p.documento}`],
    ['Fecha de nacimiento', formatDateEs(p.fecha_nacimiento)],
    ['Edad', `${detail.edad} años`],
    ['Género', labelOf(GENEROS, p.genero)],
    ['Estado civil', labelOf(ESTADOS_CIVILES, p.estado_civil)],
    ['Teléfono', p.telefono || '—'],
    ['Celular', p.celular || '—'],
    ['Departamento', p.departamento],
    ['Ciudad', p.ciudad],
    ['Zona', labelOf(ZONAS, p.zona)],
    ['Estrato', String(p.estrato)],
    ['Peso', dec(p.peso, 'kg')],
    ['Altura', dec(p.altura, 'm')],
    ['IMC', detail.imc === null ? '—' : `${String(detail.imc).replace('.', ',')} kg/m²`],
    ['Perímetro abdominal', dec(p.perimetro_abdominal, 'cm')],
    ['Cuello', dec(p.cuello, 'cm')],
    ['Médico remitente', p.medico_remitente],
    ['Especialidad', p.especialidad],
    ['Diagnóstico clínico', `${p.diagnostico_clinico} · ${labelOf(DIAGNOSTICOS, p.diagnostico_clinico)}`],
    ['Programa', labelOf(PROGRAMAS, p.programa)],
    ['Entidad de salud', labelOf(ENTIDADES_SALUD, p.entidad_salud)],
    ['Tipo de usuario (RIPS)', p.tipo_usuario === '' ? 'Sin registrar (necesario para el RIPS)' : labelOf(TIPOS_USUARIO, p.tipo_usuario)],
    ['Valor cápita', formatCop(p.valor_capita)],
  ];
  return (
    <>
      <p class="no-print">
        <a href="/patients/">← Pacientes</a>
      </p>
      <ReferralSheet patient={p} cycle={detail.openCycle} measures={detail.measures} today={detail.today} />
      <div class="page-head no-print" data-patient-id={String(p.id)}>
        <h1>
          {p.nombre} {p.apellido}
        </h1>
        <span class={estaActivo ? 'badge badge-ACTIVO' : 'badge'} data-esta-activo={estaActivo ? 'true' : 'false'}>
          {estaActivo ? 'Activo en el programa' : 'Sin ingreso activo'}
        </span>
      </div>
      <div class="actions no-print">
        <a class="button" href={`/exams/${p.id}/`}>
          Vista clínica
        </a>
        <a class="button" href={`/patients/follow?query_search=${encodeURIComponent(p.documento)}`}>
          Ciclos del paciente (seguimiento)
        </a>
        <a class="button" href={`/patients/${p.id}/fhir/`} type="application/fhir+json" download={`paciente-${p.id}.fhir.json`}>
          Exportar FHIR
        </a>
      </div>
      <nav class="section-nav no-print" aria-label="Secciones de la ficha">
        <ul>
          {SECTIONS.map((s) => (
            <li>
              <a href={`#${s.id}`}>{s.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="grid-2 no-print">
        <section class="card patient-section" id="ficha" aria-labelledby="datos-title">
          <h2 id="datos-title">Ficha: datos del paciente</h2>
          <dl class="summary">
            {rows.map(([k, v]) => (
              <>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </>
            ))}
          </dl>
        </section>
        <section
          class="card patient-section"
          id="ciclo"
          aria-labelledby="ingreso-title"
          data-ingreso-actual={ingreso ? String(ingreso.id) : undefined}
        >
          <h2 id="ingreso-title">Ciclo actual</h2>
          {ingreso ? (
            <dl class="summary">
              <dt>Ciclo</dt>
              <dd>{detail.openCycle ? cycleName(detail.openCycle.numero) : '—'}</dd>
              <dt>Estado</dt>
              <dd>
                <span class={`badge badge-${ingreso.estado}`}>{ingreso.estado}</span>
              </dd>
              <dt>Fecha de inicio</dt>
              <dd>{formatDateEs(ingreso.fecha_inicio)}</dd>
              <dt>Mes del programa (mes cápita)</dt>
              <dd data-mes-capita={String(detail.mesCapita)}>{detail.mesCapita} de 18</dd>
            </dl>
          ) : (
            <p>
              El paciente no tiene un ingreso ACTIVO. Los ciclos suspendidos o terminados se gestionan en{' '}
              <a href={`/patients/follow?query_search=${encodeURIComponent(p.documento)}`}>Seguimiento</a>.
            </p>
          )}
        </section>
      </div>
      <ConsentSummary patientId={p.id} consents={detail.consents} />
      <section class="patient-section no-print" id="editar" aria-labelledby="editar-title">
        <h2 id="editar-title">Editar datos</h2>
        <form method="post" action={`/patients/${p.id}/`} novalidate class="patient-form">
          <CsrfField />
          <ErrorSummary errors={errors} labels={PATIENT_FORM_LABELS} intro="Revise los campos marcados: no se guardó ningún cambio." />
          <PatientFields values={values} errors={errors} errorLinks={documentoHolderLink(documentoHolder)} />
          <div class="actions">
            <button type="submit" class="button primary">
              Guardar cambios
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
