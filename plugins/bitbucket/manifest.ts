import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { bitbucketPreset } from './preset.js';

export const bitbucketPlugin = definePlugin({
  id: 'bitbucket',
  roles: ['preset'],
  summary: bitbucketPreset.summary,
  config: z.object({}).strict(),
  preset: bitbucketPreset,
  create: () => ({}),
});
