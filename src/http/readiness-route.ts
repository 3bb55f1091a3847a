import type { Handler } from 'hono';
import type { Logger } from 'pino';
import { HeraldError } from '../errors.js';
import type { StoreProbe } from '../store/contracts/store-probe.js';

/** parts of herald that work less than fully without making it unready, by name (`tools`), each with what is wrong (`{ github: "failed" }`) */
export type DegradedComponents = Record<string, Record<string, string>>;

/**
 * `GET /readyz`: 200 while the store answers a trivial query, 503 otherwise. No token, like
 * /healthz: a load balancer or kubelet probes it. /healthz says the process is up; this says
 * it can take work (everything it accepts goes to the store first). A degraded component (an MCP
 * server down) is named in the 200 answer, never a 503: herald still takes work without it.
 */
export function readinessRoute(deps: { probe: StoreProbe; logger: Logger; degraded?: () => DegradedComponents | undefined }): Handler {
  return async function readinessRoute(c) {
    try {
      await deps.probe.ping();
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness: the store does not answer');
      throw new HeraldError('HERALD_UNAVAILABLE', 'store unavailable');
    }
    const degraded = deps.degraded?.();
    return c.json(degraded && Object.keys(degraded).length ? { ok: true, degraded } : { ok: true });
  };
}
