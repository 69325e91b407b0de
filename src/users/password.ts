import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt (RFC 7914) from node's crypto, N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds a hash.
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

const scryptOnce = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );

/**
 * One derivation at a time: each holds its 32 MiB while it runs, and libuv's pool would run four at once (staff
 * logging in together at the start of a shift: 128 MiB more resident memory). Decision 0250.
 */
let turn: Promise<unknown> = Promise.resolve();
let running = 0;
let mostAtOnce = 0;
const derive = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> => {
  const mine = turn.then(async () => {
    mostAtOnce = Math.max(mostAtOnce, ++running);
    try {
      return await scryptOnce(password, salt, options);
    } finally {
      running--;
    }
  });
  turn = mine.catch(() => undefined);
  return mine;
};

/** The most derivations that ran at once so far (for the test of the bound). */
export const derivationsAtOnce = (): number => mostAtOnce;

/** The stored form: scrypt$N$r$p$salt$hash (base64url); the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | null = null;
/**
 * A hash no password matches in practice, checked in place of an unknown or inactive user's: the same work as a real
 * check, so a user name cannot be told apart by timing.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword('somno-dummy-password-for-timing');
  return dummy;
}
