// The agenda's filter form rendered once per catalogue gives the bytes of its components (decision 0205).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'preact-render-to-string';
import type { Choice } from '../../web/fields.js';
import type { BookedVisit } from '../agenda.day.repository.js';
import { AgendaFilterForm, cellsOf, filterFormMarkup, VisitRow, visitRowsMarkup } from './agenda.day.views.js';

const profesionales: Choice[] = [
  { value: '3', label: 'ana.gomez' },
  { value: '7', label: 'Peña & "Hijos" <script>' },
  { value: '12', label: 'zuleta' },
];
const recursos: Choice[] = [
  { value: '1', label: 'Consultorio 1' },
  { value: '2', label: 'Polígrafo <2>' },
];

const both = (ps: Choice[], rs: Choice[], values: Record<string, string>) => {
  assert.equal(filterFormMarkup(ps, rs, values), render(<AgendaFilterForm profesionales={ps} recursos={rs} values={values} />), JSON.stringify(values));
};

test('the filter form kept as markup equals its components for every choice, an unknown one and odd dates', () => {
  for (const fecha of ['2026-11-27', '', '2026-02-30', '"><script>&amp;'])
    for (const profesional of ['', '3', '7', '12', '99'])
      for (const recurso of ['', '1', '2', '5'])
        for (const vista of ['dia', 'semana', '', 'mes']) both(profesionales, recursos, { fecha, profesional, recurso, vista });
});

test('a professional renamed, added or let go, or a resource changed, shows in the form at once', () => {
  const values = { fecha: '2026-11-27', profesional: '7', recurso: '2', vista: 'semana' };
  both(profesionales, recursos, values);
  const renamed = profesionales.map((c) => (c.value === '7' ? { ...c, label: 'peña.nueva' } : c));
  both(renamed, recursos, values);
  assert.match(filterFormMarkup(renamed, recursos, values), /peña\.nueva/);
  const added = [...renamed, { value: '20', label: 'nuevo' }];
  both(added, recursos, { ...values, profesional: '20' });
  const letGo = added.filter((c) => c.value !== '7');
  both(letGo, recursos, values);
  assert.doesNotMatch(filterFormMarkup(letGo, recursos, values), /peña/);
  both(letGo, [{ value: '1', label: 'Consultorio 1' }], values);
  both(letGo, [], values);
  // The catalogues the caller passed and changed later do not change the form kept for them.
  const mutable = profesionales.map((c) => ({ ...c }));
  both(mutable, recursos, values);
  mutable[0]!.label = 'cambiado';
  both(mutable, recursos, values);
});

const visit = (over: Partial<BookedVisit>): BookedVisit => ({
  id: 41,
  paciente_id: 7,
  estado: 'AGENDADA',
  fecha: '2026-11-27',
  hora: '08:30',
  duracion_min: 30,
  nombre: 'María José',
  apellido: 'Peña Ñáñez',
  tipo_nombre: 'Control',
  profesional: 'ana.gomez',
  recurso: 'Consultorio 1',
  ...over,
});

test('the visits rows from one template equal their components, day and week, with odd texts and missing parts', () => {
  const visits = [
    visit({}),
    visit({ id: 42, estado: 'ATENDIDA', hora: '23:45', duracion_min: 30, profesional: null, recurso: null }),
    visit({ id: 43, estado: 'NO_ASISTIO', nombre: '<script>alert("x")</script>', apellido: 'O\'Brien & Hijos > "nadie"', tipo_nombre: 'Polisomnografía <basal> & "titulación"' }),
    visit({ id: 44, hora: null, duracion_min: null, fecha: null, recurso: 'Polígrafo <2>', profesional: 'Peña & "Hijos"' }),
    visit({ id: 45, nombre: '', apellido: '', tipo_nombre: '' }),
  ];
  for (const semana of [false, true]) {
    const expected = visits.map((v) => render(<VisitRow semana={semana} c={cellsOf(v)} />)).join('');
    assert.equal(visitRowsMarkup(visits, semana), expected);
    assert.equal(visitRowsMarkup([], semana), '');
  }
});
