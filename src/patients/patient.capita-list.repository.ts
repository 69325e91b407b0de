// The lists by the program's month (/patients/, /exams/ and their tests): the list pages' search
// (patient.list.repository.ts) with mes_filtro read as the Ingreso's rules date it, and each row's mes_capita.

import type { Executor } from '../db/database.js';
import { mesCapita, mesFiltroRange } from '../ingresos/ingreso.rules.js';
import { findListPage, type ListedPatient, type ListPage, type ListSearch } from './patient.list.repository.js';

export interface PatientSearch extends Omit<ListSearch, 'activeRange'> {
  mesFiltro?: number | null;
  today: string;
}

export interface PatientListRow extends ListedPatient {
  /** mes_capita of the ACTIVO Ingreso (1..18), or null when there is none. */
  mes_capita: number | null;
}

export type PatientSearchResult = ListPage<PatientListRow>;

/** One page of the patients matching the search (active or all, one mes_filtro or every month), in list order. */
export async function searchPatients(db: Executor, s: PatientSearch): Promise<PatientSearchResult> {
  const { mesFiltro, today, ...search } = s;
  const found = await findListPage(db, { ...search, activeRange: mesFiltro != null ? mesFiltroRange(mesFiltro, today) : null });
  return { ...found, rows: found.rows.map((r) => ({ ...r, mes_capita: r.fecha_inicio ? mesCapita(r.fecha_inicio, today) : null })) };
}
