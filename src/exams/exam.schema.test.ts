import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAM_FORM_FIELDS, parseExamForm, voidSchema } from './exam.schema.js';

const TODAY = '2026-11-22';

describe('EXAM_FORM_FIELDS', () => {
  test('the field names on the wire are exactly those of decisions §7', () => {
    // plus hora, the time of day RIPS reports (issue 27, decision 0090)
    assert.deepEqual(EXAM_FORM_FIELDS.MONITOREO, [
      'fecha',
      'hora',
      'tipo',
      'iah',
      'saturacion_minima',
      'horas_uso_promedio',
      'porcentaje_noches_4h',
      'presion_cmh2o',
      'fuga_lpm',
      'observaciones',
    ]);
    assert.deepEqual(EXAM_FORM_FIELDS.PSICOLOGIA, ['fecha', 'hora', 'tipo_sesion', 'numero_sesion', 'isi', 'epworth', 'observaciones']);
    assert.deepEqual(EXAM_FORM_FIELDS.OTRO, ['fecha', 'hora', 'nombre_examen', 'resultado', 'observaciones']);
  });
});

const monitoreo = (over: Record<string, string> = {}) => ({
  fecha: TODAY,
  tipo: 'POLIGRAFIA',
  iah: '',
  saturacion_minima: '',
  horas_uso_promedio: '',
  porcentaje_noches_4h: '',
  presion_cmh2o: '',
  fuga_lpm: '',
  observaciones: '',
  ...over,
});

describe('parseExamForm MONITOREO', () => {
  test('blank optional values are null; decimals become hundredths with , or .', () => {
    const r = parseExamForm('MONITOREO', monitoreo({ iah: '14,9', presion_cmh2o: '8.5', observaciones: '  nota  ' }), TODAY);
    assert.ok(r.ok);
    assert.deepEqual(r.parsed.data, {
      fecha: TODAY,
      hora: null,
      tipo: 'POLIGRAFIA',
      iah: 1490,
      saturacion_minima: null,
      horas_uso_promedio: null,
      porcentaje_noches_4h: null,
      presion_cmh2o: 850,
      fuga_lpm: null,
      observaciones: 'nota',
    });
  });

  test('ranges: each maximum accepted, one hundredth more refused', () => {
    const max = { iah: '200', saturacion_minima: '100', horas_uso_promedio: '24', porcentaje_noches_4h: '100', presion_cmh2o: '30', fuga_lpm: '200' };
    assert.ok(parseExamForm('MONITOREO', monitoreo(max), TODAY).ok);
    for (const [field, value] of Object.entries(max)) {
      const r = parseExamForm('MONITOREO', monitoreo({ [field]: `${value},01` }), TODAY);
      assert.ok(!r.ok && r.errors[field], field);
    }
  });

  test('fecha: required, a real day, not after today', () => {
    const errorOf = (fecha: string) => {
      const r = parseExamForm('MONITOREO', monitoreo({ fecha }), TODAY);
      return r.ok ? null : r.errors.fecha;
    };
    assert.equal(errorOf(TODAY), null);
    assert.equal(errorOf(' 2026-01-31 '), null);
    assert.match(errorOf('') ?? '', /obligatoria/);
    assert.match(errorOf('2026-11-23') ?? '', /posterior a hoy \(22\/11\/2026\)/);
    assert.match(errorOf('2026-13-01') ?? '', /válida/);
    assert.match(errorOf('22/11/2026') ?? '', /válida/);
  });

  test('tipo: one of the five values (case ignored), stored in its listed form', () => {
    const r = parseExamForm('MONITOREO', monitoreo({ tipo: 'descarga_cpap' }), TODAY);
    assert.ok(r.ok && r.parsed.kind === 'MONITOREO' && r.parsed.data.tipo === 'DESCARGA_CPAP');
    const bad = parseExamForm('MONITOREO', monitoreo({ tipo: 'EEG' }), TODAY);
    assert.ok(!bad.ok && /opción/.test(bad.errors.tipo!));
  });
});

describe('parseExamForm PSICOLOGIA', () => {
  const base = { fecha: TODAY, tipo_sesion: 'SEGUIMIENTO', numero_sesion: '', isi: '', epworth: '', observaciones: '' };
  test('whole numbers in range; blank is null', () => {
    const r = parseExamForm('PSICOLOGIA', { ...base, numero_sesion: '50', isi: '0', epworth: '24' }, TODAY);
    assert.ok(r.ok);
    assert.deepEqual(r.parsed.data, { fecha: TODAY, hora: null, tipo_sesion: 'SEGUIMIENTO', numero_sesion: 50, isi: 0, epworth: 24, observaciones: null });
  });
  test('out of range, decimals and signs are field errors', () => {
    const r = parseExamForm('PSICOLOGIA', { ...base, numero_sesion: '51', isi: '28.0', epworth: '+3' }, TODAY);
    assert.ok(!r.ok);
    assert.deepEqual(Object.keys(r.errors).sort(), ['epworth', 'isi', 'numero_sesion']);
    const zero = parseExamForm('PSICOLOGIA', { ...base, numero_sesion: '0' }, TODAY);
    assert.ok(!zero.ok && /entre 1 y 50/.test(zero.errors.numero_sesion!));
  });
});

describe('parseExamForm OTRO', () => {
  test('nombre_examen required, up to 200 characters; resultado and observaciones up to 2000', () => {
    const ok = parseExamForm('OTRO', { fecha: TODAY, nombre_examen: 'a'.repeat(200), resultado: 'r'.repeat(2000), observaciones: '' }, TODAY);
    assert.ok(ok.ok);
    const bad = parseExamForm('OTRO', { fecha: TODAY, nombre_examen: '', resultado: 'r'.repeat(2001), observaciones: 'o'.repeat(2001) }, TODAY);
    assert.ok(!bad.ok);
    assert.deepEqual(Object.keys(bad.errors).sort(), ['nombre_examen', 'observaciones', 'resultado']);
  });
});

describe('text limits count characters, as the database does', () => {
  test('2000 characters outside the BMP (4000 UTF-16 units) are accepted; 2001 are refused', () => {
    const emoji = '\u{1F600}';
    const ok = parseExamForm('OTRO', { fecha: TODAY, nombre_examen: emoji.repeat(200), resultado: emoji.repeat(2000), observaciones: emoji.repeat(2000) }, TODAY);
    assert.ok(ok.ok, JSON.stringify(ok.ok ? null : ok.errors));
    const bad = parseExamForm('OTRO', { fecha: TODAY, nombre_examen: emoji.repeat(201), resultado: emoji.repeat(2001), observaciones: '' }, TODAY);
    assert.ok(!bad.ok);
    assert.deepEqual(Object.keys(bad.errors).sort(), ['nombre_examen', 'resultado']);
    assert.equal(voidSchema.safeParse({ motivo_anulacion: emoji.repeat(2000) }).success, true);
  });
});

describe('voidSchema', () => {
  test('motivo_anulacion required (blank refused), trimmed, up to 2000 characters', () => {
    assert.equal(voidSchema.safeParse({ motivo_anulacion: '   ' }).success, false);
    assert.equal(voidSchema.safeParse({ motivo_anulacion: 'x'.repeat(2001) }).success, false);
    const r = voidSchema.safeParse({ motivo_anulacion: ' duplicado ' });
    assert.ok(r.success && r.data.motivo_anulacion === 'duplicado');
  });
});

describe('monitoring values as Colombians write them (decision 0069)', () => {
  test('a trailing zero after three decimals is read as decimals, since thousands cannot fit; 1.234,5 is refused saying how it was read', () => {
    const r = parseExamForm('MONITOREO', monitoreo({ iah: '12.500', fuga_lpm: '24,250', horas_uso_promedio: '6.5' }), TODAY);
    assert.ok(r.ok && r.parsed.kind === 'MONITOREO', JSON.stringify(r.ok ? null : r.errors));
    assert.deepEqual([r.parsed.data.iah, r.parsed.data.fuga_lpm, r.parsed.data.horas_uso_promedio], [1250, 2425, 650]);
    const bad = parseExamForm('MONITOREO', monitoreo({ iah: '1.234,5' }), TODAY);
    assert.ok(!bad.ok);
    assert.equal(bad.errors.iah, 'El valor máximo es 200,00; «1.234,5» se leyó como 1234,5.');
  });
});

describe('hora (RIPS, decision 0090)', () => {
  test('HH:MM in 24 hours, 7:30 read as 07:30, blank is null, anything else refused beside the field', () => {
    const base = { fecha: TODAY, tipo: 'POLIGRAFIA', iah: '', saturacion_minima: '', horas_uso_promedio: '', porcentaje_noches_4h: '', presion_cmh2o: '', fuga_lpm: '', observaciones: '' };
    const ok = (hora: string) => {
      const r = parseExamForm('MONITOREO', { ...base, hora }, TODAY);
      return r.ok ? (r.parsed.data as { hora: string | null }).hora : `error: ${r.errors.hora}`;
    };
    assert.equal(ok('21:30'), '21:30');
    assert.equal(ok('7:30'), '07:30');
    assert.equal(ok(''), null);
    assert.match(String(ok('24:00')), /^error: Ingrese la hora como HH:MM/);
    assert.match(String(ok('9h')), /^error: /);
  });
});
