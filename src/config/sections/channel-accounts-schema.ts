import { z } from 'zod';

/** what an account id may be: a word, as OpenClaw's account ids are (`default`, `alerts`, `work-2`) */
export const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** the keys a channel section takes beside its plugin's own: they are the host's, never a plugin's */
export const CHANNEL_HOST_KEYS = ['retry', 'accounts', 'defaultAccount', 'name'] as const;

/** OpenClaw's display name of a channel or an account: accepted so its configs load, never sent to a platform */
const displayName = z.string().optional().describe('A display name (OpenClaw\'s `name`): accepted, never sent to the platform.');

/**
 * A channel's section with OpenClaw's several accounts: `accounts.<id>` takes the channel's own
 * keys, each over the section's top-level ones (base settings apply to every account unless an
 * account overrides them); each account, merged so, must satisfy the plugin's schema, and so must
 * the section itself when it has no accounts. The account used when none is named is
 * `defaultAccount`, else `default`, else the first listed (OpenClaw's rule).
 */
export function withAccounts(schema: z.ZodObject, host: Record<string, z.ZodType>): z.ZodType {
  const account = overridesOf(schema).extend({ name: displayName });
  return schema
    .partial()
    .extend({
      ...host,
      name: displayName,
      accounts: z
        .record(z.string().regex(ACCOUNT_ID, 'an account id is a word (letters, digits, - and _; at most 64)'), account)
        .optional()
        .describe('Several accounts of this channel (OpenClaw\'s `channels.<id>.accounts.<accountId>`): each takes this section\'s keys, over the top-level ones. A direct /hooks/agent request picks one with `accountId`.'),
      defaultAccount: z.string().optional().describe('The account used when a request names none; default: `default` when listed, else the first account.'),
    })
    .superRefine((value, ctx) => {
      const base = pluginKeys(value);
      const accounts = Object.entries(value.accounts ?? {});
      const complete = (config: unknown, path: (string | number)[]) => {
        const parsed = schema.safeParse(config);
        if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: [...path, ...issue.path] });
      };
      if (!accounts.length) {
        if (value.defaultAccount !== undefined) ctx.addIssue({ code: 'custom', message: 'names an account, but the channel lists no accounts', path: ['defaultAccount'] });
        complete(base, []);
        return;
      }
      for (const [id, { name: _name, ...overrides }] of accounts as [string, Record<string, unknown>][]) complete({ ...base, ...overrides }, ['accounts', id]);
      if (value.defaultAccount !== undefined && !value.accounts![value.defaultAccount]) {
        ctx.addIssue({ code: 'custom', message: `"${value.defaultAccount}" is not one of accounts (${accounts.map(([id]) => id).join(', ')})`, path: ['defaultAccount'] });
      }
    });
}

/**
 * An account's keys: the channel's, each optional and without its default, so what an account
 * leaves out comes from the section's top level (a default fills in only once, when merged).
 */
function overridesOf(schema: z.ZodObject): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => {
      const bare = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : (field as z.ZodType);
      const optional = bare.optional();
      return [key, field.description ? optional.describe(field.description) : optional];
    }),
  );
  return z.object(shape).strict();
}

/** a section's own keys for its plugin, without the host's */
export function pluginKeys(section: Record<string, unknown>): Record<string, unknown> {
  const own = { ...section };
  for (const key of CHANNEL_HOST_KEYS) delete own[key];
  return own;
}
