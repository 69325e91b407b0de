// How audit entries read in Spanish: action and record labels, and the stored changes JSON parsed
// defensively (an entry written by any version of the application must still display).

export const ACTION_LABELS: Readonly<Record<string, string>> = {
  login: 'Inicio de sesión',
  login_failed: 'Inicio de sesión fallido',
  logout: 'Cierre de sesión',
  'user.create': 'Usuario creado',
  'user.deactivate': 'Usuario desactivado',
  'user.reactivate': 'Usuario reactivado',
  'user.password_reset': 'Contraseña restablecida',
  'user.password_change': 'Contraseña cambiada',
  'user.document': 'Documento del usuario cambiado',
  'rips.settings': 'Configuración del RIPS cambiada',
  'rips.entidad': 'Entidad de salud del RIPS cambiada',
  'rips.catalogue': 'Catálogo de servicios del RIPS: nueva vigencia',
  'rips.generate': 'RIPS generado',
  'patient.create': 'Paciente creado',
  'patient.update': 'Paciente modificado',
  'patient.view': 'Ficha del paciente consultada',
  'patient.import': 'Pacientes importados desde una hoja de cálculo',
  'ingreso.open': 'Ciclo iniciado',
  'ingreso.status': 'Estado del ciclo cambiado',
  'ingreso.update': 'Ciclo modificado',
  'exam.create': 'Registro clínico agregado',
  'exam.void': 'Registro clínico anulado',
  'exam.view_clinical': 'Vista clínica consultada',
  'exam.view_archive': 'Ciclo archivado consultado',
  'cita.book': 'Cita agendada',
  'cita.reschedule': 'Cita reprogramada',
  'cita.cancel': 'Cita cancelada',
  'cita.attend': 'Cita atendida',
  'cita.no_show': 'Inasistencia a la cita',
  'cita.remind': 'Recordatorio de cita',
  'patient.consent_give': 'Consentimiento de contacto otorgado',
  'patient.consent_withdraw': 'Consentimiento de contacto retirado',
  'agenda.feed_create': 'Calendario de agenda: dirección creada',
  'agenda.feed_revoke': 'Calendario de agenda: dirección revocada',
  'agenda.plan_edition': 'Plan de visitas: nueva edición',
  'agenda.settings': 'Horario y lugar de la agenda cambiados',
  'agenda.resource_create': 'Recurso de la agenda agregado',
  'agenda.resource_update': 'Recurso de la agenda cambiado',
  export: 'Exportación',
};

/** The entries that record a person reading a record (not changing it): a patient's history hides them by default. */
export const VIEW_ACTIONS = ['patient.view', 'exam.view_clinical', 'exam.view_archive'] as const;

export const ENTITY_LABELS: Readonly<Record<string, string>> = {
  user: 'Usuario',
  patient: 'Paciente',
  ingreso: 'Ciclo',
  exam_record: 'Registro clínico',
  export: 'Exportación',
  import: 'Importación',
  cita: 'Cita',
  rips: 'RIPS',
  agenda: 'Agenda',
};

export const actionLabel = (action: string): string => ACTION_LABELS[action] ?? action;
export const entityLabel = (type: string): string => ENTITY_LABELS[type] ?? type;

export interface ParsedChanges {
  /** fields that changed: before → after, as stored */
  fields: { field: string; before: unknown; after: unknown }[];
  /** other details (a view's or an export's), as stored */
  details: { key: string; value: unknown }[];
}

/** A stored value as display text: null → '—', booleans in Spanish, objects as compact JSON. */
export function displayValue(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? 'Sí' : 'No';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Details whose value is a list (an import's left-out lines): two of them are not a before and an after. */
const LIST_DETAILS: ReadonlySet<string> = new Set(['filas_omitidas_por_cambios']);

/**
 * The changes column: { field: [before, after] } for changes, any other shape for details, values as stored
 * (audit.format.ts makes them readable). Never throws: text that is not JSON or not an object is one detail.
 */
export function parseChanges(raw: string | null): ParsedChanges {
  const out: ParsedChanges = { fields: [], details: [] };
  if (raw === null || raw === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    out.details.push({ key: 'datos', value: raw.slice(0, 500) });
    return out;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    out.details.push({ key: 'datos', value: parsed });
    return out;
  }
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (Array.isArray(value) && value.length === 2 && !LIST_DETAILS.has(key)) {
      out.fields.push({ field: key, before: value[0], after: value[1] });
    } else {
      out.details.push({ key, value });
    }
  }
  return out;
}
