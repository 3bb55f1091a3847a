import { OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';

/** an OpenAPIHono whose request validation fails as the one error mapper answers every 400: `{ok:false,error}` naming the field */
export function adminApp(): OpenAPIHono {
  return new OpenAPIHono({
    defaultHook: (result) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      // a parameter the route does not know (a typo such as `?mapping_id=`) is refused, never silently ignored
      if (issue?.code === 'unrecognized_keys') {
        const [name] = issue.keys;
        throw new HeraldError('HERALD_INVALID_FIELD', `${name} is not a parameter of this route`, { param: name });
      }
      const field = issue?.path.map(String).join('.') || 'body';
      throw new HeraldError('HERALD_INVALID_FIELD', `${field} ${issue?.message ?? 'is invalid'}`, { param: field });
    },
  });
}

export const bearerSecurity: Record<string, string[]>[] = [{ gatewayToken: [] }, { consoleSession: [] }];
