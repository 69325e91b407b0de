// The worklists' professionals select rendered once per catalogue gives the bytes of its component (decision 0205).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'preact-render-to-string';
import type { Choice } from '../../web/fields.js';
import { ProfesionalSelect, profesionalSelectMarkup } from './agenda.worklists.views.js';

const profesionales: Choice[] = [
  { value: '3', label: 'ana.gomez' },
  { value: '7', label: 'Peña & "Hijos" <script>' },
  { value: '12', label: 'zuleta' },
];

const same = (choices: Choice[], value: string) =>
  assert.equal(profesionalSelectMarkup(choices, value), render(<ProfesionalSelect choices={choices} value={value} />), value);

test('the professionals select kept as markup equals its component for every choice, none and an unknown one', () => {
  for (let round = 0; round < 2; round++) for (const value of ['', '3', '7', '12', '99', '"><b>']) same(profesionales, value);
});

test('a professional renamed, added or let go shows in the worklists filter at once', () => {
  same(profesionales, '7');
  const renamed = profesionales.map((c) => (c.value === '7' ? { ...c, label: 'peña.nueva' } : c));
  same(renamed, '7');
  assert.match(profesionalSelectMarkup(renamed, '7'), /peña\.nueva/);
  const added = [...renamed, { value: '20', label: 'nuevo' }];
  same(added, '20');
  const letGo = added.filter((c) => c.value !== '7');
  same(letGo, '');
  assert.doesNotMatch(profesionalSelectMarkup(letGo, ''), /peña/);
});
