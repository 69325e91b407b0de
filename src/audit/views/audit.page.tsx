import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';
import { ACTION_LABELS, ENTITY_LABELS } from '../audit.labels.js';
import { auditQueryString, type AuditFilterValues } from '../audit.filters.js';
import type { AuditListRow } from '../audit.repository.js';
import { AuditTable } from './audit-entry.js';

export interface AuditPageProps {
  ctx: PageContext;
  entries: AuditListRow[];
  values: AuditFilterValues;
  users: { id: number; username: string }[];
  /** id of the last entry shown when there are older ones */
  nextCursor: number | null;
  isFirstPage: boolean;
  timeZone: string;
}

function Options({ map, current }: { map: Readonly<Record<string, string>>; current: string }) {
  const keys = Object.keys(map);
  return (
    <>
      <option value="">Todas</option>
      {keys.map((k) => (
        <option value={k} selected={k === current}>
          {map[k]}
        </option>
      ))}
      {current !== '' && !keys.includes(current) && (
        <option value={current} selected>
          {current}
        </option>
      )}
    </>
  );
}

export function AuditPage({ ctx, entries, values, users, nextCursor, isFirstPage, timeZone }: AuditPageProps) {
  return (
    <Layout ctx={ctx} title="Auditoría">
      <h1>Auditoría</h1>
      <p class="muted">Todo cambio, consulta de fichas, exportación e inicio de sesión, del más reciente al más antiguo. Nadie puede editarlo ni borrarlo.</p>
      <form method="get" action="/users/audit/" class="filters card" novalidate>
        <div class="field">
          <label for="id_usuario">Usuario</label>
          <select id="id_usuario" name="usuario">
            <option value="">Todos</option>
            {users.map((u) => (
              <option value={String(u.id)} selected={String(u.id) === values.usuario}>
                {u.username}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="id_accion">Acción</label>
          <select id="id_accion" name="accion">
            <Options map={ACTION_LABELS} current={values.accion} />
          </select>
        </div>
        <div class="field">
          <label for="id_entidad">Tipo de registro</label>
          <select id="id_entidad" name="entidad">
            <Options map={ENTITY_LABELS} current={values.entidad} />
          </select>
        </div>
        <div class="field">
          <label for="id_registro">N.º de registro</label>
          <input id="id_registro" name="registro" inputMode="numeric" value={values.registro} maxLength={10} />
        </div>
        <div class="field">
          <label for="id_paciente">Paciente (n.º, documento o nombre)</label>
          <input id="id_paciente" name="paciente" type="search" value={values.paciente} maxLength={200} />
        </div>
        <div class="field">
          <label for="id_desde">Desde</label>
          <input id="id_desde" name="desde" type="date" value={values.desde} />
        </div>
        <div class="field">
          <label for="id_hasta">Hasta</label>
          <input id="id_hasta" name="hasta" type="date" value={values.hasta} />
        </div>
        <button type="submit" class="button primary">
          Filtrar
        </button>
        <a class="button" href="/users/audit/">
          Quitar filtros
        </a>
        <a class="button" href={`/users/audit/export.csv${auditQueryString(values)}`}>
          Exportar CSV
        </a>
      </form>
      <AuditTable entries={entries} timeZone={timeZone} empty="No hay entradas con estos filtros." />
      <nav class="pagination" aria-label="Páginas">
        {!isFirstPage && <a href={`/users/audit/${auditQueryString(values)}`}>« Más recientes</a>}
        {nextCursor !== null && (
          <a href={`/users/audit/${auditQueryString(values, { antes: String(nextCursor) })}`} rel="next">
            Más antiguas »
          </a>
        )}
      </nav>
    </Layout>
  );
}
