// Routes parse, call one action and render (issue 26): a route module (`*.routes.ts(x)`) or a CLI command
// (`cli/*.command.ts`) never opens a transaction or writes to the audit trail itself; the feature's `*.actions.ts`
// does, so each use case has one place that owns its transaction, its audit entry and its refusals. Read from the
// TypeScript syntax tree, so a comment or a string that names these calls does not count.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Called by name: the transaction and the trail's writer. */
const FORBIDDEN_CALLS = new Set(['inTransaction', 'recordAudit']);
/** Called as a method: Kysely's `db.transaction()`, and the queue of views (`app.auditViews.record(…)`). */
const FORBIDDEN_METHODS = new Set(['transaction']);

/**
 * Route modules of the features another change is moving to actions (issue 26, the patients' and the imports'
 * share), checked once they have moved: listed by path, each with why. Remove a line when its module is clean.
 */
const PENDING: Readonly<Record<string, string>> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : [full];
  });
}

const isLayered = (rel: string) => /\.routes\.tsx?$/.test(rel) || (rel.startsWith(`cli${path.sep}`) && /\.command\.ts$/.test(rel));

/** Each forbidden call of the file, as `file:line: call`. */
export function forbiddenCalls(rel: string, text: string): string[] {
  const source = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, rel.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      let name: string | null = null;
      if (ts.isIdentifier(callee) && FORBIDDEN_CALLS.has(callee.text)) name = callee.text;
      else if (ts.isPropertyAccessExpression(callee)) {
        const method = callee.name.text;
        if (FORBIDDEN_METHODS.has(method) || FORBIDDEN_CALLS.has(method)) name = `.${method}`;
        else if (method === 'record' && /\bauditViews$/.test(callee.expression.getText(source))) name = 'auditViews.record';
      }
      if (name) found.push(`${rel}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${name}(`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('layering: routes and commands call actions', () => {
  const modules = sourceFiles(SRC)
    .map((f) => path.relative(SRC, f))
    .filter((rel) => isLayered(rel) && !/\.test\.tsx?$/.test(rel));

  test('the checker sees the calls it refuses, and not their names in comments or strings', () => {
    const sample = [
      "// inTransaction(db, …) in a comment",
      "const s = 'recordAudit(trx)';",
      'await inTransaction(db, async (trx) => {',
      '  await recordAudit(trx, entry);',
      '});',
      'await db.transaction().execute(work);',
      'await app.auditViews.record(entry);',
    ].join('\n');
    assert.deepEqual(forbiddenCalls('x.routes.ts', sample), [
      'x.routes.ts:3: inTransaction(',
      'x.routes.ts:4: recordAudit(',
      'x.routes.ts:6: .transaction(',
      'x.routes.ts:7: auditViews.record(',
    ]);
  });

  test('every route module and CLI command is found', () => {
    for (const expected of ['ingresos/ingreso.routes.tsx', 'exams/exam.routes.tsx', 'users/admin.routes.tsx', 'users/auth.routes.tsx', 'fhir/fhir.routes.ts', 'cli/createuser.command.ts', 'cli/export-fhir.command.ts']) {
      assert.ok(modules.includes(expected.split('/').join(path.sep)), expected);
    }
  });

  test('no route module or CLI command opens a transaction or writes to the audit trail', () => {
    const offending = modules.filter((rel) => !(rel in PENDING)).flatMap((rel) => forbiddenCalls(rel, readFileSync(path.join(SRC, rel), 'utf8')));
    assert.deepEqual(offending, [], `move these into the feature's *.actions.ts:\n${offending.join('\n')}`);
  });

  test('the modules still pending exist and still have such calls (else remove them from PENDING)', () => {
    for (const rel of Object.keys(PENDING)) {
      const full = path.join(SRC, rel);
      const calls = modules.includes(rel) ? forbiddenCalls(rel, readFileSync(full, 'utf8')) : [];
      console.log(`layering: pending ${rel}: ${calls.length} call(s) (${PENDING[rel]})`);
      assert.ok(calls.length > 0, `${rel} is clean now: remove it from PENDING`);
    }
  });
});

test('the CSV download plumbing writes nothing: each export\'s action audits it (decision 0081)', () => {
  const text = readFileSync(path.join(SRC, 'web', 'csv-export.ts'), 'utf8');
  assert.deepEqual(forbiddenCalls('web/csv-export.ts', text), []);
  assert.doesNotMatch(text, /recordAudit|audit\.repository/);
});
