// The table registry (decision 0067): every table of the database, once, with what the speed machinery must know
// of it. Each feature writes the lines of its own tables beside their types (`*.table.ts`, typed with TableEntries);
// src/db/tables.ts composes them, as src/db/database.ts composes the types. Everything the machinery used to keep
// in four hand lists is derived here: which tables kept pages may read (versioned), which ones the database keeps
// from a versioned one, which rows belong to a patient, and every table a query may name. The version triggers
// are generated from it at start (platform/pages/table-versions.ts syncTableVersionTriggers).

import { TABLES } from '../db/tables.js';

/** What the machinery knows of one table. `{}`: a table no kept page shows and whose changes bump nothing. */
export interface TableEntry {
  /** Kept pages may show it: every change bumps its version, by a trigger installed at start. */
  readonly versioned?: true;
  /**
   * Kept by the database's own triggers from this versioned table, in the statement that changes it (a counter,
   * a search index): a page that declares the source may read it. Several tables: kept from all of them (the
   * agenda's worklists' candidates, decision 0260), and a page may read it only when it declares every one.
   */
  readonly derivedFrom?: string | readonly string[];
  /** Each row belongs to one patient: every change of a row bumps that patient's counter (decision 0049). */
  readonly patient?: PatientOwner;
  /** The table exists on this engine only (SQLite's full-text index). */
  readonly onlyOn?: 'sqlite';
}

export type PatientOwner =
  /** A row names its patient (`paciente_id`, or `id` for the patients), or its Ingreso (`ingreso_id` via ingresos). */
  | { readonly column: string; readonly via?: 'ingresos' }
  /**
   * Rows that are only ever inserted (the audit trail): an insert bumps the patient the row names, unless its
   * `unless.column` holds one of `unless.values` (a view of a record changes nothing shown). With `changesIndex`
   * the rows that bump are indexed by (column, id), as `<table>_patient_changes_idx`, from the same condition.
   */
  | {
      readonly column: string;
      readonly appendOnly: true;
      readonly unless?: { readonly column: string; readonly values: readonly string[] };
      readonly changesIndex?: true;
    };

/** The lines of a feature's tables: one per table of `Name`, and no other (`satisfies` checks both). */
export type TableEntries<Name extends string> = { readonly [T in Name]: TableEntry };

type Registry = typeof TABLES;

/** A table kept pages may read. */
export type VersionedTable = { [T in keyof Registry]: Registry[T] extends { readonly versioned: true } ? T : never }[keyof Registry] & string;

const entries = Object.entries(TABLES as Readonly<Record<string, TableEntry>>);

/** Every table whose changes bump a version the kept pages are keyed by. */
export const VERSIONED_TABLES: readonly VersionedTable[] = entries.filter(([, e]) => e.versioned).map(([t]) => t as VersionedTable);

/** The versioned tables a derived table is kept from (none for a table that is not derived). */
export const sourcesOf = (e: TableEntry): readonly string[] => (e.derivedFrom === undefined ? [] : typeof e.derivedFrom === 'string' ? [e.derivedFrom] : e.derivedFrom);

/** Tables the database keeps from versioned tables by its own triggers, with those tables. */
export const DERIVED_TABLES: Readonly<Record<string, readonly VersionedTable[]>> = Object.fromEntries(
  entries.flatMap(([t, e]) => (e.derivedFrom === undefined ? [] : [[t, sourcesOf(e) as readonly VersionedTable[]]])),
);

/** Every table whose rows belong to a patient, with how a row names it: each one's changes bump the patient's counter. */
export const PATIENT_OWNED_TABLES: Readonly<Record<string, PatientOwner>> = Object.fromEntries(
  entries.flatMap(([t, e]) => (e.patient === undefined ? [] : [[t, e.patient]])),
);

/**
 * The versioned tables among them: a page that shows one patient (declared with `patient`) is versioned by the
 * patient's counter for these, and by the tables' versions for the others it reads.
 */
export const PATIENT_TABLES: Readonly<Partial<Record<VersionedTable, PatientOwner>>> = Object.fromEntries(
  Object.entries(PATIENT_OWNED_TABLES).filter(([t]) => (VERSIONED_TABLES as readonly string[]).includes(t)),
);

export const isPatientTable = (table: string): boolean => Object.hasOwn(PATIENT_TABLES, table);

/** Every table of the schema (on either engine): the names a raw SQL fragment of a kept page's render may hold. */
export const KNOWN_TABLES: readonly string[] = entries.map(([t]) => t);

/** The tables that exist on one engine. */
export const tablesOn = (engine: 'sqlite' | 'postgres'): string[] => entries.filter(([, e]) => e.onlyOn === undefined || e.onlyOn === engine).map(([t]) => t);

/**
 * `column` holds none of `values`, written as inequalities: SQLite evaluates an IN list of three constants or more
 * by building a temporary b-tree, anew for every row written when it is a trigger's or a partial index's condition
 * (decision 0056). The history's queries say it with the same words, so that both engines use the partial index.
 */
export function noneOf(column: string, values: readonly string[]): string {
  return values.map((v) => `${column} <> '${v.replaceAll("'", "''")}'`).join(' and ');
}

/** What a registry that contradicts itself says is wrong (a test, and the start, fail on it). */
export function registryErrors(tables: Readonly<Record<string, TableEntry>> = TABLES): string[] {
  const errors: string[] = [];
  for (const [t, e] of Object.entries(tables)) {
    for (const source of sourcesOf(e)) if (!tables[source]?.versioned) errors.push(`${t}: derived from ${source}, which is not versioned`);
    if (e.derivedFrom !== undefined && sourcesOf(e).length === 0) errors.push(`${t}: derived from no table`);
    if (e.derivedFrom !== undefined && e.versioned) errors.push(`${t}: versioned and derived`);
    const owner = e.patient;
    if (owner && 'via' in owner && owner.via !== undefined && tables[owner.via]?.patient?.column !== 'paciente_id') {
      errors.push(`${t}: its patient is found via ${owner.via}, whose rows do not name a paciente_id`);
    }
    if (owner && 'appendOnly' in owner && e.versioned) errors.push(`${t}: an append-only patient table is not versioned (its bump is conditional)`);
  }
  return errors;
}

const errors = registryErrors();
if (errors.length > 0) throw new Error(`the table registry contradicts itself: ${errors.join('; ')}`);
