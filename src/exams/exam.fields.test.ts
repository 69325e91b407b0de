// The exam field table is the one description of each field: the forms' schemas post exactly its fields per kind,
// and the limits an input's hint shows are the ones its parser holds (issue 26).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAM_FIELDS, EXAM_KIND_FIELDS, examFieldHint, type ExamFieldDef } from './exam.fields.js';
import { examSchema } from './exam.schema.js';

const TODAY = '2026-11-22';
const BASE: Record<string, string> = { fecha: '2026-11-01', tipo: 'POLIGRAFIA', tipo_sesion: 'SEGUIMIENTO', nombre_examen: 'Examen' };

describe('exam field table', () => {
  for (const [kind, names] of Object.entries(EXAM_KIND_FIELDS) as [keyof typeof EXAM_KIND_FIELDS, readonly string[]][]) {
    test(`${kind}: the schema posts the table's fields, and each number's hint bounds what it accepts`, () => {
      const schema = examSchema(kind, TODAY);
      assert.deepEqual(Object.keys(schema.shape), [...names]);
      const blank = Object.fromEntries(names.map((n) => [n, BASE[n] ?? '']));
      assert.ok(schema.safeParse(blank).success, 'the required fields alone are enough');
      for (const name of names) {
        const def: ExamFieldDef = EXAM_FIELDS[name as keyof typeof EXAM_FIELDS];
        const hint = examFieldHint(def);
        if (hint === undefined) continue;
        const [low, high] = hint.split(' a ').map(Number) as [number, number];
        const accepts = (v: number) => schema.safeParse({ ...blank, [name]: String(v) }).success;
        assert.ok(accepts(low) && accepts(high), `${name} accepts ${hint}`);
        assert.ok(!accepts(high + 1), `${name} refuses ${high + 1}`);
        if (low > 0) assert.ok(!accepts(low - 1), `${name} refuses ${low - 1}`);
      }
      for (const name of names) {
        const def: ExamFieldDef = EXAM_FIELDS[name as keyof typeof EXAM_FIELDS];
        if (def.kind !== 'text' || def.max === undefined) continue;
        assert.ok(!schema.safeParse({ ...blank, [name]: 'x'.repeat(def.max + 1) }).success, `${name} refuses ${def.max + 1} characters`);
      }
    });
  }
});
