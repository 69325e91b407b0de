// The JSON Schema of the structure (src/rips/schema/, one file per version) used by the page's checks: each usuario
// the file would carry is validated against the schema's `usuario` definition before the file is offered. The check
// is ajv's code for that definition, generated beside the schema (rips.validator.generate.ts, decision 0150): no
// server compiles the schema, and the code is loaded on the first RIPS request only (a dynamic import).

import type { ValidateFunction } from 'ajv';

let usuarioValidator: Promise<ValidateFunction> | null = null;

/** The compiled check of one usuario (version res2275-v1). */
export function ripsUsuarioValidator(): Promise<ValidateFunction> {
  usuarioValidator ??= import('./schema/rips-res2275-v1.usuario-validator.js').then((m) => m.default as ValidateFunction);
  return usuarioValidator;
}

/** The schema's complaints about a usuario, as short texts ('' when valid). */
export function schemaComplaints(validate: ValidateFunction, usuario: unknown): string[] {
  if (validate(usuario)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}
