import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { CsrfCheck } from '../web/csrf.js';
import { sendErrorPage } from '../web/errors.js';
import { importRoutes, type UploadedFile } from './import.routes.js';
import { MAX_IMPORT_BYTES } from './import.rules.js';

// Multipart bodies (the spreadsheet upload, decision 0042) are parsed only in a scope of their own: its parser and
// the multipart plugin's three hooks run for no other request (decision 0055), and any other route has no parser
// for them (415). The plugin parses the body in a preValidation hook, which runs after the application's own: the
// CSRF token, a field of that body, is checked by this scope after it, and the application's check leaves the
// scope's routes (marked by the scope itself) to it.
export async function uploadScope(uploads: FastifyInstance, options: { checkCsrf: CsrfCheck; confirmWaitMs?: number | undefined }): Promise<void> {
  uploads.addHook('onRoute', (route) => {
    route.config = { ...route.config, uploadScope: true };
  });
  // Within the scope, only the routes that ask for multipart (`config: { multipart: true }`) take it.
  uploads.addHook('onRequest', async (request, reply) => {
    if (/^multipart\//i.test(request.headers['content-type'] ?? '') && !request.routeOptions.config.multipart) {
      return sendErrorPage(request, reply, 415);
    }
  });
  await uploads.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 5, fieldSize: 1000, parts: 6, headerPairs: 100 },
    onFile: async (part: MultipartFile) => {
      const data = await part.toBuffer();
      (part as MultipartFile & { value: UploadedFile }).value = { filename: part.filename, data, truncated: part.file.truncated };
    },
  });
  uploads.addHook('preValidation', options.checkCsrf);
  await uploads.register(importRoutes, { prefix: '/patients/import', confirmWaitMs: options.confirmWaitMs });
}
