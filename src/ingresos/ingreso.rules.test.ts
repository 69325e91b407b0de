import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addDays, toIsoDate } from '../shared/dates.js';
import {
  startsBeforeLastEnd,
  terminationErrorsByField,
  CYCLE_START_MSG,
  cycleStartProblem,
  ERR,
  ESTADOS,
  type Estado,
  MSG,
  type NewCycleDecision,
  type StatusChangeDecision,
  type StatusChangeInput,
  isAtProgramLimit,
  isEstado,
  mesCapita,
  mesFiltroRange,
  newCycleMessage,
  parseMesFiltro,
  statusChangeMessage,
} from './ingreso.rules.js';
import { decideNewCycle, decideStatusChange } from './ingreso.schema.js';

describe('mesCapita', () => {
  const cases: Array<[fechaInicio: string | null, today: string, expected: number]> = [
    [null, '2026-11-22', 0],
    ['', '2026-11-22', 0],
    ['   ', '2026-11-22', 0],
    ['garbage', '2026-11-22', 0],
    ['2026-11-22', '2026-11-22', 1],
    ['2026-11-01', '2026-11-30', 1],
    // Month boundary: the day plays no part.
    ['2026-10-31', '2026-11-01', 2],
    ['2026-10-01', '2026-11-30', 2],
    // Year wrap.
    ['2025-12-31', '2026-01-01', 2],
    ['2025-11-22', '2026-11-22', 13],
    ['2025-07-15', '2026-11-22', 17],
    ['2025-06-30', '2026-11-01', 18],
    // Clamp above.
    ['2025-01-01', '2026-11-22', 18],
    ['2000-01-01', '2026-11-22', 18],
    // Future starts clamp to 1.
    ['2026-11-23', '2026-11-22', 1],
    ['2026-12-01', '2026-11-22', 1],
    ['2028-01-01', '2026-11-22', 1],
  ];
  for (const [fecha, today, expected] of cases) {
    test(`${JSON.stringify(fecha)} on ${today} → ${expected}`, () => {
      assert.equal(mesCapita(fecha, today), expected);
    });
  }
  test('a malformed today is a programming error', () => {
    assert.throws(() => mesCapita('2026-01-01', 'today'), RangeError);
  });
});

describe('mesFiltroRange', () => {
  const today = '2026-11-22';
  const cases: Array<[mes: number, from: string | null, to: string | null]> = [
    [1, '2026-11-01', null],
    [2, '2026-10-01', '2026-11-01'],
    [3, '2026-09-01', '2026-10-01'],
    [12, '2025-12-01', '2026-01-01'],
    [13, '2025-11-01', '2025-12-01'],
    [17, '2025-07-01', '2025-08-01'],
    [18, null, '2025-07-01'],
  ];
  for (const [mes, from, to] of cases) {
    test(`mes ${mes} on ${today} → [${from}, ${to})`, () => {
      assert.deepEqual(mesFiltroRange(mes, today), { from, to });
    });
  }
  test('throws outside 1..18', () => {
    for (const bad of [0, 19, -1, 1.5, Number.NaN]) {
      assert.throws(() => mesFiltroRange(bad, today), RangeError, String(bad));
    }
  });

  const inRange = (fecha: string, r: { from: string | null; to: string | null }): boolean =>
    (r.from === null || fecha >= r.from) && (r.to === null || fecha < r.to);

  const checkAllMonths = (fecha: string, today: string): void => {
    const m = mesCapita(fecha, today);
    const matching: number[] = [];
    for (let mes = 1; mes <= 18; mes++) if (inRange(fecha, mesFiltroRange(mes, today))) matching.push(mes);
    assert.deepEqual(matching, [m], `fecha_inicio ${fecha}, today ${today}`);
  };

  test('agrees with mesCapita for every start day over 3 years, for many todays', () => {
    // Todays: month starts, mid-months and month ends across two years, leap February included.
    const todays: string[] = [];
    for (let y = 2024; y <= 2025; y++) {
      for (let mo = 1; mo <= 12; mo++) {
        todays.push(toIsoDate({ year: y, month: mo, day: 1 }), toIsoDate({ year: y, month: mo, day: 15 }));
        todays.push(addDays(toIsoDate({ year: mo === 12 ? y + 1 : y, month: mo === 12 ? 1 : mo + 1, day: 1 }), -1));
      }
    }
    for (const t of todays) {
      for (let fecha = addDays(t, -800), end = addDays(t, 120); fecha <= end; fecha = addDays(fecha, 1)) {
        checkAllMonths(fecha, t);
      }
    }
  });

  test('agrees with mesCapita on random dates (property)', () => {
    const day = fc.integer({ min: 0, max: 200 * 366 }).map((n) => addDays('1900-01-01', n));
    fc.assert(
      fc.property(day, day, (fecha, today) => {
        checkAllMonths(fecha, today);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseMesFiltro', () => {
  const cases: Array<[raw: unknown, expected: number | null]> = [
    ['1', 1],
    ['18', 18],
    [' 7 ', 7],
    ['07', 7],
    [5, 5],
    ['0', null],
    ['19', null],
    ['-1', null],
    ['1.5', null],
    ['3.0', null],
    ['1e1', null],
    ['abc', null],
    ['', null],
    [0, null],
    [19, null],
    [2.5, null],
    [Number.NaN, null],
    [undefined, null],
    [null, null],
    [['3', '4'], null],
    [{}, null],
    ['99999999999999999999', null],
  ];
  for (const [raw, expected] of cases) {
    test(`${JSON.stringify(raw)} → ${expected}`, () => assert.equal(parseMesFiltro(raw), expected));
  }
});

describe('isEstado', () => {
  test('only the three exact words', () => {
    for (const e of ESTADOS) assert.equal(isEstado(e), true);
    for (const x of ['activo', 'Activo', 'ACTIVO ', '', 'CERRADO', 1, null, undefined]) {
      assert.equal(isEstado(x), false, JSON.stringify(x));
    }
  });
});

describe('decideStatusChange', () => {
  const base = { fechaInicio: '2026-01-10', today: '2026-11-22' };
  const goodEnd = { fecha_terminacion: '2026-11-20', motivo_estado: 'Alta médica' };
  const cases: Array<[name: string, input: StatusChangeInput, expected: StatusChangeDecision]> = [
    // Termination from both open states.
    ['ACTIVO → TERMINADO valid', { ...base, current: 'ACTIVO', target: 'TERMINADO', ...goodEnd },
      { kind: 'apply', from: 'ACTIVO', to: 'TERMINADO', fecha_fin: '2026-11-20', motivo: 'Alta médica' }],
    ['SUSPENDIDO → TERMINADO valid', { ...base, current: 'SUSPENDIDO', target: 'TERMINADO', ...goodEnd },
      { kind: 'apply', from: 'SUSPENDIDO', to: 'TERMINADO', fecha_fin: '2026-11-20', motivo: 'Alta médica' }],
    ['TERMINADO trims its fields', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: ' 2026-11-22 ', motivo_estado: '  Traslado  ' },
      { kind: 'apply', from: 'ACTIVO', to: 'TERMINADO', fecha_fin: '2026-11-22', motivo: 'Traslado' }],
    ['TERMINADO on the start day', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-01-10', motivo_estado: 'x' },
      { kind: 'apply', from: 'ACTIVO', to: 'TERMINADO', fecha_fin: '2026-01-10', motivo: 'x' }],
    ['TERMINADO missing both', { ...base, current: 'ACTIVO', target: 'TERMINADO' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionMissing, ERR.motivoMissing] }],
    ['TERMINADO blank both', { ...base, current: 'SUSPENDIDO', target: 'TERMINADO', fecha_terminacion: '  ', motivo_estado: ' \n ' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionMissing, ERR.motivoMissing] }],
    ['TERMINADO missing motivo', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-11-20' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.motivoMissing] }],
    ['TERMINADO missing fecha', { ...base, current: 'ACTIVO', target: 'TERMINADO', motivo_estado: 'Alta' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionMissing] }],
    ['TERMINADO impossible date', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-02-30', motivo_estado: 'Alta' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionInvalid] }],
    ['TERMINADO wrong format', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '20/11/2026', motivo_estado: 'Alta' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionInvalid] }],
    ['TERMINADO before start', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-01-09', motivo_estado: 'Alta' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionBeforeStart('2026-01-10')] }],
    ['TERMINADO after today', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-11-23', motivo_estado: 'Alta' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionFuture] }],
    ['TERMINADO after today and no motivo', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2027-01-01' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionFuture, ERR.motivoMissing] }],
    ['TERMINADO of a cycle not started yet, on its start date', { ...base, fechaInicio: '2026-12-01', current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-12-01', motivo_estado: 'Cancelado' },
      { kind: 'apply', from: 'ACTIVO', to: 'TERMINADO', fecha_fin: '2026-12-01', motivo: 'Cancelado' }],
    ['TERMINADO of a cycle not started yet, on another date', { ...base, fechaInicio: '2026-12-01', current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-12-02', motivo_estado: 'Cancelado' },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionNotStarted('2026-12-01')] }],
    ['TERMINADO motivo too long', { ...base, current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-11-20', motivo_estado: 'x'.repeat(2001) },
      { kind: 'invalid', to: 'TERMINADO', errors: [ERR.motivoTooLong] }],
    // Suspension and reactivation.
    ['ACTIVO → SUSPENDIDO without motivo', { ...base, current: 'ACTIVO', target: 'SUSPENDIDO' },
      { kind: 'apply', from: 'ACTIVO', to: 'SUSPENDIDO', fecha_fin: null, motivo: null }],
    ['ACTIVO → SUSPENDIDO blank motivo', { ...base, current: 'ACTIVO', target: 'SUSPENDIDO', motivo_estado: '   ' },
      { kind: 'apply', from: 'ACTIVO', to: 'SUSPENDIDO', fecha_fin: null, motivo: null }],
    ['ACTIVO → SUSPENDIDO with motivo (and an ignored fecha)', { ...base, current: 'ACTIVO', target: 'SUSPENDIDO', motivo_estado: ' Viaje ', fecha_terminacion: 'x' },
      { kind: 'apply', from: 'ACTIVO', to: 'SUSPENDIDO', fecha_fin: null, motivo: 'Viaje' }],
    ['ACTIVO → SUSPENDIDO motivo too long', { ...base, current: 'ACTIVO', target: 'SUSPENDIDO', motivo_estado: 'x'.repeat(2001) },
      { kind: 'invalid', to: 'SUSPENDIDO', errors: [ERR.motivoTooLong] }],
    ['SUSPENDIDO → ACTIVO', { ...base, current: 'SUSPENDIDO', target: 'ACTIVO', motivo_estado: 'ignored' },
      { kind: 'apply', from: 'SUSPENDIDO', to: 'ACTIVO', fecha_fin: null, motivo: null }],
    // Same state.
    ['ACTIVO → ACTIVO', { ...base, current: 'ACTIVO', target: 'ACTIVO' }, { kind: 'same', estado: 'ACTIVO' }],
    ['SUSPENDIDO → SUSPENDIDO', { ...base, current: 'SUSPENDIDO', target: 'SUSPENDIDO' }, { kind: 'same', estado: 'SUSPENDIDO' }],
    // Finished wins over everything, TERMINADO → TERMINADO included.
    ['TERMINADO → ACTIVO', { ...base, current: 'TERMINADO', target: 'ACTIVO' }, { kind: 'finished' }],
    ['TERMINADO → SUSPENDIDO', { ...base, current: 'TERMINADO', target: 'SUSPENDIDO' }, { kind: 'finished' }],
    ['TERMINADO → TERMINADO', { ...base, current: 'TERMINADO', target: 'TERMINADO', ...goodEnd }, { kind: 'finished' }],
    // Unknown targets (the route answers 404 before asking).
    ['ACTIVO → activo', { ...base, current: 'ACTIVO', target: 'activo' }, { kind: 'not_allowed' }],
    ['SUSPENDIDO → CERRADO', { ...base, current: 'SUSPENDIDO', target: 'CERRADO' }, { kind: 'not_allowed' }],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.deepEqual(decideStatusChange(input), expected));
  }

  test('every (current, target) pair of estados gets the §6 answer', () => {
    const expectedKind = (from: Estado, to: Estado): StatusChangeDecision['kind'] => {
      if (from === 'TERMINADO') return 'finished';
      if (from === to) return 'same';
      return 'apply';
    };
    for (const current of ESTADOS) {
      for (const target of ESTADOS) {
        const d = decideStatusChange({ ...base, ...goodEnd, current, target });
        assert.equal(d.kind, expectedKind(current, target), `${current} → ${target}`);
      }
    }
  });
});

describe('statusChangeMessage', () => {
  test('termination names the first name, says finished and archived, ends with ✅', () => {
    const m = statusChangeMessage(
      { kind: 'apply', from: 'ACTIVO', to: 'TERMINADO', fecha_fin: '2026-11-20', motivo: 'Alta' },
      'María',
    );
    assert.equal(m.level, 'success');
    assert.equal(m.text, 'El ciclo de María ha finalizado y fue archivado ✅');
    assert.match(m.text, /María/);
    assert.match(m.text, /finalizado/);
    assert.match(m.text, /archivado/);
    assert.ok(m.text.endsWith('✅'));
  });
  const cases: Array<[StatusChangeDecision, 'success' | 'info' | 'error', string]> = [
    [{ kind: 'apply', from: 'ACTIVO', to: 'SUSPENDIDO', fecha_fin: null, motivo: null }, 'success', MSG.suspended('Ana')],
    [{ kind: 'apply', from: 'SUSPENDIDO', to: 'ACTIVO', fecha_fin: null, motivo: null }, 'success', MSG.reactivated('Ana')],
    [{ kind: 'same', estado: 'ACTIVO' }, 'info', 'El ingreso ya está en estado ACTIVO; no se hizo ningún cambio.'],
    [{ kind: 'finished' }, 'error', MSG.finished],
    [{ kind: 'invalid', to: 'TERMINADO', errors: [ERR.fechaTerminacionMissing, ERR.motivoMissing] }, 'error',
      'No se pudo terminar el ciclo. Falta la fecha de terminación. Falta el motivo de la terminación.'],
    [{ kind: 'invalid', to: 'SUSPENDIDO', errors: [ERR.motivoTooLong] }, 'error',
      'No se pudo cambiar el estado. El motivo no puede superar 2000 caracteres.'],
    [{ kind: 'not_allowed' }, 'error', MSG.notAllowed],
  ];
  for (const [decision, level, text] of cases) {
    test(`${decision.kind} → ${level}`, () => assert.deepEqual(statusChangeMessage(decision, 'Ana'), { level, text }));
  }
  test('the finished message says the cycle cannot change', () => {
    assert.match(MSG.finished, /finalizó/);
    assert.match(MSG.finished, /no puede cambiar/);
  });
});

describe('startsBeforeLastEnd', () => {
  test('a cycle may start on the day the previous one ended or later, never before', () => {
    assert.equal(startsBeforeLastEnd('2026-06-29', '2026-06-30'), true);
    assert.equal(startsBeforeLastEnd('2026-06-30', '2026-06-30'), false);
    assert.equal(startsBeforeLastEnd('2026-07-01', '2026-06-30'), false);
    assert.equal(startsBeforeLastEnd('1990-01-01', null), false, 'no finished cycle: any start');
  });
});

describe('decideNewCycle', () => {
  const ON = { today: '2026-11-24', fechaNacimiento: '1960-05-05' };
  const cases: Array<[name: string, input: Parameters<typeof decideNewCycle>[0], expected: NewCycleDecision]> = [
    ['first cycle', { fecha_inicio: '2026-11-22', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'ok', fecha_inicio: '2026-11-22' }],
    ['trims the date', { fecha_inicio: ' 2026-11-22 ', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'ok', fecha_inicio: '2026-11-22' }],
    ['after a finished cycle', { fecha_inicio: '2026-11-22', openEstados: ['TERMINADO'], latestFechaFin: '2026-11-01', ...ON }, { kind: 'ok', fecha_inicio: '2026-11-22' }],
    ['on the day the last cycle ended', { fecha_inicio: '2026-11-01', openEstados: ['TERMINADO'], latestFechaFin: '2026-11-01', ...ON }, { kind: 'ok', fecha_inicio: '2026-11-01' }],
    ['today allowed', { fecha_inicio: '2026-11-24', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'ok', fecha_inicio: '2026-11-24' }],
    ['tomorrow refused', { fecha_inicio: '2026-11-25', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'impossible_start', reason: CYCLE_START_MSG.future('2026-11-24') }],
    ['2030 refused', { fecha_inicio: '2030-01-01', openEstados: ['TERMINADO'], latestFechaFin: '2026-11-01', ...ON }, { kind: 'impossible_start', reason: CYCLE_START_MSG.future('2026-11-24') }],
    ['on the birth date allowed', { fecha_inicio: '1960-05-05', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'ok', fecha_inicio: '1960-05-05' }],
    ['before the birth date refused', { fecha_inicio: '1960-05-04', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'impossible_start', reason: CYCLE_START_MSG.beforeBirth('1960-05-05') }],
    ['ACTIVO pending', { fecha_inicio: '2026-11-22', openEstados: ['ACTIVO'], latestFechaFin: null, ...ON }, { kind: 'pending_process' }],
    ['SUSPENDIDO pending', { fecha_inicio: '2026-11-22', openEstados: ['TERMINADO', 'SUSPENDIDO'], latestFechaFin: '2025-01-01', ...ON }, { kind: 'pending_process' }],
    ['pending wins over a missing date', { fecha_inicio: undefined, openEstados: ['ACTIVO'], latestFechaFin: null, ...ON }, { kind: 'pending_process' }],
    ['pending wins over an early date', { fecha_inicio: '2020-01-01', openEstados: ['SUSPENDIDO'], latestFechaFin: '2026-01-01', ...ON }, { kind: 'pending_process' }],
    ['missing date', { fecha_inicio: undefined, openEstados: [], latestFechaFin: null, ...ON }, { kind: 'invalid_date' }],
    ['blank date', { fecha_inicio: '  ', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'invalid_date' }],
    ['impossible date', { fecha_inicio: '2026-02-30', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'invalid_date' }],
    ['wrong format', { fecha_inicio: '22/11/2026', openEstados: [], latestFechaFin: null, ...ON }, { kind: 'invalid_date' }],
    ['before the last end', { fecha_inicio: '2026-10-31', openEstados: ['TERMINADO'], latestFechaFin: '2026-11-01', ...ON }, { kind: 'before_last_end', latestFechaFin: '2026-11-01' }],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => assert.deepEqual(decideNewCycle(input), expected));
  }
});

describe('newCycleMessage', () => {
  test('levels and texts', () => {
    assert.deepEqual(newCycleMessage({ kind: 'ok', fecha_inicio: '2026-11-22' }, 'Ana'), {
      level: 'success',
      text: 'Se inició un nuevo ciclo para Ana.',
    });
    assert.deepEqual(newCycleMessage({ kind: 'pending_process' }, 'Ana'), {
      level: 'error',
      text: 'No se puede iniciar un nuevo ciclo: el paciente tiene un proceso pendiente (un ingreso ACTIVO o SUSPENDIDO).',
    });
    assert.equal(newCycleMessage({ kind: 'invalid_date' }, 'Ana').level, 'error');
    assert.deepEqual(newCycleMessage({ kind: 'impossible_start', reason: CYCLE_START_MSG.future('2026-11-24') }, 'Ana'), {
      level: 'error',
      text: 'No se pudo iniciar el ciclo. La fecha de inicio no puede ser posterior a hoy (24/11/2026): un ciclo empieza el día en que el paciente ingresa.',
    });
    assert.deepEqual(newCycleMessage({ kind: 'before_last_end', latestFechaFin: '2026-11-01' }, 'Ana'), {
      level: 'error',
      text: 'No se pudo iniciar el ciclo: la fecha de inicio no puede ser anterior al fin del último ciclo (01/11/2026).',
    });
  });
});

describe('isAtProgramLimit', () => {
  const cases: Array<[string | null, string, boolean]> = [
    ['2025-07-01', '2026-11-22', false], // month 17
    ['2025-06-30', '2026-11-22', true], // month 18
    ['2020-01-01', '2026-11-22', true],
    [null, '2026-11-22', false],
  ];
  for (const [fecha, today, expected] of cases) {
    test(`${fecha} on ${today} → ${expected}`, () => assert.equal(isAtProgramLimit(fecha, today), expected));
  }
});

describe('terminationErrorsByField', () => {
  test('each sentence goes beside the field it is about', () => {
    assert.deepEqual(terminationErrorsByField([ERR.fechaTerminacionFuture, ERR.motivoMissing]), {
      fecha_terminacion: ERR.fechaTerminacionFuture,
      motivo_estado: ERR.motivoMissing,
    });
    assert.deepEqual(terminationErrorsByField([ERR.motivoTooLong]), { motivo_estado: ERR.motivoTooLong });
    assert.deepEqual(terminationErrorsByField([]), {});
  });
});

describe('cycleStartProblem', () => {
  test('a cycle starts at the latest today and at the earliest on the birth date, saying which rule it broke', () => {
    assert.equal(cycleStartProblem('2026-11-24', '2026-11-24', '1960-05-05'), null);
    assert.equal(cycleStartProblem('2026-11-25', '2026-11-24', '1960-05-05'), CYCLE_START_MSG.future('2026-11-24'));
    assert.equal(cycleStartProblem('1960-05-04', '2026-11-24', '1960-05-05'), CYCLE_START_MSG.beforeBirth('1960-05-05'));
    assert.equal(cycleStartProblem('1960-05-05', '2026-11-24', '1960-05-05'), null);
    assert.equal(cycleStartProblem('1950-01-01', '2026-11-24', null), null, 'no birth date known: only today bounds it');
  });
});
