import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { addDays } from '../shared/dates.js';
import {
  birthAfterCyclesProblem,
  DATE_MSG,
  movedStartProblem,
  NO_BOUNDS,
  statusChangeBoundsProblem,
  terminationBoundsProblem,
  type CycleDateBounds,
} from './cycle-dates.rules.js';
import { decideStatusChange } from './ingreso.schema.js';

const TODAY = '2026-11-22';
const bounds = (b: Partial<CycleDateBounds>): CycleDateBounds => ({ ...NO_BOUNDS, ...b });

describe('terminationBoundsProblem', () => {
  test('not before the last status change nor the last exam; the later of the two is named', () => {
    assert.equal(terminationBoundsProblem('2026-11-12', bounds({ lastChange: '2026-11-22' })), DATE_MSG.terminationBeforeLastChange('2026-11-22'));
    assert.equal(
      terminationBoundsProblem('2026-11-12', bounds({ lastChange: '2026-11-15', lastExam: '2026-11-20' })),
      'La fecha de terminación no puede ser anterior al 20/11/2026, fecha del último examen registrado en el ciclo.',
    );
    assert.equal(
      terminationBoundsProblem('2026-11-12', bounds({ lastChange: '2026-11-20', lastExam: '2026-11-20' })),
      'La fecha de terminación no puede ser anterior al 20/11/2026, fecha del último cambio de estado.',
    );
    assert.equal(terminationBoundsProblem('2026-11-20', bounds({ lastChange: '2026-11-20', lastExam: '2026-11-20' })), null, 'on the day itself');
    assert.equal(terminationBoundsProblem('2026-11-12', NO_BOUNDS), null);
  });

  test('property: refused exactly when the date is before one of the bounds', () => {
    const day = fc.integer({ min: -400, max: 0 }).map((n) => addDays(TODAY, n));
    fc.assert(
      fc.property(day, fc.option(day), fc.option(day), (fin, lastChange, lastExam) => {
        const problem = terminationBoundsProblem(fin, bounds({ lastChange, lastExam }));
        const before = (lastChange !== null && fin < lastChange) || (lastExam !== null && fin < lastExam);
        assert.equal(problem !== null, before);
      }),
    );
  });
});

describe('statusChangeBoundsProblem', () => {
  test('a change dated today after a change or an exam dated later (rows stored before the rules) is refused', () => {
    assert.equal(
      statusChangeBoundsProblem(TODAY, bounds({ lastChange: '2030-01-01' })),
      'El cambio de estado lleva la fecha de hoy (22/11/2026), anterior al 01/01/2030, fecha del último cambio de estado.',
    );
    assert.equal(statusChangeBoundsProblem(TODAY, bounds({ lastExam: '2026-11-23' })), DATE_MSG.changeBeforeLastExam(TODAY, '2026-11-23'));
    assert.equal(statusChangeBoundsProblem(TODAY, bounds({ lastChange: TODAY, lastExam: TODAY })), null);
  });

  test('decideStatusChange: suspension and reactivation refused with that reason, nothing to apply', () => {
    const later = bounds({ lastChange: '2030-01-01' });
    const base = { fechaInicio: '2026-01-01', today: TODAY, bounds: later } as const;
    assert.deepEqual(decideStatusChange({ ...base, current: 'ACTIVO', target: 'SUSPENDIDO' }), {
      kind: 'invalid',
      to: 'SUSPENDIDO',
      errors: [DATE_MSG.changeBeforeLastChange(TODAY, '2030-01-01')],
    });
    assert.equal(decideStatusChange({ ...base, current: 'SUSPENDIDO', target: 'ACTIVO' }).kind, 'invalid');
    const ended = decideStatusChange({ ...base, bounds: bounds({ lastChange: TODAY }), current: 'ACTIVO', target: 'TERMINADO', fecha_terminacion: '2026-11-12', motivo_estado: 'Alta' });
    assert.deepEqual(ended, { kind: 'invalid', to: 'TERMINADO', errors: [DATE_MSG.terminationBeforeLastChange(TODAY)] });
  });
});

describe('movedStartProblem', () => {
  test('not after the first exam, then not after the first status change', () => {
    assert.equal(movedStartProblem('2026-10-20', bounds({ firstExam: '2026-10-15', firstChange: '2026-10-10' })), DATE_MSG.startAfterFirstExam('2026-10-15'));
    assert.equal(
      movedStartProblem('2026-10-12', bounds({ firstExam: '2026-10-15', firstChange: '2026-10-10' })),
      'La fecha de inicio no puede ser posterior al 10/10/2026, fecha del primer cambio de estado del ciclo.',
    );
    assert.equal(movedStartProblem('2026-10-10', bounds({ firstExam: '2026-10-15', firstChange: '2026-10-10' })), null);
  });
});

describe('birthAfterCyclesProblem', () => {
  test('not after the earliest start of the patient’s other cycles', () => {
    assert.equal(birthAfterCyclesProblem('2026-02-01', '2026-01-10'), 'La fecha de nacimiento no puede ser posterior al 10/01/2026, fecha de inicio de un ciclo del paciente.');
    assert.equal(birthAfterCyclesProblem('2026-01-10', '2026-01-10'), null, 'born the day the cycle starts');
    assert.equal(birthAfterCyclesProblem('2026-02-01', null), null);
  });
});
