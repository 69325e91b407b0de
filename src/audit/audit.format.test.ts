import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changesLine, cycleIdsOf, fieldLabelOf, rawChangesLine, readableChanges } from './audit.format.js';
import { parseChanges } from './audit.labels.js';
import { AUDIT_FIELDS as F } from '../app/audit-fields.js';

const TZ = 'America/Bogota';

describe('readableChanges', () => {
  test('decimals with a comma and their unit, money, dates, choices and the forms’ labels', () => {
    const c = readableChanges(
      'exam_record',
      JSON.stringify({ iah: [null, 3240], horas_uso_promedio: [null, 650], kind: [null, 'MONITOREO'], fecha: [null, '2026-11-03'], anulado_at: [null, '2026-11-03T15:30:00.000Z'] }),
      TZ,
      F,
    );
    assert.deepEqual(
      c.fields.map((f) => [f.label, f.before, f.after]),
      [
        ['IAH', '—', '32,4 eventos/h'],
        ['Horas de uso promedio', '—', '6,5 h'],
        ['Clase de registro', '—', 'Monitoreo'],
        ['Fecha', '—', '03/11/2026'],
        ['Anulado el', '—', '03/11/2026 10:30'],
      ],
    );
    assert.equal(c.fields[0]!.rawAfter, '3240');
    const p = readableChanges('patient', JSON.stringify({ peso: [8000, 8250], valor_capita: [null, 25978300], estrato: [2, 3], altura: [175, 170] }), TZ, F);
    assert.equal(changesLine(p), 'Peso: 80 kg → 82,5 kg | Valor cápita: — → $ 259.783 | Estrato: 2 → 3 | Altura: 1,75 m → 1,7 m');
    assert.equal(rawChangesLine(p), 'peso: 8000 → 8250 | valor_capita: null → 25978300 | estrato: 2 → 3 | altura: 175 → 170');
  });

  test('the same name reads by its record: a cycle’s estado, a patient’s first cycle, a view’s details', () => {
    const open = readableChanges('patient', JSON.stringify({ ingreso: [null, { id: 7, estado: 'ACTIVO', fecha_inicio: '2026-05-10' }] }), TZ, F);
    // A cycle reads by its number among the patient's (decision 0115), never by its internal id.
    assert.equal(open.fields[0]!.after, 'Ciclo ACTIVO desde el 10/05/2026');
    const numbered = readableChanges('patient', JSON.stringify({ ingreso: [null, { id: 7, estado: 'ACTIVO', fecha_inicio: '2026-05-10' }] }), TZ, F, new Map([[7, 1]]));
    assert.equal(numbered.fields[0]!.after, 'Ciclo 1 ACTIVO desde el 10/05/2026');
    const status = readableChanges('ingreso', JSON.stringify({ estado: ['ACTIVO', 'TERMINADO'], fecha_fin: [null, '2026-11-20'] }), TZ, F);
    assert.equal(changesLine(status), 'Estado: ACTIVO → TERMINADO | Fecha de terminación: — → 20/11/2026');
    const view = readableChanges('exam_record', JSON.stringify({ ingreso_id: 4, registros: 3 }), TZ, F);
    assert.equal(changesLine(view), 'Ciclo: n.º 4 | Registros: 3');
    const viewNumbered = readableChanges('exam_record', JSON.stringify({ ingreso_id: 4, registros: 3 }), TZ, F, new Map([[4, 2]]));
    assert.equal(changesLine(viewNumbered), 'Ciclo: 2 | Registros: 3');
    assert.deepEqual(cycleIdsOf('ingreso', 9, JSON.stringify({ ingreso_id: [null, 4], ingreso: [null, { id: 7 }] })), [9, 4, 7]);
  });

  test('what no definition knows is shown as stored, and nothing ever throws', () => {
    assert.equal(fieldLabelOf(null, 'campo_nuevo'), 'Campo nuevo');
    const odd = readableChanges('patient', JSON.stringify({ peso: ['mucho', 1.5], genero: [null, 'X'], b: [true, false] }), TZ, F);
    assert.equal(changesLine(odd), 'Peso: mucho → 1.5 | Género: — → X | B: Sí → No');
    assert.deepEqual(readableChanges(null, 'no es json', TZ, F).details.map((d) => d.value), ['no es json']);
    assert.deepEqual(readableChanges(null, null, TZ, F), { fields: [], details: [] });
  });
});

describe('parseChanges', () => {
  test('pairs are changes, other values details (as stored), and garbage never throws', () => {
    assert.deepEqual(parseChanges('{"a":[1,2],"b":true,"c":{"x":1}}'), {
      fields: [{ field: 'a', before: 1, after: 2 }],
      details: [
        { key: 'b', value: true },
        { key: 'c', value: { x: 1 } },
      ],
    });
    assert.deepEqual(parseChanges(null), { fields: [], details: [] });
    assert.deepEqual(parseChanges('no es json'), { fields: [], details: [{ key: 'datos', value: 'no es json' }] });
    assert.deepEqual(parseChanges('[1,2,3]'), { fields: [], details: [{ key: 'datos', value: [1, 2, 3] }] });
  });
});
