import { labelOf, TIPOS_DOCUMENTO } from '../patient.rules.js';
import type { DocumentoCollisionRow } from '../identity.repository.js';
import { groupBy } from '../../shared/collections.js';
import { Layout } from '../../web/layout.js';
import type { PageContext } from '../../web/render.js';

/**
 * /users/documentos/ (administrators): patients registered before documentos were compared by their canonical
 * form whose documentos turned out to be the same (decision 0030). Nothing was merged or dropped: staff open each
 * record and correct the documento, or record what happened, until the group disappears from this list.
 */
export function DocumentoCollisionsPage({ ctx, rows }: { ctx: PageContext; rows: DocumentoCollisionRow[] }) {
  const groups = [...groupBy(rows, (r: DocumentoCollisionRow) => r.documento_key)];
  return (
    <Layout ctx={ctx} title="Documentos repetidos">
      <h1>Documentos repetidos</h1>
      <p>
        Pacientes registrados antes de que los documentos se compararan sin espacios, puntos, guiones, caracteres
        invisibles ni diferencias de mayúsculas o de ancho, y que resultaron tener el mismo documento. No se fusionó ni
        se borró nada: abra cada ficha, corrija el documento que esté mal y el grupo desaparecerá de esta lista.
      </p>
      {groups.length === 0 ? (
        <p data-collisions="0">No hay documentos repetidos pendientes.</p>
      ) : (
        <div class="table-wrap">
          <table class="table" data-table="documento-collisions" data-collisions={String(groups.length)}>
            <thead>
              <tr>
                <th scope="col">Documento (forma canónica)</th>
                <th scope="col">Ficha</th>
                <th scope="col">Paciente</th>
                <th scope="col">Tipo</th>
                <th scope="col">Documento como se escribió</th>
              </tr>
            </thead>
            <tbody>
              {groups.flatMap(([key, members]) =>
                members.map((m, i) => (
                  <tr data-documento-key={key} data-patient-id={String(m.id)}>
                    {i === 0 && <td rowSpan={members.length}>{key}</td>}
                    <td>
                      <a href={`/patients/${m.id}/`}>n.º {m.id}</a>
                    </td>
                    <td>
                      {m.nombre} {m.apellido}
                    </td>
                    <td>{labelOf(TIPOS_DOCUMENTO, m.tipo_documento)}</td>
                    <td>
                      <code>{JSON.stringify(m.documento).slice(1, -1)}</code>
                    </td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
