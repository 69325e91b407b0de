// The import's confirm form (decision 0042): which upload, its digest as previewed, and whether the rows with a
// possible duplicate person are imported too.

import { z } from 'zod';
import { parseId } from '../web/form.js';

/** An upload_id that is no id gives null: the route answers that the preview is gone, as for an unknown one. */
export const confirmSchema = z.object({
  upload_id: z.string().transform(parseId),
  digest: z.string(),
  incluir_posibles_duplicados: z.string().transform((v) => v === '1'),
});

/** Discarding a pending preview: which upload. */
export const discardSchema = z.object({
  upload_id: z.string().transform(parseId),
});
