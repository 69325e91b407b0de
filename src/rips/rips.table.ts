import type { Generated, Selectable } from 'kysely';
import type { TableEntries } from '../platform/tables.js';

/** The one row of the provider's RIPS settings (migration 0210, decision 0091); '' = not yet set. */
export interface RipsSettingsTable {
  id: number;
  /** numDocumentoIdObligado: the provider's NIT, digits without the check digit */
  nit: string;
  /** codPrestador: the site's 12-digit REPS code */
  codigo_prestador: string;
  modalidad_grupo_servicio: string;
  grupo_servicios: string;
  finalidad_tecnologia_salud: string;
  causa_motivo_atencion: string;
  via_ingreso_servicio_salud: string;
  /** CIE-10 without the dot: the AOS program's principal diagnosis (the specification's G47.3) */
  diagnostico_aos: string;
  /** the insomnia program's principal diagnosis (decision 0094) */
  diagnostico_insomnio: string;
  updated_at: string | null;
}

/** Each insurer's name and code for the reports. */
export interface RipsEntidadesTable {
  entidad_salud: string;
  nombre: string;
  codigo: string;
}

/** A service's RIPS block, CUPS and REPS service code, from a date on (decision 0092): never rewritten, superseded. */
export interface RipsCatalogueTable {
  id: Generated<number>;
  /** 'MONITOREO:<tipo>', 'PSICOLOGIA:<tipo_sesion>' or 'OTRO' */
  servicio: string;
  vigente_desde: string;
  bloque: 'consultas' | 'procedimientos';
  cups: string;
  cod_servicio: number;
  created_at: string;
  created_by: number | null;
}

export interface RipsTables {
  rips_settings: RipsSettingsTable;
  rips_entidades: RipsEntidadesTable;
  rips_catalogue: RipsCatalogueTable;
}

/** The registry's lines of these tables (src/platform/tables.ts): no kept page reads them. */
export const RIPS_TABLE_ENTRIES = {
  rips_settings: {},
  rips_entidades: {},
  rips_catalogue: {},
} as const satisfies TableEntries<keyof RipsTables>;

export type RipsSettingsRow = Selectable<RipsSettingsTable>;
export type RipsCatalogueRow = Selectable<RipsCatalogueTable>;
export type RipsEntidadRow = Selectable<RipsEntidadesTable>;
