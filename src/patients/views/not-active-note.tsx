import { countOf } from '../../shared/text.js';
import { listUrl } from '../patient.schema.js';

/**
 * Beside an active list's empty result (/patients/, /exams/): the patients without an ACTIVO cycle the search does
 * match, and the link to them in Seguimiento (issue 29, point 8). Nothing when there are none.
 */
export function NotActiveNote({ count, query }: { count: number; query: string }) {
  if (count === 0) return null;
  return (
    <>
      {' '}
      <span data-not-active={String(count)}>
        {count === 1 ? '1 paciente sin ciclo activo (suspendido o terminado) sí coincide' : `${countOf(count, 'paciente', 'pacientes')} sin ciclo activo (suspendidos o terminados) sí coinciden`}
        : <a href={listUrl('/patients/follow', { query_search: query })}>{count === 1 ? 'verlo en Seguimiento' : 'verlos en Seguimiento'}</a>.
      </span>
    </>
  );
}
