import type { Handler } from 'hono';
import type { HeraldConfig } from '../config/schema.js';
import type { HeraldMetrics } from '../metrics/herald-metrics.js';
import { bearerToken } from './auth/bearer-token.js';
import type { FailedAuthLimiter } from './auth/failed-auth-limiter.js';
import { requesterOf } from './auth/requester.js';
import { checkToken } from './auth/token-auth.js';

/**
 * `GET /metrics`: the Prometheus text exposition, behind the gateway token like the admin API
 * (queue depths and mapping ids are operator knowledge), failures counted by the same limiter.
 */
export function metricsRoute(deps: { config: HeraldConfig; metrics: HeraldMetrics; limiter: FailedAuthLimiter }): Handler {
  return async function metricsRoute(c) {
    checkToken(requesterOf(c), deps.limiter, bearerToken(c), deps.config.gateway.auth.token);
    const text = await deps.metrics.render();
    return c.body(text, 200, { 'Content-Type': deps.metrics.contentType, 'Cache-Control': 'no-store' });
  };
}
