// Writing a new patient with its first cycle: the one path the create form and the spreadsheet import share
// (patient row, ACTIVO Ingreso and its history row, optionally suspended at once, and the patient.create audit
// entry), inside the caller's transaction.

import { recordAudit } from '../audit/audit.repository.js';
import { diffFields } from '../audit/audit.rules.js';
import type { Trx } from '../db/database.js';
import { applyStatusChange, openIngreso } from '../ingresos/ingreso.repository.js';
import { insertPatient } from './patient.repository.js';
import { patientDerivedColumns } from './patient.rules.js';
import type { PatientInput } from './patient.schema.js';

/** The stored fields a patient audit entry compares (derived columns and timestamps left out). */
export const AUDITED_FIELDS: readonly (keyof PatientInput)[] = [
  'nombre', 'apellido', 'tipo_documento', 'documento', 'fecha_nacimiento', 'genero', 'departamento', 'ciudad', 'zona',
  'telefono', 'celular', 'estado_civil', 'entidad_salud', 'estrato', 'peso', 'altura', 'perimetro_abdominal', 'cuello',
  'medico_remitente', 'especialidad', 'diagnostico_clinico', 'programa', 'valor_capita',
];

export const pickAudited = (row: PatientInput): Record<string, unknown> => Object.fromEntries(AUDITED_FIELDS.map((f) => [f, row[f] ?? null]));

export interface NewPatientWithCycle {
  patient: PatientInput;
  fechaInicio: string;
  /** The first cycle's estado: ACTIVO (the form), or SUSPENDIDO from the day it starts (an import column). */
  estado: 'ACTIVO' | 'SUSPENDIDO';
  actor: { id: number; username: string } | null;
  at: Date;
  requestId: string | null;
  /** Details added to the patient.create entry (e.g. the import it came from). */
  auditDetails?: Record<string, unknown>;
}

/**
 * Inserts the patient and opens its first cycle; the DOCUMENTO_TAKEN domain error when the documento_key is taken (the
 * unique index decides). Returns the new ids.
 */
export async function createPatientWithCycle(trx: Trx, input: NewPatientWithCycle): Promise<{ patientId: number; ingresoId: number }> {
  const now = input.at.toISOString();
  const userId = input.actor?.id ?? null;
  const p = input.patient;
  const patientId = await insertPatient(trx, { ...p, ...patientDerivedColumns(p), created_at: now, updated_at: now });
  const ingresoId = await openIngreso(trx, { pacienteId: patientId, fechaInicio: input.fechaInicio, userId, now });
  if (input.estado === 'SUSPENDIDO') {
    await applyStatusChange(trx, { ingresoId, from: 'ACTIVO', to: 'SUSPENDIDO', fechaFin: null, motivo: null, fecha: input.fechaInicio, userId, now });
  }
  await recordAudit(trx, {
    at: input.at,
    actor: input.actor,
    action: 'patient.create',
    entityType: 'patient',
    entityId: patientId,
    patientId,
    changes: {
      ...diffFields(null, pickAudited(p)),
      ingreso: [null, { id: ingresoId, estado: input.estado, fecha_inicio: input.fechaInicio }],
      ...(input.auditDetails ?? {}),
    },
    requestId: input.requestId,
  });
  return { patientId, ingresoId };
}
