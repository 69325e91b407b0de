import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { contentDisposition, csvCell, csvChunks, csvDecimal, csvRow, csvStream, keysetBatches } from './csv.js';

/** A minimal RFC 4180 reader with ';' as separator, to check that what we write reads back. */
function parseCsvLine(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (line[i] === '"' && line[i + 1] === '"') {
          cell += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else {
          cell += line[i++];
        }
      }
    } else {
      while (i < line.length && line[i] !== ';') cell += line[i++];
    }
    cells.push(cell);
    if (i >= line.length) return cells;
    i++; // ;
  }
}

describe('csv', () => {
  test('plain cells stay as they are; ; " CR LF are quoted with inner quotes doubled', () => {
    assert.equal(csvCell('Álvarez'), 'Álvarez');
    assert.equal(csvCell('a;b'), '"a;b"');
    assert.equal(csvCell('dijo "hola"'), '"dijo ""hola"""');
    assert.equal(csvCell('dos\nlíneas'), '"dos\nlíneas"');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(undefined), '');
    assert.equal(csvCell(18), '18');
  });

  test('cells a spreadsheet would run as a formula get a leading apostrophe', () => {
    assert.equal(csvCell('=1+2'), "'=1+2");
    assert.equal(csvCell('+573001234567'), "'+573001234567");
    assert.equal(csvCell('-5'), "'-5");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\tx'), "'\tx");
    assert.equal(csvCell('\rx'), '"\'\rx"');
    assert.equal(csvCell('=HYPERLINK("http://x";"y")'), '"\'=HYPERLINK(""http://x"";""y"")"');
    assert.equal(csvCell('a=b'), 'a=b');
  });

  test('rows end in CRLF; decimals use a comma', () => {
    assert.equal(csvRow(['a', 'b;c', null]), 'a;"b;c";\r\n');
    assert.equal(csvDecimal(25978300), '259783,00');
    assert.equal(csvDecimal(5), '0,05');
  });

  test('any row reads back cell for cell (formula cells with their apostrophe)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 6 }), (cells) => {
        const line = csvRow(cells);
        assert.ok(line.endsWith('\r\n'));
        const back = parseCsvLine(line.slice(0, -2));
        assert.deepEqual(
          back,
          cells.map((c) => (/^[=+\-@\t\r]/.test(c) ? `'${c}` : c)),
        );
      }),
    );
  });

  test('a stream: BOM, header, rows, in order, from an async source of pages', async () => {
    async function* pages() {
      yield [['1', 'Ana'], ['2', 'Bea']];
      yield [];
      yield [['3', 'Cira']];
    }
    const chunks: Buffer[] = [];
    for await (const chunk of csvStream(csvChunks(['id', 'nombre'], pages()))) chunks.push(Buffer.from(chunk));
    const bytes = Buffer.concat(chunks);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(bytes.toString('utf8'), '\uFEFFid;nombre\r\n1;Ana\r\n2;Bea\r\n3;Cira\r\n');
  });

  test('between two pages other requests get a turn (a synchronous driver would otherwise hold every user)', async () => {
    // Pages read synchronously, as SQLite's are: without a turn between them the whole file is one turn.
    async function* pages() {
      for (let i = 0; i < 5; i++) yield [[String(i), 'Ana']];
    }
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    for await (const chunk of csvStream(csvChunks(['id', 'nombre'], pages()))) void chunk;
    running = false;
    assert.ok(turns >= 4, `the event loop turned ${turns} times over 5 pages`);
  });

  test('keyset paging asks for the next page after the last row until a short page', async () => {
    const data = Array.from({ length: 7 }, (_, i) => i + 1);
    const calls: (number | null)[] = [];
    const out: number[] = [];
    for await (const page of keysetBatches<number>(async (after) => {
      calls.push(after);
      return data.filter((x) => x > (after ?? 0)).slice(0, 3);
    }, 3)) out.push(...page);
    assert.deepEqual(out, data);
    assert.deepEqual(calls, [null, 3, 6]);
  });

  test('file names in Content-Disposition are reduced to safe characters', () => {
    assert.equal(contentDisposition('capita-2026-11.csv'), 'attachment; filename="capita-2026-11.csv"');
    assert.equal(contentDisposition('a"b\r\n.csv'), 'attachment; filename="a_b__.csv"');
  });
});
