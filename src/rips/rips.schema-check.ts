// The JSON Schema of the structure (src/rips/schema/, one file per version) used by the page's checks: each usuario
// the file would carry is validated against the schema's `usuario` definition before the file is offered. ajv and the
// schema are loaded on the first RIPS request only (a dynamic import), not in every server's heap.

import type { ValidateFunction } from 'ajv';

let usuarioValidator: Promise<ValidateFunction> | null = null;

/** The compiled check of one usuario (version res2275-v1). */
export function ripsUsuarioValidator(): Promise<ValidateFunction> {
  usuarioValidator ??= (async () => {
    const [{ Ajv }, schema] = await Promise.all([import('ajv'), import('./schema/rips-res2275-v1.schema.json', { with: { type: 'json' } })]);
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema(schema.default);
    const validate = ajv.getSchema(`${schema.default.$id}#/definitions/usuario`);
    if (!validate) throw new Error('the RIPS schema has no usuario definition');
    return validate;
  })();
  return usuarioValidator;
}

/** The schema's complaints about a usuario, as short texts ('' when valid). */
export function schemaComplaints(validate: ValidateFunction, usuario: unknown): string[] {
  if (validate(usuario)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}
