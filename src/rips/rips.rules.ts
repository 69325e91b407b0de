// RIPS (Resolución 2275 de 2023): the structure built from the records, and the checks a JSON Schema cannot say.
// Pure functions. The field set and the code lists follow the Ministry's technical annex as gathered in decision
// 0090 (its sources); what a generator elsewhere emits was not taken as the rule.

import type { Choice } from '../patients/patient.rules.js';
import type { RipsSettingsTable } from './rips.table.js';

/** The version of the structure this module builds (one module and one JSON Schema per version). */
export const RIPS_VERSION = 'res2275-v1';

// ---------------------------------------------------------------------------------------------------------
// Code lists (SISPRO reference tables) for the settings' defaults and the checks.

export const MODALIDADES = [
  { value: '01', label: '01 Intramural' },
  { value: '02', label: '02 Extramural unidad móvil' },
  { value: '03', label: '03 Extramural domiciliaria' },
  { value: '04', label: '04 Extramural jornada de salud' },
  { value: '06', label: '06 Telemedicina interactiva' },
  { value: '07', label: '07 Telemedicina no interactiva' },
  { value: '08', label: '08 Telemedicina telexperticia' },
  { value: '09', label: '09 Telemedicina telemonitoreo' },
] as const satisfies readonly Choice[];

export const GRUPOS_SERVICIOS = [
  { value: '01', label: '01 Consulta externa' },
  { value: '02', label: '02 Apoyo diagnóstico y complementación terapéutica' },
  { value: '03', label: '03 Internación' },
  { value: '04', label: '04 Quirúrgico' },
  { value: '05', label: '05 Atención inmediata' },
] as const satisfies readonly Choice[];

export const FINALIDADES = [
  { value: '11', label: '11 Valoración integral para la promoción y mantenimiento' },
  { value: '12', label: '12 Detección temprana de enfermedad general' },
  { value: '14', label: '14 Detección temprana de enfermedad mental' },
  { value: '15', label: '15 Diagnóstico' },
  { value: '16', label: '16 Tratamiento' },
  { value: '17', label: '17 Rehabilitación' },
  { value: '18', label: '18 Paliación' },
] as const satisfies readonly Choice[];

export const CAUSAS_MOTIVO = [
  { value: '21', label: '21 Accidente de trabajo' },
  { value: '26', label: '26 Otro tipo de accidente' },
  { value: '38', label: '38 Enfermedad general' },
  { value: '39', label: '39 Enfermedad laboral' },
] as const satisfies readonly Choice[];

export const VIAS_INGRESO = [
  { value: '01', label: '01 Demanda espontánea' },
  { value: '02', label: '02 Derivado de consulta externa' },
  { value: '11', label: '11 Derivado de telemedicina' },
] as const satisfies readonly Choice[];

export const TIPOS_DOCUMENTO_RIPS = ['CC', 'CE', 'CD', 'PA', 'SC', 'PE', 'PT', 'RC', 'TI', 'CN', 'AS', 'MS', 'DE', 'SI'] as const;

export const BLOQUES = [
  { value: 'consultas', label: 'Consultas' },
  { value: 'procedimientos', label: 'Procedimientos' },
] as const satisfies readonly Choice[];
export type Bloque = (typeof BLOQUES)[number]['value'];

export const OPERACIONES = [
  { value: 'CapitaPeriodo', label: 'CapitaPeriodo: factura del mes siguiente, con los servicios de este mes' },
  { value: 'CapitaFinal', label: 'CapitaFinal: RIPS de los servicios de este mes, sin nueva factura' },
  { value: 'RS', label: 'RS: RIPS sin factura' },
] as const satisfies readonly Choice[];
export type Operacion = (typeof OPERACIONES)[number]['value'];

/** Used for the records written before the time of day was asked (decision 0090). */
export const DEFAULT_HORA = '08:00';

// ---------------------------------------------------------------------------------------------------------
// The services of the catalogue: an exam kind and its subtype.

/** The catalogue's key of an exam record: 'MONITOREO:<tipo>', 'PSICOLOGIA:<tipo_sesion>', or 'OTRO'. */
export function servicioOf(exam: { kind: string; tipo: string | null; tipo_sesion: string | null }): string {
  if (exam.kind === 'MONITOREO') return `MONITOREO:${exam.tipo ?? ''}`;
  if (exam.kind === 'PSICOLOGIA') return `PSICOLOGIA:${exam.tipo_sesion ?? ''}`;
  return 'OTRO';
}

/** A catalogue row as the builder needs it. */
export interface CatalogueEntry {
  servicio: string;
  vigente_desde: string;
  bloque: Bloque;
  cups: string;
  cod_servicio: number;
}

/**
 * The catalogue read once for a month: the row of a service in force on a date is the latest whose vigente_desde
 * is not after it (decision 0092). Each service's editions kept latest first: a lookup walks that service's only.
 */
export function catalogueIndex(entries: readonly CatalogueEntry[]): (servicio: string, fecha: string) => CatalogueEntry | null {
  const byServicio = new Map<string, CatalogueEntry[]>();
  for (const e of entries) {
    const list = byServicio.get(e.servicio) ?? [];
    list.push(e);
    byServicio.set(e.servicio, list);
  }
  for (const list of byServicio.values()) list.sort((a, b) => (a.vigente_desde < b.vigente_desde ? 1 : a.vigente_desde > b.vigente_desde ? -1 : 0));
  return (servicio, fecha) => {
    for (const e of byServicio.get(servicio) ?? []) if (e.vigente_desde <= fecha) return e;
    return null;
  };
}

/** The row of `servicio` in force on `fecha` (one lookup; a month's reading uses catalogueIndex once). */
export function catalogueEntryOn(entries: readonly CatalogueEntry[], servicio: string, fecha: string): CatalogueEntry | null {
  return catalogueIndex(entries)(servicio, fecha);
}

// ---------------------------------------------------------------------------------------------------------
// The period and the operation.

/** 'YYYY-MM' + n months. */
export function addMonths(mes: string, n: number): string {
  const [y, m] = mes.split('-').map(Number) as [number, number];
  const total = y * 12 + (m - 1) + n;
  return `${String(Math.floor(total / 12)).padStart(4, '0')}-${String((total % 12) + 1).padStart(2, '0')}`;
}

/** The first and last day of a month 'YYYY-MM'. */
export function monthBounds(mes: string): { start: string; end: string } {
  const [y, m] = mes.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { start: `${mes}-01`, end: `${mes}-${String(last).padStart(2, '0')}` };
}

/** An invoice number as RIPS takes it: its prefix and number, letters and digits only, at most 20 (decision 0093). */
export const FACTURA_PATTERN = /^[A-Z0-9]{1,20}$/;

export const RIPS_MSG = {
  factura: 'El número de factura solo puede tener letras mayúsculas sin tilde (A-Z) y dígitos, sin espacios ni guiones, hasta 20 caracteres (prefijo y número, p. ej. FEV1234).',
  facturaRequired: 'Escriba el número de la factura (prefijo y número), o elija la operación RS (sin factura).',
  facturaWithRs: 'La operación RS (RIPS sin factura) no lleva número de factura: bórrelo o elija CapitaPeriodo o CapitaFinal.',
  operacion: 'Elija la operación: CapitaPeriodo, CapitaFinal o RS.',
  entidad: 'Elija la entidad de salud: ENTITY_A o ENTITY_B.',
  mesMissing: 'Elija el mes de los servicios (AAAA-MM).',
  mesInvalid: (raw: string) => `«${raw.slice(0, 20)}» no es un mes válido: use AAAA-MM, p. ej. 2026-10.`,
  mesFuture: (mes: string) => `El mes ${mes} todavía no ha empezado: no tiene servicios que reportar.`,
  problems: (n: number) => `El RIPS tiene ${n} problema(s) que el validador rechazaría: corríjalos antes de generarlo.`,
} as const;

// ---------------------------------------------------------------------------------------------------------
// The structure.

/** The provider's settings as the rules read them: the settings row's columns (rips.table.ts) but its key and time. */
export type RipsSettings = Omit<RipsSettingsTable, 'id' | 'updated_at'>;

/** A patient as the builder reads it. */
export interface RipsPatient {
  id: number;
  tipo_documento: string;
  documento: string;
  tipo_usuario: string;
  fecha_nacimiento: string;
  genero: string;
  zona: string;
  /** the DIVIPOLA code of the municipality, null when the catalogue has none for the stored names */
  cod_municipio: string | null;
  programa: string;
}

/** A service (an exam record, not voided) as the builder reads it. */
export interface RipsService {
  id: number;
  paciente_id: number;
  kind: string;
  tipo: string | null;
  tipo_sesion: string | null;
  fecha: string;
  hora: string | null;
  registrado_por: number;
  prof_tipo_documento: string;
  prof_documento: string;
}

export type ProblemKind =
  | 'settings'
  | 'tipo_usuario'
  | 'municipio'
  | 'documento_paciente'
  | 'catalogo'
  | 'profesional'
  | 'fecha'
  | 'diagnostico'
  | 'schema';

/** Something the validator would reject, and where it is fixed. */
export interface RipsProblem {
  kind: ProblemKind;
  message: string;
  /** the page that fixes it */
  href: string;
  pacienteId?: number;
  examId?: number;
}

const SEXO: Record<string, string> = { M: 'M', F: 'F', O: 'I' };
const ZONA: Record<string, string> = { RURAL: '01', URBANA: '02' };

export const SETTINGS_HREF = '/users/rips/';
export const CATALOGUE_HREF = '/users/rips/#catalogo';

/** The top-level problems: the provider's settings. */
export function settingsProblems(s: RipsSettings): RipsProblem[] {
  const out: RipsProblem[] = [];
  if (!/^[0-9]{5,20}$/.test(s.nit)) out.push({ kind: 'settings', message: 'Falta el NIT del prestador (numDocumentoIdObligado), solo dígitos sin dígito de verificación.', href: SETTINGS_HREF });
  if (!/^[0-9]{12}$/.test(s.codigo_prestador)) {
    out.push({ kind: 'settings', message: 'Falta el código de habilitación REPS de la sede (codPrestador): 12 dígitos (10 del prestador y 2 de la sede).', href: SETTINGS_HREF });
  }
  return out;
}

const patientHref = (id: number) => `/patients/${id}/`;

/** What is wrong with a patient for RIPS (the usuario's fields). */
export function patientProblems(p: RipsPatient): RipsProblem[] {
  const out: RipsProblem[] = [];
  const who = `Paciente ${p.tipo_documento} ${p.documento}`;
  if (p.tipo_usuario === '') out.push({ kind: 'tipo_usuario', message: `${who}: falta el tipo de usuario (régimen, tabla 01–13).`, href: patientHref(p.id), pacienteId: p.id });
  if (p.cod_municipio === null) {
    out.push({ kind: 'municipio', message: `${who}: el municipio de residencia no tiene código DIVIPOLA; corrija el departamento y el municipio.`, href: patientHref(p.id), pacienteId: p.id });
  }
  if (!(TIPOS_DOCUMENTO_RIPS as readonly string[]).includes(p.tipo_documento) || !/^[A-Z0-9]{1,20}$/.test(p.documento)) {
    out.push({ kind: 'documento_paciente', message: `${who}: el documento no es uno de los que acepta el RIPS.`, href: patientHref(p.id), pacienteId: p.id });
  }
  return out;
}

/** The principal diagnosis of a patient's services (CIE-10 without the dot): by program (decision 0094). */
export function diagnosticoOf(p: Pick<RipsPatient, 'programa'>, s: RipsSettings): string {
  return p.programa === 'PROGRAMA INSOMNIO' ? s.diagnostico_insomnio : s.diagnostico_aos;
}

/** The RIPS date-time of a service: 'AAAA-MM-DD HH:MM'. */
export const fechaAtencion = (svc: Pick<RipsService, 'fecha' | 'hora'>): string => `${svc.fecha} ${svc.hora ?? DEFAULT_HORA}`;

/** What is wrong with a service for RIPS, given the period reported. */
export function serviceProblems(
  svc: RipsService,
  patient: RipsPatient,
  entry: CatalogueEntry | null,
  period: { start: string; end: string },
  settings: RipsSettings,
): RipsProblem[] {
  const out: RipsProblem[] = [];
  const what = `Registro n.º ${svc.id} del ${svc.fecha} (${servicioOf(svc)})`;
  if (entry === null) {
    out.push({ kind: 'catalogo', message: `${what}: el catálogo de servicios no tiene código CUPS para «${servicioOf(svc)}» en esa fecha.`, href: CATALOGUE_HREF, pacienteId: patient.id, examId: svc.id });
  }
  if (!(TIPOS_DOCUMENTO_RIPS as readonly string[]).includes(svc.prof_tipo_documento) || svc.prof_documento === '') {
    out.push({ kind: 'profesional', message: `${what}: el profesional que lo registró (usuario n.º ${svc.registrado_por}) no tiene documento de identidad: lo registra el usuario en «Mi cuenta» o un administrador en su ficha.`, href: `/users/${svc.registrado_por}/#documento`, pacienteId: patient.id, examId: svc.id });
  }
  if (svc.fecha < period.start || svc.fecha > period.end) {
    out.push({ kind: 'fecha', message: `${what}: la fecha está fuera del periodo reportado (${period.start} a ${period.end}).`, href: `/exams/${patient.id}/`, pacienteId: patient.id, examId: svc.id });
  }
  if (!/^[A-Z][0-9]{2}[0-9A-Z]{0,2}$/.test(diagnosticoOf(patient, settings))) {
    out.push({ kind: 'diagnostico', message: `${what}: falta el código CIE-10 del diagnóstico principal del programa.`, href: SETTINGS_HREF, pacienteId: patient.id, examId: svc.id });
  }
  return out;
}

/** The JSON of one usuario of the file, its services in their blocks (only the non-empty blocks appear). */
export function buildUsuario(p: RipsPatient, services: readonly { svc: RipsService; entry: CatalogueEntry }[], consecutivo: number, s: RipsSettings): Record<string, unknown> {
  const consultas: Record<string, unknown>[] = [];
  const procedimientos: Record<string, unknown>[] = [];
  const dx = diagnosticoOf(p, s);
  // Object literals written out whole, in the file's key order: a spread of shared fields followed by more keys
  // leaves V8 slow (dictionary) objects, which cost the builder, ajv and JSON.stringify several times more.
  for (const { svc, entry } of services) {
    if (entry.bloque === 'consultas') {
      consultas.push({
        codPrestador: s.codigo_prestador,
        fechaInicioAtencion: fechaAtencion(svc),
        numAutorizacion: null,
        codConsulta: entry.cups,
        modalidadGrupoServicioTecSal: s.modalidad_grupo_servicio,
        grupoServicios: s.grupo_servicios,
        codServicio: entry.cod_servicio,
        finalidadTecnologiaSalud: s.finalidad_tecnologia_salud,
        causaMotivoAtencion: s.causa_motivo_atencion,
        codDiagnosticoPrincipal: dx,
        codDiagnosticoRelacionado1: null,
        codDiagnosticoRelacionado2: null,
        codDiagnosticoRelacionado3: null,
        // the program's diagnosis is confirmed before care starts: new at the first visit, repeated after (decision 0094)
        tipoDiagnosticoPrincipal: svc.kind === 'PSICOLOGIA' && svc.tipo_sesion === 'EVALUACION_INICIAL' ? '02' : '03',
        tipoDocumentoIdentificacion: svc.prof_tipo_documento,
        numDocumentoIdentificacion: svc.prof_documento,
        vrServicio: 0,
        conceptoRecaudo: '05',
        valorPagoModerador: 0,
        numFEVPagoModerador: null,
        consecutivo: consultas.length + 1,
      });
    } else {
      procedimientos.push({
        codPrestador: s.codigo_prestador,
        fechaInicioAtencion: fechaAtencion(svc),
        idMIPRES: null,
        numAutorizacion: null,
        codProcedimiento: entry.cups,
        viaIngresoServicioSalud: s.via_ingreso_servicio_salud,
        modalidadGrupoServicioTecSal: s.modalidad_grupo_servicio,
        grupoServicios: s.grupo_servicios,
        codServicio: entry.cod_servicio,
        finalidadTecnologiaSalud: s.finalidad_tecnologia_salud,
        tipoDocumentoIdentificacion: svc.prof_tipo_documento,
        numDocumentoIdentificacion: svc.prof_documento,
        codDiagnosticoPrincipal: dx,
        codDiagnosticoRelacionado: null,
        codComplicacion: null,
        vrServicio: 0,
        conceptoRecaudo: '05',
        valorPagoModerador: 0,
        numFEVPagoModerador: null,
        consecutivo: procedimientos.length + 1,
      });
    }
  }
  const servicios: Record<string, unknown> = {};
  if (consultas.length > 0) servicios.consultas = consultas;
  if (procedimientos.length > 0) servicios.procedimientos = procedimientos;
  return {
    tipoDocumentoIdentificacion: p.tipo_documento,
    numDocumentoIdentificacion: p.documento,
    tipoUsuario: p.tipo_usuario,
    fechaNacimiento: p.fecha_nacimiento,
    codSexo: SEXO[p.genero] ?? 'I',
    codPaisResidencia: '170',
    codMunicipioResidencia: p.cod_municipio,
    codZonaTerritorialResidencia: ZONA[p.zona] ?? '02',
    incapacidad: 'NO',
    consecutivo,
    codPaisOrigen: '170',
    servicios,
  };
}

/** The file's header fields, by operation: RS carries no invoice (tipoNota 'RS'). */
export function ripsHeader(s: RipsSettings, operacion: Operacion, factura: string | null): Record<string, unknown> {
  return operacion === 'RS'
    ? { numDocumentoIdObligado: s.nit, numFactura: null, tipoNota: 'RS', numNota: null }
    : { numDocumentoIdObligado: s.nit, numFactura: factura, tipoNota: null, numNota: null };
}

/** The opening of the file up to its users' array: the usuarios are streamed after it, then ']}'. */
export function ripsOpening(s: RipsSettings, operacion: Operacion, factura: string | null): string {
  const head = JSON.stringify(ripsHeader(s, operacion, factura));
  return `${head.slice(0, -1)},"usuarios":[`;
}

/**
 * The checks of a whole file that no JSON Schema can say (the same ones the builder's input passed, run again on
 * the output, so a file that reaches the clinic has passed both): code lists, codPrestador's 12 digits, the date
 * formats and their period, the professional's document, consecutivo in order. The messages name the path.
 */
export function checkRipsFile(file: { usuarios?: unknown[]; [k: string]: unknown }, period: { start: string; end: string }): string[] {
  const out: string[] = [];
  const usuarios = Array.isArray(file.usuarios) ? (file.usuarios as Record<string, any>[]) : [];
  if (usuarios.length === 0) out.push('usuarios: el archivo no tiene ningún usuario con servicios.');
  usuarios.forEach((u, i) => {
    const at = `usuarios[${i}]`;
    if (u.consecutivo !== i + 1) out.push(`${at}.consecutivo: ${u.consecutivo}, se esperaba ${i + 1}.`);
    if (!(TIPOS_DOCUMENTO_RIPS as readonly string[]).includes(u.tipoDocumentoIdentificacion)) out.push(`${at}.tipoDocumentoIdentificacion fuera de la tabla.`);
    if (!/^(0[1-9]|1[0-3])$/.test(String(u.tipoUsuario))) out.push(`${at}.tipoUsuario fuera de la tabla 01–13.`);
    if (!/^[0-9]{5}$/.test(String(u.codMunicipioResidencia))) out.push(`${at}.codMunicipioResidencia no es un código DIVIPOLA de 5 dígitos.`);
    for (const block of ['consultas', 'procedimientos'] as const) {
      const list = (u.servicios?.[block] ?? []) as Record<string, any>[];
      list.forEach((svc, j) => {
        const sat = `${at}.servicios.${block}[${j}]`;
        if (svc.consecutivo !== j + 1) out.push(`${sat}.consecutivo: ${svc.consecutivo}, se esperaba ${j + 1}.`);
        if (!/^[0-9]{12}$/.test(String(svc.codPrestador))) out.push(`${sat}.codPrestador debe tener 12 dígitos.`);
        const f = String(svc.fechaInicioAtencion);
        if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-2][0-9]:[0-5][0-9]$/.test(f)) out.push(`${sat}.fechaInicioAtencion no es AAAA-MM-DD HH:MM.`);
        else if (f.slice(0, 10) < period.start || f.slice(0, 10) > period.end) out.push(`${sat}.fechaInicioAtencion fuera del periodo.`);
        if (!(TIPOS_DOCUMENTO_RIPS as readonly string[]).includes(svc.tipoDocumentoIdentificacion) || !svc.numDocumentoIdentificacion) {
          out.push(`${sat}: falta el documento del profesional.`);
        }
        if (!(MODALIDADES as readonly Choice[]).some((c) => c.value === svc.modalidadGrupoServicioTecSal)) out.push(`${sat}.modalidadGrupoServicioTecSal fuera de la tabla.`);
        if (!(GRUPOS_SERVICIOS as readonly Choice[]).some((c) => c.value === svc.grupoServicios)) out.push(`${sat}.grupoServicios fuera de la tabla.`);
        if (!(FINALIDADES as readonly Choice[]).some((c) => c.value === svc.finalidadTecnologiaSalud)) out.push(`${sat}.finalidadTecnologiaSalud fuera de la tabla.`);
      });
    }
  });
  return out;
}
