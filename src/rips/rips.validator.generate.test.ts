import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { VALIDATOR_FILE, validatorSource } from './rips.validator.generate.js';

test('the generated usuario check is up to date with the RIPS JSON Schema', () => {
  assert.equal(readFileSync(VALIDATOR_FILE, 'utf8'), validatorSource(), 'run: npx tsx src/rips/rips.validator.generate.ts');
});
