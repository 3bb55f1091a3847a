import type { Handler } from 'hono';
import type { Logger } from 'pino';
import { HeraldError } from '../errors.js';
import type { StoreProbe } from '../store/store-probe.js';

/**
 * `GET /readyz`: 200 while the store answers a trivial query, 503 otherwise. No token, like
 * /healthz: a load balancer or kubelet probes it. /healthz says the process is up; this says
 * it can take work (everything it accepts goes to the store first).
 */
export function readinessRoute(deps: { probe: StoreProbe; logger: Logger }): Handler {
  return async function readinessRoute(c) {
    try {
      await deps.probe.ping();
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness: the store does not answer');
      throw new HeraldError('HERALD_UNAVAILABLE', 'store unavailable');
    }
    return c.json({ ok: true });
  };
}
