import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Message, MessageLevel, RestoredForm } from './deps.js';

const COOKIE = 'messages';
/** A refused form sent back through a redirect: small (one form's values), signed, read once. */
const FORM_COOKIE = 'formback';
const FORM_COOKIE_MAX = 3000;

function decodeForm(raw: string | undefined, unsign: (v: string) => { valid: boolean; value: string | null }): RestoredForm | null {
  if (!raw) return null;
  const { valid, value } = unsign(raw);
  if (!valid || !value) return null;
  try {
    const f = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as RestoredForm;
    const pairs = Array.isArray(f.fields) && f.fields.every((p) => Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string');
    if (typeof f.action !== 'string' || !pairs) return null;
    const errors = typeof f.errors === 'object' && f.errors !== null ? Object.fromEntries(Object.entries(f.errors).filter(([, v]) => typeof v === 'string')) : {};
    return { action: f.action, fields: f.fields, errors };
  } catch {
    return null;
  }
}
const LEVELS: readonly MessageLevel[] = ['success', 'error', 'info', 'warning'];

function decode(raw: string | undefined, unsign: (v: string) => { valid: boolean; value: string | null }): Message[] {
  if (!raw) return [];
  const { valid, value } = unsign(raw);
  if (!valid || !value) return [];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (m): m is Message =>
        typeof m === 'object' && m !== null && LEVELS.includes(m.level) && typeof m.text === 'string',
    );
  } catch {
    return [];
  }
}

/**
 * One-time messages (decisions §3). They travel in a signed cookie, so they survive a redirect
 * without a database write and any instance can show them.
 */
export const messagesPlugin = fp(async (app: FastifyInstance) => {
  const secure = app.deps.config.isProduction;
  app.decorateReply('flash', function (level: MessageLevel, text: string) {
    pending(this).queued.push({ level, text });
  });
  app.decorateReply('flashForm', function (form: RestoredForm) {
    const value = Buffer.from(JSON.stringify(form)).toString('base64url');
    if (value.length > FORM_COOKIE_MAX) return;
    this.setCookie(FORM_COOKIE, value, { path: '/', httpOnly: true, sameSite: 'lax', secure, signed: true });
  });
  app.decorateReply('takeFlashForm', function () {
    const raw = this.request.cookies[FORM_COOKIE];
    if (raw === undefined) return null;
    this.clearCookie(FORM_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure, signed: true });
    return decodeForm(raw, (v) => this.unsignCookie(v));
  });
  app.decorateReply('takeMessages', function () {
    const state = pending(this);
    const incoming = decode(this.request.cookies[COOKIE], (v) => this.unsignCookie(v));
    const all = [...incoming, ...state.queued];
    state.queued = [];
    state.consumed = true;
    return all;
  });

  // A callback hook: every response passes it, and an async hook costs each one a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const state = states.get(reply);
    if (!state) return done(null, payload);
    const opts = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure, signed: true };
    if (state.queued.length > 0) {
      const keep = state.consumed ? [] : decode(request.cookies[COOKIE], (v) => reply.unsignCookie(v));
      const value = Buffer.from(JSON.stringify([...keep, ...state.queued].slice(-10))).toString('base64url');
      reply.setCookie(COOKIE, value, opts);
    } else if (state.consumed && request.cookies[COOKIE]) {
      reply.clearCookie(COOKIE, opts);
    }
    done(null, payload);
  });
});

interface PendingState {
  queued: Message[];
  consumed: boolean;
}
const states = new WeakMap<object, PendingState>();
function pending(reply: object): PendingState {
  let s = states.get(reply);
  if (!s) {
    s = { queued: [], consumed: false };
    states.set(reply, s);
  }
  return s;
}
