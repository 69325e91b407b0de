import type { FastifyInstance } from 'fastify';
import { recordAudit } from '../audit/audit.repository.js';
import { parseId } from '../web/form.js';
import { loadPatientRecord } from './fhir.repository.js';
import { collectionBundle, patientResources } from './fhir.rules.js';

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/**
 * GET /patients/<id>/fhir/: the patient's record as a FHIR R4 Bundle of type collection (decision 0040),
 * read-only, for every logged-in user; logged as an export in the audit trail. Rendered per request.
 */
export async function fhirRoutes(app: FastifyInstance): Promise<void> {
  const { db, clock } = app.deps;
  app.get('/:id/fhir/', async (request, reply) => {
    const id = parseId((request.params as { id?: string }).id);
    if (id === null) return reply.callNotFound();
    const record = await loadPatientRecord(db, id);
    if (!record) return reply.callNotFound();
    const at = clock.now();
    const resources = patientResources(record);
    const user = request.user;
    await recordAudit(db, {
      at,
      actor: user ? { id: user.id, username: user.username } : null,
      action: 'export',
      entityType: 'export',
      patientId: id,
      changes: { exportacion: 'fhir', paciente: id, recursos: resources.length },
      requestId: String(request.id),
    });
    return reply
      .type(FHIR_JSON)
      .header('Content-Disposition', `inline; filename="paciente-${id}.fhir.json"`)
      .send(JSON.stringify(collectionBundle(resources, at.toISOString())));
  });
}
