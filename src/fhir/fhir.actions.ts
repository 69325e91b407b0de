// The FHIR exports as use cases (issue 26): each writes its `export` entry in the trail, in a transaction of its
// own, and returns what the caller sends or prints. The route and the `export:fhir` command call them.
import { recordExport } from '../audit/audit.actions.js';
import type { ActionContext } from '../platform/writes/action-context.js';
import { exportNdjson } from './fhir.bulk.js';
import { loadPatientRecord } from './fhir.repository.js';
import { collectionBundle, patientResources } from './fhir.rules.js';

/** One patient's record as a FHIR R4 collection Bundle, as JSON text (decision 0040); null for an unknown patient. */
export async function exportPatientFhir(ctx: ActionContext, patientId: number): Promise<string | null> {
  const record = await loadPatientRecord(ctx.db, patientId);
  if (!record) return null;
  const at = ctx.clock.now();
  const resources = patientResources(record, ctx.timeZone);
  await recordExport(ctx, { exportacion: 'fhir', paciente: patientId, recursos: resources.length }, { at, patientId });
  return JSON.stringify(collectionBundle(resources, at.toISOString()));
}

/** The whole database as FHIR NDJSON files in `outDir` (decision 0041), then its entry; the counts per resource type. */
export async function exportAllFhir(ctx: ActionContext, outDir: string) {
  const counts = await exportNdjson(ctx.db, outDir, { timeZone: ctx.timeZone });
  await recordExport(ctx, { exportacion: 'fhir-ndjson', recursos: counts });
  return counts;
}
