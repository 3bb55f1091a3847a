import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { intercomPreset } from './preset.js';

export const intercomPlugin = definePlugin({
  id: 'intercom',
  roles: ['preset'],
  summary: intercomPreset.summary,
  config: z.object({}).strict(),
  preset: intercomPreset,
  create: () => ({}),
});
