// Loaded into the server by `npm run bench` (`node --require`), never by the application: how long the server itself
// takes over each request, from the parsed request to its answer handed to the operating system. wrk's and
// autocannon's latencies add the time a request waits in the server's queue (32 connections on one event loop) and
// the client's own scheduling; the difference says which of the two a p99 is made of.
// GET /__bench/server-time answers the figures since the last such request, and starts again; it is not counted.
// Worker threads inherit the flag (the audit writer's): there it patches a server class nobody starts.
'use strict';
const http = require('node:http');
const { createHistogram } = require('node:perf_hooks');

const PATH = '/__bench/server-time';
let histogram = createHistogram();
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event !== 'request') return emit.apply(this, arguments);
  if (request.url === PATH) {
    const ms = (q) => (histogram.count === 0 ? null : Number(histogram.percentile(q)) / 1e6);
    const body = JSON.stringify({ count: histogram.count, p50: ms(50), p99: ms(99), max: histogram.count === 0 ? null : Number(histogram.max) / 1e6 });
    histogram = createHistogram();
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return true;
  }
  const start = process.hrtime.bigint();
  const recorded = histogram;
  response.once('finish', () => recorded.record(Math.max(1, Number(process.hrtime.bigint() - start))));
  return emit.apply(this, arguments);
};
