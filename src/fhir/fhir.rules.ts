// FHIR R4 resources of a patient's record (decision 0040): pure mappings from stored rows, no I/O. The same
// functions make the patient's Bundle (GET /patients/<id>/fhir/) and the bulk NDJSON export.

import type { Appointment, Bundle, CodeableConcept, Coding, EpisodeOfCare, Extension, FhirResource, Observation, Patient, Quantity } from 'fhir/r4.js';
import type { CitaEstado } from '../agenda/agenda.table.js';
import type { ExamRecordRow } from '../exams/exam.table.js';
import type { IngresoRow } from '../ingresos/ingreso.table.js';
import { departamentoCodigo, municipioCodigo } from '../patients/divipola.js';
import { imc, labelOf, PROGRAMAS, TIPOS_DOCUMENTO } from '../patients/patient.rules.js';
import type { PatientRow } from '../patients/patient.table.js';
import { zoneOffsetAt } from '../shared/dates.js';

/** Base of Somno's own code systems and extensions (no national one exists for these concepts). */
export const SOMNO_FHIR_BASE = 'https://somno.co/fhir';
export const SYSTEMS = {
  loinc: 'http://loinc.org',
  ucum: 'http://unitsofmeasure.org',
  observationCategory: 'http://terminology.hl7.org/CodeSystem/observation-category',
  tipoDocumento: `${SOMNO_FHIR_BASE}/CodeSystem/tipo-documento`,
  documento: `${SOMNO_FHIR_BASE}/NamingSystem/documento`,
  programa: `${SOMNO_FHIR_BASE}/CodeSystem/programa`,
  tipoCita: `${SOMNO_FHIR_BASE}/CodeSystem/tipo-cita`,
  localObservation: `${SOMNO_FHIR_BASE}/CodeSystem/observacion`,
  divipola: 'https://www.dane.gov.co/divipola',
} as const;
export const EXTENSIONS = {
  /** FHIR R4 core extension: the EpisodeOfCare an event belongs to (Observation has no element for it). */
  episodeOfCare: 'http://hl7.org/fhir/StructureDefinition/workflow-episodeOfCare',
  divipolaDepartamento: `${SOMNO_FHIR_BASE}/StructureDefinition/divipola-departamento`,
  divipolaMunicipio: `${SOMNO_FHIR_BASE}/StructureDefinition/divipola-municipio`,
} as const;

const GENDER: Record<string, Patient['gender']> = { M: 'male', F: 'female', O: 'other' };
const EPISODE_STATUS: Record<string, EpisodeOfCare['status']> = { ACTIVO: 'active', SUSPENDIDO: 'onhold', TERMINADO: 'finished' };

/** A status of an Ingreso as an EpisodeOfCare status. */
export function episodeStatus(estado: string): EpisodeOfCare['status'] {
  const status = EPISODE_STATUS[estado];
  if (!status) throw new Error(`unknown estado ${estado}`);
  return status;
}

/** Stored hundredths as a decimal number (7250 → 72.5). */
const fromHundredths = (n: number): number => n / 100;

const patientRef = (id: number) => ({ reference: `Patient/${id}` });
const episodeRef = (id: number) => ({ reference: `EpisodeOfCare/${id}` });

export function patientResource(p: PatientRow): Patient {
  const extension: Extension[] = [];
  const dep = departamentoCodigo(p.departamento);
  const mun = municipioCodigo(p.departamento, p.ciudad);
  if (dep) extension.push({ url: EXTENSIONS.divipolaDepartamento, valueCoding: { system: SYSTEMS.divipola, code: dep, display: p.departamento } });
  if (mun) extension.push({ url: EXTENSIONS.divipolaMunicipio, valueCoding: { system: SYSTEMS.divipola, code: mun, display: p.ciudad } });
  return {
    resourceType: 'Patient',
    id: String(p.id),
    identifier: [
      {
        use: 'official',
        type: {
          coding: [{ system: SYSTEMS.tipoDocumento, code: p.tipo_documento, display: labelOf(TIPOS_DOCUMENTO, p.tipo_documento) }],
          text: labelOf(TIPOS_DOCUMENTO, p.tipo_documento),
        },
        system: SYSTEMS.documento,
        value: p.documento,
      },
    ],
    name: [{ use: 'official', family: p.apellido, given: [p.nombre], text: `${p.nombre} ${p.apellido}` }],
    telecom: [
      { system: 'phone', value: p.telefono, use: 'home' },
      { system: 'phone', value: p.celular, use: 'mobile' },
    ].filter((t) => t.value.trim() !== '') as Patient['telecom'],
    gender: GENDER[p.genero] ?? 'unknown',
    birthDate: p.fecha_nacimiento,
    address: [
      {
        use: 'home',
        type: 'physical',
        city: p.ciudad,
        state: p.departamento,
        country: 'CO',
        ...(extension.length ? { extension } : {}),
      },
    ],
  };
}

/** The program as a CodeableConcept (the EpisodeOfCare's type). */
export function programaConcept(programa: string): CodeableConcept {
  return { coding: [{ system: SYSTEMS.programa, code: programa, display: labelOf(PROGRAMAS, programa) }], text: labelOf(PROGRAMAS, programa) };
}

/** One status-history row of an Ingreso, oldest first. */
export interface HistoryRow {
  hacia: string;
  /** The date the change took effect (null on old rows: the date of `at`). */
  fecha: string | null;
  at: string;
}

export function episodeOfCareResource(ingreso: IngresoRow, programa: string, history: readonly HistoryRow[]): EpisodeOfCare {
  const statusHistory = history.map((h, i) => {
    const start = h.fecha ?? h.at.slice(0, 10);
    const next = history[i + 1];
    const end = next ? (next.fecha ?? next.at.slice(0, 10)) : undefined;
    return { status: episodeStatus(h.hacia), period: end !== undefined ? { start, end } : { start } };
  });
  // The current state is the resource's status; the history lists the earlier ones with their periods.
  const earlier = statusHistory.slice(0, -1);
  return {
    resourceType: 'EpisodeOfCare',
    id: String(ingreso.id),
    status: episodeStatus(ingreso.estado),
    ...(earlier.length ? { statusHistory: earlier } : {}),
    type: [programaConcept(programa)],
    patient: patientRef(ingreso.paciente_id),
    period: ingreso.fecha_fin ? { start: ingreso.fecha_inicio, end: ingreso.fecha_fin } : { start: ingreso.fecha_inicio },
  };
}

interface MeasureDef {
  /** Local code (also part of the Observation's id). */
  key: string;
  coding: Coding;
  category: 'vital-signs' | 'survey' | 'procedure';
  unit: { unit: string; code: string };
}

const local = (code: string, display: string): Coding => ({ system: SYSTEMS.localObservation, code, display });

/**
 * The measured values exported, with their codes: LOINC where a code for the concept exists (AHI 69990-0, BMI
 * 39156-5), Somno's own code system otherwise (decision 0040 lists why each).
 */
export const MEASURES = {
  iah: { key: 'iah', coding: { system: SYSTEMS.loinc, code: '69990-0', display: 'Apnea hypopnea index 24 hour' }, category: 'procedure', unit: { unit: '/h', code: '/h' } },
  saturacion_minima: { key: 'saturacion-minima', coding: local('saturacion-minima', 'Saturación mínima de oxígeno durante el estudio'), category: 'procedure', unit: { unit: '%', code: '%' } },
  horas_uso_promedio: { key: 'cpap-horas-uso', coding: local('cpap-horas-uso', 'Horas de uso promedio del CPAP por noche'), category: 'procedure', unit: { unit: 'h', code: 'h' } },
  porcentaje_noches_4h: { key: 'cpap-noches-4h', coding: local('cpap-noches-4h', 'Porcentaje de noches con uso del CPAP ≥ 4 h (adherencia)'), category: 'procedure', unit: { unit: '%', code: '%' } },
  isi: { key: 'isi', coding: local('isi', 'Índice de severidad del insomnio (ISI), puntaje total'), category: 'survey', unit: { unit: '{score}', code: '{score}' } },
  epworth: { key: 'epworth', coding: local('epworth', 'Escala de somnolencia de Epworth, puntaje total'), category: 'survey', unit: { unit: '{score}', code: '{score}' } },
  imc: { key: 'imc', coding: { system: SYSTEMS.loinc, code: '39156-5', display: 'Body mass index (BMI) [Ratio]' }, category: 'vital-signs', unit: { unit: 'kg/m2', code: 'kg/m2' } },
} as const satisfies Record<string, MeasureDef>;

function observation(
  id: string,
  def: MeasureDef,
  value: number,
  input: { pacienteId: number; ingresoId: number | null; effective: string },
): Observation {
  const quantity: Quantity = { value, unit: def.unit.unit, system: SYSTEMS.ucum, code: def.unit.code };
  return {
    resourceType: 'Observation',
    id,
    ...(input.ingresoId !== null ? { extension: [{ url: EXTENSIONS.episodeOfCare, valueReference: episodeRef(input.ingresoId) }] } : {}),
    status: 'final',
    category: [{ coding: [{ system: SYSTEMS.observationCategory, code: def.category }] }],
    code: { coding: [def.coding] },
    subject: patientRef(input.pacienteId),
    effectiveDateTime: input.effective,
    valueQuantity: quantity,
  };
}

/** The columns of an exam record the export reads. */
export const EXAM_EXPORT_COLUMNS = ['id', 'ingreso_id', 'fecha', 'iah', 'saturacion_minima', 'horas_uso_promedio', 'porcentaje_noches_4h', 'isi', 'epworth', 'anulado_at'] as const;
export type ExamValues = Pick<ExamRecordRow, (typeof EXAM_EXPORT_COLUMNS)[number]>;

/** The measured values of one exam record (voided records give none), each linked to its EpisodeOfCare. */
export function examObservations(exam: ExamValues, pacienteId: number): Observation[] {
  if (exam.anulado_at !== null) return [];
  const ctx = { pacienteId, ingresoId: exam.ingreso_id, effective: exam.fecha };
  const out: Observation[] = [];
  const hundredths = ['iah', 'saturacion_minima', 'horas_uso_promedio', 'porcentaje_noches_4h'] as const;
  for (const field of hundredths) {
    const v = exam[field];
    if (v !== null) out.push(observation(`exam-${exam.id}-${MEASURES[field].key}`, MEASURES[field], fromHundredths(v), ctx));
  }
  for (const field of ['isi', 'epworth'] as const) {
    const v = exam[field];
    if (v !== null) out.push(observation(`exam-${exam.id}-${MEASURES[field].key}`, MEASURES[field], v, ctx));
  }
  return out;
}

/**
 * The BMI computed from the patient's peso and altura, or null when either is unknown. Linked to the open
 * (ACTIVO or SUSPENDIDO) Ingreso when there is one; dated by the patient's last change.
 */
export function bmiObservation(p: PatientRow, openIngresoId: number | null): Observation | null {
  const value = imc(p.peso, p.altura);
  if (value === null) return null;
  return observation(`patient-${p.id}-${MEASURES.imc.key}`, MEASURES.imc, value, {
    pacienteId: p.id,
    ingresoId: openIngresoId,
    effective: p.updated_at,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Appointments (issue 28; decision 0106): the agenda's visits, each linked to its EpisodeOfCare.

const APPOINTMENT_STATUS: Record<CitaEstado, Appointment['status']> = {
  PENDIENTE: 'proposed',
  PAUSADA: 'proposed',
  AGENDADA: 'booked',
  ATENDIDA: 'fulfilled',
  NO_ASISTIO: 'noshow',
  CANCELADA: 'cancelled',
};

/** The columns of a visit the export reads (with its kind's name). */
export interface AppointmentValues {
  id: number;
  ingreso_id: number;
  tipo: string;
  tipo_nombre: string;
  estado: CitaEstado;
  vence_el: string | null;
  fecha: string | null;
  hora: string | null;
  duracion_min: number | null;
  motivo: string | null;
  created_at: string;
}

/**
 * A booked wall-clock time with the clinic's zone's offset on that day, from the zone's rules rather than a constant
 * (decision 0141): Colombia's is −05:00 all year (no daylight saving since 1993).
 */
const localInstant = (fecha: string, minutes: number, timeZone: string): string => {
  const d = new Date(Date.parse(`${fecha}T00:00:00Z`) + minutes * 60000);
  return `${d.toISOString().slice(0, 19)}${zoneOffsetAt(timeZone, fecha, minutes)}`;
};

export function appointmentResource(c: AppointmentValues, pacienteId: number, timeZone: string): Appointment {
  const booked = c.fecha !== null && c.hora !== null && c.duracion_min !== null;
  const startMin = booked ? Number(c.hora!.slice(0, 2)) * 60 + Number(c.hora!.slice(3, 5)) : 0;
  return {
    resourceType: 'Appointment',
    id: `cita-${c.id}`,
    status: APPOINTMENT_STATUS[c.estado],
    extension: [{ url: EXTENSIONS.episodeOfCare, valueReference: episodeRef(c.ingreso_id) }],
    appointmentType: { coding: [{ system: SYSTEMS.tipoCita, code: c.tipo, display: c.tipo_nombre }], text: c.tipo_nombre },
    ...(c.estado === 'CANCELADA' && c.motivo ? { cancelationReason: { text: c.motivo } } : {}),
    ...(booked
      ? { start: localInstant(c.fecha!, startMin, timeZone), end: localInstant(c.fecha!, startMin + c.duracion_min!, timeZone), minutesDuration: c.duracion_min! }
      : c.vence_el
        ? { requestedPeriod: [{ start: c.vence_el, end: c.vence_el }] }
        : {}),
    created: c.created_at,
    participant: [{ actor: patientRef(pacienteId), status: 'accepted' }],
  };
}

/** Everything exported about one patient, as read by the repository. */
export interface PatientRecordData {
  patient: PatientRow;
  ingresos: readonly IngresoRow[];
  /** Status history per Ingreso id, oldest first. */
  history: ReadonlyMap<number, readonly HistoryRow[]>;
  /** The patient's exam records (voided ones are skipped here too). */
  exams: readonly ExamValues[];
  /** The patient's visits (the agenda), oldest first; absent: none. */
  appointments?: readonly AppointmentValues[];
}

/** Every resource of one patient, Patient first, then each EpisodeOfCare, then the Observations, then the visits (their times in `timeZone`). */
export function patientResources(data: PatientRecordData, timeZone: string): FhirResource[] {
  const { patient } = data;
  const open = data.ingresos.find((i) => i.estado !== 'TERMINADO') ?? null;
  const resources: FhirResource[] = [patientResource(patient)];
  for (const ingreso of data.ingresos) resources.push(episodeOfCareResource(ingreso, patient.programa, data.history.get(ingreso.id) ?? []));
  const bmi = bmiObservation(patient, open?.id ?? null);
  if (bmi) resources.push(bmi);
  for (const exam of data.exams) resources.push(...examObservations(exam, patient.id));
  for (const c of data.appointments ?? []) resources.push(appointmentResource(c, patient.id, timeZone));
  return resources;
}

/** A Bundle of type collection holding the resources. */
export function collectionBundle(resources: readonly FhirResource[], timestamp: string): Bundle {
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp,
    entry: resources.map((resource) => ({ fullUrl: `${SOMNO_FHIR_BASE}/${resource.resourceType}/${resource.id}`, resource })),
  };
}
