// The benchmark's measure of the server's own time over a request (bench/server-time.cjs, loaded into the server by
// `npm run bench`): what it counts, what it leaves out, and that each reading starts the count again.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';

createRequire(import.meta.url)('../bench/server-time.cjs');

test("the server's own time: each answered request counted from its arrival to its answer, read and started again", async () => {
  const server = createServer((request, response) => {
    const wait = request.url === '/slow' ? 40 : 0;
    setTimeout(() => response.end('ok'), wait);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const read = async () => (await (await fetch(`${base}/__bench/server-time`)).json()) as { count: number; p50: number | null; p99: number | null; max: number | null };
    await read();
    for (const path of ['/fast', '/fast', '/fast', '/slow']) assert.equal(await (await fetch(base + path)).text(), 'ok');
    const first = await read();
    assert.equal(first.count, 4, 'the four requests, not the readings');
    assert.ok(first.p50! < 40, `median ${first.p50} ms`);
    assert.ok(first.p99! >= 39 && first.max! >= 39, `p99 ${first.p99} ms: the slow request`);
    assert.deepEqual(await read(), { count: 0, p50: null, p99: null, max: null }, 'a reading starts the count again');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
