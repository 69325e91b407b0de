import type { FastifyInstance } from 'fastify';
import { actionContext } from '../web/action-context.js';
import { parseId } from '../web/form.js';
import { exportPatientFhir } from './fhir.actions.js';

export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

/**
 * GET /patients/<id>/fhir/: the patient's record as a FHIR R4 Bundle of type collection (decision 0040),
 * read-only, for every logged-in user; logged as an export in the audit trail. Rendered per request.
 */
export async function fhirRoutes(app: FastifyInstance): Promise<void> {
  app.get('/:id/fhir/', async (request, reply) => {
    const id = parseId((request.params as { id?: string }).id);
    if (id === null) return reply.callNotFound();
    const bundle = await exportPatientFhir(actionContext(request), id);
    if (bundle === null) return reply.callNotFound();
    return reply.type(FHIR_JSON).header('Content-Disposition', `attachment; filename="paciente-${id}.fhir.json"`).send(bundle);
  });
}
