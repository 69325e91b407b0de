import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { editDistance, similarNames } from '../patients/patient.rules.js';
import { blockingKeys, MAX_SIMILAR_GROUP, nameKeyOf, SimilarGroupTooLarge, SimilarIndex, similarKeys, withinOneEdit } from './import.duplicates.js';
import { analyseRows, IMPORT_FIELDS, type ImportField } from './import.rules.js';

// Names from a small alphabet, so that similar pairs (one edit, swapped words) come up often.
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'n', 'o', 'á', 'Ñ'), minLength: 0, maxLength: 6 });
const name = fc.record({ nombre: fc.array(word, { maxLength: 3 }).map((w) => w.join(' ')), apellido: fc.array(word, { maxLength: 3 }).map((w) => w.join(' ')) });
/** A name and one edit of it (added, dropped, changed or swapped characters) or its words reordered. */
const pair = fc.tuple(name, fc.nat(40), fc.constantFrom('add', 'drop', 'change', 'swap', 'reorder'), fc.constantFrom('a', 'n', 'x')).map(([a, at, how, ch]) => {
  const full = `${a.nombre} ${a.apellido}`;
  const i = full.length === 0 ? 0 : at % full.length;
  const edited =
    how === 'add' ? full.slice(0, i) + ch + full.slice(i)
    : how === 'drop' ? full.slice(0, i) + full.slice(i + 1)
    : how === 'change' ? full.slice(0, i) + ch + full.slice(i + 1)
    : how === 'swap' ? full.slice(0, i) + full.slice(i + 1, i + 2) + full.slice(i, i + 1) + full.slice(i + 2)
    : full.split(' ').reverse().join(' ');
  return [a, { nombre: edited, apellido: '' }] as const;
});

describe('possible duplicates in linear time (decision 0057)', () => {
  test('withinOneEdit says what editDistance(a, b, 1) <= 1 says', () => {
    fc.assert(
      fc.property(word, word, (a, b) => withinOneEdit(a, b) === editDistance(a, b, 1) <= 1),
      { numRuns: 3000 },
    );
  });

  test('similarKeys says what similarNames says, and two similar names born the same day share a key', () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(name, name)), ([a, b]) => {
        const ka = nameKeyOf(a.nombre, a.apellido);
        const kb = nameKeyOf(b.nombre, b.apellido);
        const similar = similarNames(a, b);
        if (ka === null || kb === null) return !similar;
        assert.equal(similarKeys(ka, kb), similar);
        if (similar) {
          const keys = new Set(blockingKeys('1960-01-01', ka));
          assert.ok(blockingKeys('1960-01-01', kb).some((k) => keys.has(k)), `${ka.joined} / ${kb.joined}`);
        }
        return true;
      }),
      { numRuns: 5000 },
    );
  });

  test('the index finds each similar person once, only on the same day, and refuses a group over its bound', () => {
    const index = new SimilarIndex<number>();
    index.add('1960-01-01', nameKeyOf('Ana', 'Ruiz Gil')!, 1);
    index.add('1960-01-01', nameKeyOf('Gil', 'Ruiz Ana')!, 2);
    index.add('1961-01-01', nameKeyOf('Ana', 'Ruiz Gil')!, 3);
    assert.deepEqual(index.find('1960-01-01', nameKeyOf('Ana', 'Ruis Gil')!).sort(), [1]);
    assert.deepEqual(index.find('1960-01-01', nameKeyOf('ANA', 'GIL RUIZ')!).sort(), [1, 2]);
    const bounded = new SimilarIndex<number>();
    for (let i = 0; i < MAX_SIMILAR_GROUP; i++) bounded.add('1960-01-01', nameKeyOf('Ana', 'Ruiz')!, i, { maxGroup: MAX_SIMILAR_GROUP, line: i });
    assert.throws(() => bounded.add('1960-01-01', nameKeyOf('Ana', 'Ruiz')!, 99, { maxGroup: MAX_SIMILAR_GROUP, line: 99 }), SimilarGroupTooLarge);
  });
});

describe('analyseRows with thousands of rows born the same day', () => {
  const base: Record<string, string> = {
    nombre: 'Ana', apellido: 'Ruiz', tipo_documento: 'CC', documento: '1', fecha_nacimiento: '1960-01-01', genero: 'F', departamento: '',
    ciudad: 'BUCARAMANGA', zona: 'URBANA', telefono: '1', celular: '2', estado_civil: 'CASADO', entidad_salud: 'ENTITY_A', estrato: '3',
    peso: '', altura: '', perimetro_abdominal: '', cuello: '', medico_remitente: 'X', especialidad: 'Y', diagnostico_clinico: 'G47.3',
    programa: 'PROGRAMA AOS', valor_capita: '', fecha_inicio_programa: '', estado: '',
  };
  const columns = [...IMPORT_FIELDS] as (ImportField | null)[];
  const row = (o: Record<string, string>) => IMPORT_FIELDS.map((f) => ({ ...base, ...o })[f] ?? '');
  // Names that are pairwise far apart: a number spelled in letters (no digits in a name's words matter).
  const spelled = (i: number) => [...String(i).padStart(5, '0')].map((d) => 'abcdefghij'[Number(d)]).join('');

  test('5,000 different people born the same day: all to create, none compared with the others', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => row({ documento: String(1_000_000 + i), nombre: `Persona ${spelled(i)}`, apellido: `Prueba${spelled(i)}` }));
    // One near-duplicate of the first, at the end: found among the 5,000.
    rows.push(row({ documento: '999', nombre: `Persona ${spelled(0)}`, apellido: `Prueva${spelled(0)}` }));
    const a = analyseRows(rows, columns, '2026-11-22', new Map(), []);
    assert.equal(a.counts.crear, 5000);
    assert.equal(a.counts.revisar, 1);
    assert.deepEqual(a.rows.at(-1)!.similar.lines, [2]);
  });

  test(`more than ${MAX_SIMILAR_GROUP} rows of one birth date and nearly the same name: the file is refused, naming the date and a line`, () => {
    const rows = Array.from({ length: MAX_SIMILAR_GROUP + 1 }, (_, i) => row({ documento: String(2_000_000 + i), nombre: 'Ana', apellido: i % 2 ? 'Ruiz' : 'Ruis' }));
    assert.throws(() => analyseRows(rows, columns, '2026-11-22', new Map(), []), (e: unknown) => e instanceof SimilarGroupTooLarge && e.date === '1960-01-01' && e.line === MAX_SIMILAR_GROUP + 2);
    const fewer = analyseRows(rows.slice(0, MAX_SIMILAR_GROUP), columns, '2026-11-22', new Map(), []);
    assert.equal(fewer.counts.revisar, MAX_SIMILAR_GROUP - 1);
    assert.equal(fewer.rows.at(-1)!.similar.lines.length, MAX_SIMILAR_GROUP - 1);
  });
});
