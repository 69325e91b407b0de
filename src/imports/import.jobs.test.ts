import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvFile } from '../../test/imports/import-helpers.js';
import { patientCells } from '../../test/imports/import-files.js';
import { isDomainError } from '../shared/domain-error.js';
import { FILE_MSG, IMPORT_BAD_FILE } from './import.errors.js';
import { createImportJobs, type Lookups } from './import.jobs.js';
import { IMPORT_FIELDS } from './import.rules.js';

const none: Lookups = { existing: async () => [], born: async () => [] };
const unreadable = (e: unknown) => isDomainError<{ message: string }>(e, IMPORT_BAD_FILE) && e.details.message === FILE_MSG.unreadable;

describe('the import worker thread (decision 0057)', () => {
  test('a file that needs more than the thread’s heap ends the thread with a clear message; the next file gets a new thread', async () => {
    const crashes: unknown[] = [];
    const jobs = createImportJobs({ resourceLimits: { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 8 }, onCrash: (err) => crashes.push(err) });
    try {
      const big = csvFile([...IMPORT_FIELDS], patientCells(20_000, '5').cells, { encoding: 'utf8' });
      await assert.rejects(jobs.analyse({ fileName: 'grande.csv', data: big, today: '2026-11-22', lookups: none }), unreadable);
      assert.equal(crashes.length, 1);
      assert.match(String((crashes[0] as { code?: string }).code ?? crashes[0]), /ERR_WORKER_OUT_OF_MEMORY/);
      const small = csvFile([...IMPORT_FIELDS], patientCells(3, '6').cells, { encoding: 'utf8' });
      const result = await jobs.analyse({ fileName: 'pequeño.csv', data: small, today: '2026-11-22', lookups: none });
      assert.equal(result.summary.counts.crear, 3);
    } finally {
      await jobs.close();
    }
  });

  test('a job past its deadline ends the thread: refused as unreadable; the lookups’ answers reach the analysis', async () => {
    const file = csvFile([...IMPORT_FIELDS], patientCells(2, '7').cells, { encoding: 'utf8' });
    const slow = createImportJobs({ timeoutMs: 1 });
    try {
      await assert.rejects(slow.analyse({ fileName: 'a.csv', data: file, today: '2026-11-22', lookups: none }), unreadable);
    } finally {
      await slow.close();
    }
    const jobs = createImportJobs();
    try {
      const asked: string[][] = [];
      const result = await jobs.analyse({
        fileName: 'a.csv',
        data: file,
        today: '2026-11-22',
        lookups: {
          existing: async (keys) => {
            asked.push(keys);
            return [[keys[0]!, 77]];
          },
          born: async () => [],
        },
      });
      assert.deepEqual(asked, [['7000000', '7000001']]);
      assert.deepEqual(result.summary.counts, { total: 2, crear: 1, revisar: 0, omitir: 1, conErrores: 0, duplicados: 1 });
      assert.deepEqual(result.shown.find((r) => r.status === 'omitir')!.documentoDuplicate, { patientId: 77 });
    } finally {
      await jobs.close();
    }
  });
});
