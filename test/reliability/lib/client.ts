// A browser-like client (cookie jar, CSRF token from the last page) over two transports: the in-process app
// (app.inject, for npm test) or a real server over HTTP (fetch, for the harnesses that kill processes).
import type { FastifyInstance } from 'fastify';

export interface Resp {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
  /** The one-time messages queued by this answer (read from the signed `messages` cookie it set). */
  flashed: { level: string; text: string }[];
}

interface RawCookie {
  name: string;
  value: string;
  expired: boolean;
}
interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}
interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  cookies: RawCookie[];
}
type Transport = (req: RawRequest) => Promise<RawResponse>;

export const FORM = 'application/x-www-form-urlencoded';

export function injectTransport(app: FastifyInstance, remoteAddress: string): Transport {
  return async (req) => {
    const res = await app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, payload: req.body, remoteAddress });
    const cookies = (res.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]).map((c) => ({
      name: c.name,
      value: c.value,
      expired: (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.maxAge === 0 || c.value === '',
    }));
    return { status: res.statusCode, headers: res.headers, body: res.body, cookies };
  };
}

function parseSetCookie(line: string): RawCookie {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  let expired = value === '';
  for (const a of attrs) {
    const [k = '', v = ''] = a.split('=');
    if (k.trim().toLowerCase() === 'max-age' && Number(v) <= 0) expired = true;
    if (k.trim().toLowerCase() === 'expires' && Date.parse(v) <= Date.now()) expired = true;
  }
  return { name, value, expired };
}

export function fetchTransport(baseUrl: string, timeoutMs = 15_000): Transport {
  return async (req) => {
    const res = await fetch(baseUrl + req.url, {
      method: req.method,
      headers: req.headers,
      body: typeof req.body === 'string' || req.body === undefined ? req.body : new Uint8Array(req.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: await res.text(), cookies: res.headers.getSetCookie().map(parseSetCookie) };
  };
}

/** The messages a signed `messages` cookie carries: base64url JSON, then `.signature`. */
export function decodeFlash(cookieValue: string): { level: string; text: string }[] {
  try {
    const raw = decodeURIComponent(cookieValue);
    const payload = raw.slice(0, raw.lastIndexOf('.'));
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? (parsed as { level: string; text: string }[]) : [];
  } catch {
    return [];
  }
}

export function encodeForm(form: Record<string, string | readonly string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const item of typeof v === 'string' ? [v] : v) params.append(k, item);
  return params.toString();
}

export class Client {
  readonly cookies = new Map<string, string>();
  csrfToken: string | null = null;

  constructor(private readonly transport: Transport) {}

  static inject(app: FastifyInstance, remoteAddress = randomAddress()): Client {
    return new Client(injectTransport(app, remoteAddress));
  }

  static http(baseUrl: string, timeoutMs?: number): Client {
    return new Client(fetchTransport(baseUrl, timeoutMs));
  }

  async request(method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<Resp> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await this.transport({ method, url, body, headers: { ...(cookie ? { cookie } : {}), ...headers } });
    let flashed: Resp['flashed'] = [];
    for (const c of res.cookies) {
      if (c.expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
      if (c.name === 'messages' && !c.expired) flashed = decodeFlash(c.value);
    }
    const token = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrfToken = token;
    // A new CSRF secret (login, logout) makes the tokens of earlier pages useless, as in a browser.
    else if (res.cookies.some((c) => c.name === 'csrftoken' && !c.expired)) this.csrfToken = null;
    const location = res.headers.location as string | undefined;
    return { status: res.status, headers: res.headers, body: res.body, location, flashed };
  }

  get(url: string, headers?: Record<string, string>): Promise<Resp> {
    return this.request('GET', url, undefined, headers);
  }

  /** Posts a form with the current CSRF token (fetched from the login page first if there is none). */
  async post(url: string, form: Readonly<Record<string, string | readonly string[] | undefined>> = {}, options: { csrf?: boolean } = {}): Promise<Resp> {
    const fields: Record<string, string | readonly string[]> = {};
    for (const [k, v] of Object.entries(form)) if (v !== undefined) fields[k] = v;
    if (options.csrf !== false && fields.csrfmiddlewaretoken === undefined) fields.csrfmiddlewaretoken = await this.token();
    return this.request('POST', url, encodeForm(fields), { 'content-type': FORM });
  }

  /** Posts a body exactly as given (already encoded, possibly malformed), with the token in the header. */
  async postRaw(url: string, body: string | Buffer, contentType = FORM): Promise<Resp> {
    return this.request('POST', url, body, { 'content-type': contentType, 'x-csrftoken': await this.token() });
  }

  /** Follows a redirect and returns the page it leads to. */
  follow(res: Resp): Promise<Resp> {
    if (!res.location) throw new Error(`not a redirect: ${res.status}`);
    return this.get(res.location);
  }

  async token(): Promise<string> {
    if (!this.csrfToken) await this.get('/users/login/');
    if (!this.csrfToken) await this.get('/users/logout/');
    if (!this.csrfToken) throw new Error('no CSRF token on the login page');
    return this.csrfToken;
  }

  async login(username: string, password: string): Promise<Resp> {
    await this.get('/users/login/');
    const res = await this.post('/users/login/', { username, password });
    if (res.status !== 302) throw new Error(`login of ${username} failed: ${res.status}`);
    return res;
  }
}

let addressCounter = 0;
/** A distinct client address per client, so the per-address rate limit of the login form never mixes tests. */
export function randomAddress(): string {
  addressCounter++;
  return `10.${(process.pid >> 8) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
}
