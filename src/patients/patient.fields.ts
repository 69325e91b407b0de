// The patient record's fields as people read them: the form's labels and how each stored value reads in the
// history (src/shared/field-defs.ts).

import type { FieldDef } from '../shared/field-defs.js';
import {
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  ESTRATOS,
  GENEROS,
  PROGRAMAS,
  TIPOS_DOCUMENTO,
  ZONAS,
} from './patient.rules.js';

export const PATIENT_FIELDS = {
  nombre: { label: 'Nombre', kind: 'text' },
  apellido: { label: 'Apellido', kind: 'text' },
  tipo_documento: { label: 'Tipo de documento', kind: 'choice', choices: TIPOS_DOCUMENTO },
  documento: { label: 'Número de documento', kind: 'text' },
  fecha_nacimiento: { label: 'Fecha de nacimiento', kind: 'date' },
  genero: { label: 'Género', kind: 'choice', choices: GENEROS },
  estado_civil: { label: 'Estado civil', kind: 'choice', choices: ESTADOS_CIVILES },
  telefono: { label: 'Teléfono', kind: 'text' },
  celular: { label: 'Celular', kind: 'text' },
  departamento: { label: 'Departamento', kind: 'text' },
  ciudad: { label: 'Ciudad o municipio', kind: 'text' },
  zona: { label: 'Zona', kind: 'choice', choices: ZONAS },
  estrato: { label: 'Estrato', kind: 'choice', choices: ESTRATOS },
  peso: { label: 'Peso', kind: 'decimal', unit: 'kg' },
  altura: { label: 'Altura', kind: 'decimal', unit: 'm' },
  perimetro_abdominal: { label: 'Perímetro abdominal', kind: 'decimal', unit: 'cm' },
  cuello: { label: 'Perímetro de cuello', kind: 'decimal', unit: 'cm' },
  medico_remitente: { label: 'Médico remitente', kind: 'text' },
  especialidad: { label: 'Especialidad', kind: 'text' },
  diagnostico_clinico: { label: 'Diagnóstico clínico', kind: 'choice', choices: DIAGNOSTICOS },
  programa: { label: 'Programa', kind: 'choice', choices: PROGRAMAS },
  entidad_salud: { label: 'Entidad de salud', kind: 'choice', choices: ENTIDADES_SALUD },
  valor_capita: { label: 'Valor cápita', kind: 'money', unit: 'COP' },
  fecha_inicio_programa: { label: 'Fecha de inicio del programa', kind: 'date' },
} as const satisfies Record<string, FieldDef>;

export type PatientFieldName = keyof typeof PATIENT_FIELDS;
