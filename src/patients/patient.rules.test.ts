import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DECIMAL_MAX_HUNDREDTHS,
  editDistance,
  similarNames,
  DEFAULT_VALOR_CAPITA_HUNDREDTHS,
  DIAGNOSTICOS,
  ENTIDADES_SALUD,
  ESTADOS_CIVILES,
  ESTRATOS,
  GENEROS,
  MAX_LENGTHS,
  PROGRAMAS,
  TIPOS_DOCUMENTO,
  ZONAS,
  choiceValues,
  BIRTH_MSG,
  birthDateProblem,
  collidingDocumentoKey,
  documentoKey,
  documentoProblem,
  edad,
  imc,
  labelOf,
  matchChoice,
  patientDerivedColumns,
  searchNeedle,
  searchWords,
  type Choice,
} from './patient.rules.js';
import { normalizeForMatch } from '../shared/text.js';

describe('choice lists carry exactly the specification values', () => {
  const cases: Array<[string, readonly (string | number)[], readonly (string | number)[]]> = [
    ['TIPOS_DOCUMENTO', choiceValues(TIPOS_DOCUMENTO), ['RC', 'TI', 'CC', 'CE', 'PA', 'PE']],
    ['GENEROS', choiceValues(GENEROS), ['M', 'F', 'O']],
    ['ZONAS', choiceValues(ZONAS), ['URBANA', 'RURAL']],
    ['ESTADOS_CIVILES', choiceValues(ESTADOS_CIVILES), ['SOLTERO', 'CASADO', 'UNIÓN LIBRE', 'VIUDO', 'DIVORCIADO']],
    ['ENTIDADES_SALUD', choiceValues(ENTIDADES_SALUD), ['ENTITY_A', 'ENTITY_B']],
    ['ESTRATOS', choiceValues(ESTRATOS), [1, 2, 3, 4, 5, 6]],
    ['DIAGNOSTICOS', choiceValues(DIAGNOSTICOS), ['G47.3']],
    ['PROGRAMAS', choiceValues(PROGRAMAS), ['PROGRAMA AOS', 'PROGRAMA INSOMNIO']],
  ];
  for (const [name, actual, expected] of cases) {
    test(name, () => assert.deepEqual(actual, expected));
  }
  test('Spanish labels', () => {
    assert.equal(labelOf(TIPOS_DOCUMENTO, 'CC'), 'Cédula de ciudadanía');
    assert.equal(labelOf(TIPOS_DOCUMENTO, 'PE'), 'Permiso especial de permanencia');
    assert.equal(labelOf(GENEROS, 'M'), 'Masculino');
    assert.equal(labelOf(GENEROS, 'F'), 'Femenino');
    assert.equal(labelOf(GENEROS, 'O'), 'Otro');
    assert.equal(labelOf(DIAGNOSTICOS, 'G47.3'), 'Apnea del Sueño');
    assert.equal(labelOf(ESTRATOS, 3), '3');
    assert.equal(labelOf(GENEROS, 'X'), 'X');
  });
});

describe('matchChoice', () => {
  const cases: Array<[name: string, actual: string | number | null, expected: string | number | null]> = [
    ['exact', matchChoice(TIPOS_DOCUMENTO, 'CC'), 'CC'],
    ['lower case', matchChoice(TIPOS_DOCUMENTO, 'cc'), 'CC'],
    ['padded', matchChoice(GENEROS, ' f '), 'F'],
    ['accentless union libre', matchChoice(ESTADOS_CIVILES, 'union libre'), 'UNIÓN LIBRE'],
    ['exact UNIÓN LIBRE', matchChoice(ESTADOS_CIVILES, 'UNIÓN LIBRE'), 'UNIÓN LIBRE'],
    ['extra spaces', matchChoice(ESTADOS_CIVILES, '  Unión   Libre '), 'UNIÓN LIBRE'],
    ['diagnosis', matchChoice(DIAGNOSTICOS, 'g47.3'), 'G47.3'],
    ['programa', matchChoice(PROGRAMAS, 'programa insomnio'), 'PROGRAMA INSOMNIO'],
    ['entidad', matchChoice(ENTIDADES_SALUD, 'entity_b'), 'ENTITY_B'],
    ['zona', matchChoice(ZONAS, 'Rural'), 'RURAL'],
    ['estrato as text', matchChoice(ESTRATOS, '3'), 3],
    ['estrato as number', matchChoice(ESTRATOS, 6), 6],
    ['estrato out of range', matchChoice(ESTRATOS, '7'), null],
    ['estrato zero', matchChoice(ESTRATOS, '0'), null],
    ['label is not a value', matchChoice(GENEROS, 'Masculino'), null],
    ['unknown', matchChoice(TIPOS_DOCUMENTO, 'NIT'), null],
    ['empty', matchChoice(TIPOS_DOCUMENTO, ''), null],
    ['punctuation only', matchChoice(DIAGNOSTICOS, '.'), null],
    ['other diagnosis', matchChoice(DIAGNOSTICOS, 'G47.0'), null],
  ];
  for (const [name, actual, expected] of cases) {
    test(name, () => assert.equal(actual, expected));
  }

  test('on every list, what a search of the list in order gives: the first value whose tolerant key is the input\'s', () => {
    const lists: readonly (readonly Choice<string | number>[])[] = [TIPOS_DOCUMENTO, GENEROS, ZONAS, ESTADOS_CIVILES, ENTIDADES_SALUD, ESTRATOS, DIAGNOSTICOS, PROGRAMAS];
    const searched = (choices: readonly Choice<string | number>[], input: string) => {
      const key = normalizeForMatch(input);
      return key === '' ? null : (choices.find((c) => normalizeForMatch(String(c.value)) === key)?.value ?? null);
    };
    const variant = (value: string) =>
      fc.constantFrom(value, value.toLowerCase(), ` ${value} `, value.replace(/ /g, '   '), value.normalize('NFD'), value.replace(/[ÓÍ]/g, (c) => (c === 'Ó' ? 'O' : 'I')), `${value}x`, value.slice(1));
    const input = fc.oneof(
      fc.constantFrom(...lists.flatMap((l) => l.map((c) => String(c.value)))).chain(variant),
      fc.constantFrom(...lists.flatMap((l) => l.map((c) => c.label))),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...lists), input, (choices, text) => {
        assert.equal(matchChoice(choices, text), searched(choices, text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('edad', () => {
  const cases: Array<[birth: string, today: string, expected: number]> = [
    ['1980-11-22', '2026-11-22', 46], // birthday today
    ['1980-11-23', '2026-11-22', 45], // birthday tomorrow
    ['1980-11-21', '2026-11-22', 46],
    ['1980-12-01', '2026-11-22', 45],
    ['1980-01-01', '2026-12-31', 46],
    ['2026-11-22', '2026-11-22', 0],
    ['2025-11-23', '2026-11-22', 0],
    ['2025-11-22', '2026-11-22', 1],
    // 29 February: completed on 1 March in common years, on 29 February in leap years.
    ['2000-02-29', '2025-02-28', 24],
    ['2000-02-29', '2025-03-01', 25],
    ['2000-02-29', '2024-02-28', 23],
    ['2000-02-29', '2024-02-29', 24],
    ['2000-03-01', '2025-02-28', 24],
    // Future birth dates are refused by the form; here they give 0 rather than a negative age.
    ['2027-01-01', '2026-11-22', 0],
  ];
  for (const [birth, today, expected] of cases) {
    test(`born ${birth}, on ${today} → ${expected}`, () => assert.equal(edad(birth, today), expected));
  }
});

describe('imc', () => {
  const cases: Array<[peso: number | null, altura: number | null, expected: number | null]> = [
    [7000, 175, 22.9], // 70 kg, 1,75 m → 22.857
    [8000, 180, 24.7], // 24.691
    [10000, 200, 25],
    [5000, 160, 19.5], // 19.53125
    [12000, 170, 41.5], // 41.522
    [6125, 175, 20], // 19.9999… → 20.0
    [7225, 170, 25], // exactly 25.0
    [4625, 200, 11.6], // 11.5625 → 11.6
    [4620, 200, 11.6], // 11.55 → 11.6 (exact half rounds up)
    [4618, 200, 11.5], // 11.545
    [99999, 9999, 0.1], // 999,99 kg at 99,99 m
    [99999, 1, 9999900], // absurd but finite
    [null, 175, null],
    [7000, null, null],
    [null, null, null],
    [7000, 0, null],
    [0, 175, null],
  ];
  for (const [peso, altura, expected] of cases) {
    test(`peso ${peso}, altura ${altura} → ${expected}`, () => assert.equal(imc(peso, altura), expected));
  }
});

describe('limits and defaults', () => {
  test('decimal maxima in hundredths', () => {
    assert.deepEqual(DECIMAL_MAX_HUNDREDTHS, {
      peso: 99999,
      altura: 9999,
      perimetro_abdominal: 99999,
      cuello: 99999,
      valor_capita: 9999999999,
    });
    assert.equal(DEFAULT_VALOR_CAPITA_HUNDREDTHS, 25978300);
  });
  test('text maxima', () => {
    assert.equal(MAX_LENGTHS.nombre, 100);
    assert.equal(MAX_LENGTHS.documento, 20);
  });
});

describe('documentoKey: one documento, however it is typed (decision 0030)', () => {
  test('the variants that were registered as seven patients give one key', () => {
    const variants = ['881234', '88\u200b1234', '88\u200c1234', '８８１２３４', '88 1234', '88-1234', '88.1234', ' 881234 ', '88\u00a01234', '88\u20131234', '\ufeff881234'];
    for (const v of variants) assert.equal(documentoKey(v), '881234', JSON.stringify(v));
  });
  test('letters are upper-cased, full-width letters folded, distinct documents stay distinct', () => {
    assert.equal(documentoKey('ab-123'), 'AB123');
    assert.equal(documentoKey('ＡＢ１２３'), 'AB123');
    assert.notEqual(documentoKey('881234'), documentoKey('881243'));
    assert.notEqual(documentoKey('AB123'), documentoKey('AB1234'));
  });
  test('idempotent: the key of a key is itself', () => {
    assert.equal(documentoKey(documentoKey(' 8８.1\u200b2-3 4 ')), documentoKey(' 8８.1\u200b2-3 4 '));
  });

  // What a person cannot tell apart: invisible characters, full-width forms, the separators people type, case.
  const INVISIBLES = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u200e', '\u200f', '\u180e', '\ufe0f'];
  const SEPARATORS = [' ', '.', '-', '\u00a0', '\u2009', '\u3000', '\u2010', '\u2011', '\u2013', '\u2014', '\u2212', '\uff0e', '\uff0d', '\t'];
  const fullWidth = (c: string) => (/[0-9A-Za-z]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c);
  const glyph = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split(''));
  /** One way a person might type the documento `base`: each character in either case, half or full width, with noise around. */
  const typing = (base: string[]) =>
    fc
      .tuple(
        ...base.map(() =>
          fc.record({
            lower: fc.boolean(),
            wide: fc.boolean(),
            noise: fc.array(fc.constantFrom(...INVISIBLES, ...SEPARATORS), { maxLength: 2 }),
          }),
        ),
      )
      .map((choices) =>
        base
          .map((c, i) => {
            const { lower, wide, noise } = choices[i]!;
            const cased = lower ? c.toLowerCase() : c;
            return noise.join('') + (wide ? fullWidth(cased) : cased);
          })
          .join(''),
      );
  test('property: any two typings that render the same to a person have the same key', () => {
    fc.assert(
      fc.property(
        fc.array(glyph, { minLength: 1, maxLength: 12 }).chain((base) => fc.tuple(fc.constant(base.join('')), typing(base), typing(base))),
        ([base, a, b]) => {
          assert.equal(documentoKey(a), documentoKey(b));
          assert.equal(documentoKey(a), base);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('documentoProblem: digits only for RC, TI and CC; ASCII letters and digits for CE, PA and PE; up to 20', () => {
    assert.equal(documentoProblem('CC', '881234'), null);
    assert.match(documentoProblem('CC', '88A1234')!, /solo puede tener dígitos/);
    assert.match(documentoProblem('TI', 'X')!, /Tarjeta de identidad/);
    assert.equal(documentoProblem('PA', 'AB123456'), null);
    assert.match(documentoProblem('PA', 'AБ123')!, /letras sin tilde/);
    assert.match(documentoProblem('CE', 'Ñ1')!, /letras sin tilde/);
    assert.equal(documentoProblem('PE', '1'.repeat(20)), null);
    assert.match(documentoProblem('PE', '1'.repeat(21))!, /Máximo 20/);
    assert.equal(documentoProblem('CC', ''), 'Escriba el número del documento.');
  });

  test('collidingDocumentoKey cannot equal any canonical key', () => {
    assert.equal(collidingDocumentoKey('881234', 7), '881234#7');
    assert.notEqual(documentoKey(collidingDocumentoKey('881234', 7)), '881234');
  });
});

describe('searchNeedle: a documento typed with its separators is searched as it is stored (decision 0050)', () => {
  test('digits with dots, hyphens or spaces, as a cédula is printed or read aloud, lose them', () => {
    for (const q of ['1.098.572.175', ' 1.098.572.175 ', '1098-572-175', '1 098 572 175', '1\u00a0098\u2013572.175', '1098572175']) {
      assert.equal(searchNeedle(q), '1098572175', JSON.stringify(q));
    }
    assert.equal(searchNeedle('1.098'), '1098');
  });
  test('one word of letters and digits with dots or hyphens (a passport) loses them, lower-cased like the search text', () => {
    assert.equal(searchNeedle('AB-12.345'), 'ab12345');
    assert.equal(searchNeedle('ab12345'), 'ab12345');
  });
  test('names, and names with a number, are searched as typed (accents and case ignored)', () => {
    assert.equal(searchNeedle('José  Pérez'), 'jose perez');
    assert.equal(searchNeedle('María-José'), 'maria-jose');
    assert.equal(searchNeedle('perez 1.098'), 'perez 1.098');
    assert.equal(searchNeedle('AB 12'), 'ab 12');
    assert.equal(searchNeedle(' - . '), '- .');
    assert.equal(searchNeedle(''), '');
  });
  test('the search text of a documento stored as typed carries its key, and only then', () => {
    assert.equal(patientDerivedColumns({ nombre: 'Ana', apellido: 'Ruiz', documento: '1098572175' }).search_text, 'ana ruiz 1098572175');
    assert.equal(patientDerivedColumns({ nombre: 'Ana', apellido: 'Ruiz', documento: 'AB123' }).search_text, 'ana ruiz ab123');
    assert.equal(patientDerivedColumns({ nombre: 'Ana', apellido: 'Ruiz', documento: '88.123.4' }).search_text, 'ana ruiz 88.123.4 881234');
  });
});

describe('birthDateProblem', () => {
  test('before today and at most 120 years ago', () => {
    assert.equal(birthDateProblem('2026-11-23', '2026-11-24'), null);
    assert.equal(birthDateProblem('2026-11-24', '2026-11-24'), BIRTH_MSG.notBeforeToday('2026-11-24'));
    assert.equal(birthDateProblem('1906-11-24', '2026-11-24'), null);
    assert.equal(birthDateProblem('1906-11-23', '2026-11-24'), BIRTH_MSG.tooOld('1906-11-24'));
    assert.equal(birthDateProblem('1800-01-01', '2026-11-24'), BIRTH_MSG.tooOld('1906-11-24'));

  });
});

describe('similarNames (possible duplicate people)', () => {
  const n = (nombre: string, apellido: string) => ({ nombre, apellido });
  test('accents, case, spacing and hyphens are ignored', () => {
    assert.equal(similarNames(n('José', 'Pérez Gómez'), n('jose', 'PEREZ  GOMEZ')), true);
    assert.equal(similarNames(n('José', 'Pérez-Gómez'), n('Jose', 'Perez Gomez')), true);
  });
  test('swapped surnames, or nombre and apellido swapped', () => {
    assert.equal(similarNames(n('Ana María', 'Rueda Ortiz'), n('Ana María', 'Ortiz Rueda')), true);
    assert.equal(similarNames(n('Rueda', 'Ana'), n('Ana', 'Rueda')), true);
  });
  test('one typo: a letter changed, added, dropped, or two neighbours swapped', () => {
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Carlos', 'Martinex')), true);
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Carlos', 'Martíneez')), true);
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Carlos', 'Martnez')), true);
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Calros', 'Martínez')), true);
  });
  test('two typos or another name: not similar', () => {
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Carla', 'Martinex')), false);
    assert.equal(similarNames(n('Carlos', 'Martínez'), n('Pedro', 'Martínez')), false);
    assert.equal(similarNames(n('', ''), n('', '')), false);
  });
  test('editDistance stops early above the bound', () => {
    assert.equal(editDistance('abcdef', 'abcdef', 1), 0);
    assert.equal(editDistance('abcdef', 'badcef', 1), 2);
    assert.equal(editDistance('ab', 'abcdef', 1), 2);
  });
});

describe('searchWords: the words a list search must each find (decision 0070)', () => {
  test('split on spaces, accents and case ignored, each once', () => {
    assert.deepEqual(searchWords('María  RODRÍGUEZ'), ['maria', 'rodriguez']);
    assert.deepEqual(searchWords('rodriguez maria maria'), ['rodriguez', 'maria']);
    assert.deepEqual(searchWords('María-José Gómez'), ['maria-jose', 'gomez']);
    assert.deepEqual(searchWords(''), []);
    assert.deepEqual(searchWords('   '), []);
  });
  test('a documento typed with spaces stays one word; a word that is a documento with dots loses them', () => {
    assert.deepEqual(searchWords('1 098 572 175'), ['1098572175']);
    assert.deepEqual(searchWords('perez 1.098'), ['perez', '1098']);
    assert.deepEqual(searchWords('AB-12.345 ruiz'), ['ab12345', 'ruiz']);
  });
  test('commas and semicolons against a word are not searched for; any other character is', () => {
    assert.deepEqual(searchWords('Rodríguez, María;'), ['rodriguez', 'maria']);
    assert.deepEqual(searchWords('gomez , luz'), ['gomez', 'luz']);
    assert.deepEqual(searchWords(`o'brien "50%"`), [`o'brien`, '"50%"']);
    assert.deepEqual(searchWords(`" OR ""="`), ['"', 'or', '""="']);
    assert.deepEqual(searchWords('%'), ['%']);
    // Commas alone are searched as typed, never dropped into "everyone".
    assert.deepEqual(searchWords(', ;'), [',', ';']);
  });
});
