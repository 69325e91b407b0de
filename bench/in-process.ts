// The application driven in this process (app.inject) as the bench user: a cookie jar and the login, for the
// in-process profilers (bench:profile, bench:plans).

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { BENCH_PASSWORD, BENCH_USERNAME } from './common.js';
import { csrfTokenIn } from './server.js';

export type Inject = (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => Promise<LightMyRequestResponse>;

/** A request function that keeps the cookies it is given, logged in as the bench user. */
export async function loggedInInject(app: FastifyInstance): Promise<Inject> {
  const jar = new Map<string, string>();
  const inject: Inject = async (method, path, form) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await app.inject({
      method,
      url: path,
      headers: { host: 'localhost', cookie, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    for (const c of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair] = String(c).split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  const login = await inject('GET', '/users/login/');
  const done = await inject('POST', '/users/login/', { username: BENCH_USERNAME, password: BENCH_PASSWORD, csrfmiddlewaretoken: csrfTokenIn(login.body)! });
  if (done.statusCode !== 302) throw new Error(`login failed: ${done.statusCode}`);
  return inject;
}

/** How many pages a list has, from its pagination's links. */
export async function pagesOf(inject: Inject, path: string): Promise<number> {
  return Math.max(1, ...[...(await inject('GET', path)).body.matchAll(/data-page="(\d+)"/g)].map((m) => Number(m[1])));
}
