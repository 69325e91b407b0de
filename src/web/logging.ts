// The server's log: one line a request at most, no query strings, errors with their stacks in the sources.

import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { mappedStack } from '../platform/launch/mapped-stack.js';

/**
 * At most one log line a request, written when it is answered (method, path, status, time): every failed one, and
 * the others only with LOG_REQUESTS=true (decision 0016).
 */
export class CompletedOnlyLogController extends LogController {
  constructor(private readonly logRequests: boolean) {
    super();
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.logRequests) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Only the path, never the query string: searches carry patients' names and documents. */
const requestSerializer = (req: { method: string; url: string; id: string }) => ({
  id: req.id,
  method: req.method,
  path: req.url.split('?')[0],
});

/** An error as logged: its stack in the TypeScript sources, mapped only now (decision 0250). */
export const errorSerializer = (err: Error & { code?: unknown }) => ({
  type: err.constructor?.name ?? 'Error',
  message: err.message,
  stack: mappedStack(err.stack ?? ''),
  ...(err.code === undefined ? {} : { code: err.code }),
});

export function loggerOptions(appEnv: string): FastifyServerOptions['logger'] {
  return {
    level: appEnv === 'test' ? 'warn' : 'info',
    redact: ['req.headers.cookie', 'req.headers.authorization', 'req.headers["x-csrftoken"]', 'res.headers["set-cookie"]'],
    serializers: { req: requestSerializer, err: errorSerializer },
  };
}
