// Test builders for patients (used by tests of several features; never by application code).

import type { Db } from '../db/database.js';
import { openIngreso } from '../ingresos/ingreso.repository.js';
import { insertPatient } from './patient.repository.js';
import { patientDerivedColumns } from './patient.rules.js';
import type { PatientInput } from './patient.schema.js';
import type { NewPatientRow } from './patient.table.js';

let counter = 0;

type PatientFields = PatientInput;

/** A valid patient row with unique documento; override any field. Derived columns follow the overrides. */
export function newPatientRow(overrides: Partial<PatientFields> = {}): NewPatientRow {
  counter++;
  const base: PatientFields = {
    nombre: 'Ana',
    apellido: 'Prueba',
    tipo_documento: 'CC',
    // Already in its canonical form (decision 0030), so it is stored as given.
    documento: `T${process.pid}X${counter}`,
    fecha_nacimiento: '1970-05-10',
    genero: 'F',
    departamento: 'SANTANDER',
    ciudad: 'BUCARAMANGA',
    zona: 'URBANA',
    telefono: '6071234567',
    celular: '3001234567',
    estado_civil: 'CASADO',
    entidad_salud: 'ENTITY_A',
    estrato: 3,
    peso: 8000,
    altura: 170,
    perimetro_abdominal: 9500,
    cuello: 4000,
    medico_remitente: 'Dr. Remitente',
    especialidad: 'Neumología',
    diagnostico_clinico: 'G47.3',
    programa: 'PROGRAMA AOS',
    valor_capita: 25978300,
    ...overrides,
  };
  const now = '2026-01-01T00:00:00.000Z';
  return { ...base, ...patientDerivedColumns(base), created_at: now, updated_at: now };
}

/**
 * Inserts a patient straight in the database and, unless `fechaInicio` is null, an ACTIVO Ingreso starting
 * then. Returns the patient's and the Ingreso's ids.
 */
export async function createPatient(
  db: Db,
  overrides: Partial<PatientFields> = {},
  options: { fechaInicio?: string | null } = {},
): Promise<{ id: number; ingresoId: number | null; documento: string }> {
  const row = newPatientRow(overrides);
  return db.transaction().execute(async (trx) => {
    const id = await insertPatient(trx, row);
    const fechaInicio = options.fechaInicio === undefined ? '2026-11-01' : options.fechaInicio;
    const ingresoId =
      fechaInicio === null ? null : await openIngreso(trx, { pacienteId: id, fechaInicio, userId: null, now: row.created_at });
    return { id, ingresoId, documento: row.documento };
  });
}
