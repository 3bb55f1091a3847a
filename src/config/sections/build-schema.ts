import { z } from 'zod';
import { defaultsOf } from './defaults-of.js';
import { coreConfigShape, hooksSchema } from '../schema.js';
import { retryPolicySchema } from './delivery-policy-schema.js';
import { withAccounts } from './channel-accounts-schema.js';

/**
 * A config section that an extension (a plugin) declares: where it mounts (`channels.<id>` or
 * `hooks.<id>`), its own schema and one line for the docs. The config layer knows sections, not
 * plugins: the plugin host turns each plugin into one.
 */
export interface ConfigSection {
  key: string;
  schema: z.ZodType;
  summary: string;
}

/**
 * The schema of a config file for a given set of sections: the core schema with each section's
 * schema mounted at its key, so unknown keys stay errors everywhere and every plugin's config is
 * declared exactly once, in its manifest.
 */
const channelRetry = retryPolicySchema.optional().describe("This channel's retry schedule, over `delivery`'s defaults (an agent's or a mapping's `retry` wins).");

export function buildConfigSchema(sections: ConfigSection[]) {
  const channelShape: Record<string, z.ZodType> = {};
  const hooksShape: Record<string, z.ZodType> = {};
  for (const section of sections) {
    const [top, key] = section.key.split('.') as [string, string];
    const target = top === 'channels' ? channelShape : top === 'hooks' ? hooksShape : undefined;
    // every channel takes a `retry` schedule and OpenClaw's `accounts` beside its plugin's own keys (the host reads them, the plugin never sees them)
    const schema = top === 'channels' && section.schema instanceof z.ZodObject ? withAccounts(section.schema, { retry: channelRetry }) : section.schema;
    if (target) target[key] = schema.optional().describe(section.summary);
  }
  const hooks = hooksSchema.extend(hooksShape);
  return z
    .object({
      ...coreConfigShape,
      hooks: hooks.default(defaultsOf(hooks)).describe(coreConfigShape.hooks.description ?? ''),
      channels: z.object(channelShape).strict().default({}).describe(coreConfigShape.channels.description ?? ''),
    })
    .strict();
}
