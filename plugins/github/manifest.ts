import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { githubPreset } from './preset.js';

export const githubPlugin = definePlugin({
  id: 'github',
  roles: ['preset'],
  summary: githubPreset.summary,
  config: z.object({}).strict(),
  preset: githubPreset,
  create: () => ({}),
});
