import type { Handler } from 'hono';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { ReloadResult } from '../reload-result.js';
import { bearerToken } from '../auth/bearer-token.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { requesterOf } from '../auth/requester.js';
import { checkToken } from '../auth/token-auth.js';

/**
 * `POST /admin/reload` (what `herald reload` calls): reloads the config file. 200 with what changed
 * and what waits for a restart; 422 with the faults when the file is refused (the running config stays).
 */
export function reloadRoute(deps: { config: HeraldConfig; limiter: FailedAuthLimiter; reload: (reason?: string) => Promise<ReloadResult> }): Handler {
  return async function reloadRoute(c) {
    checkToken(requesterOf(c), deps.limiter, bearerToken(c), deps.config.gateway.auth.token);
    const result = await deps.reload('POST /admin/reload');
    if (!result.ok) throw new HeraldError('HERALD_CONFIG_REFUSED', undefined, { details: result.faults });
    return c.json({ ok: true, changed: result.changed, restartRequired: result.restartRequired });
  };
}
