import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { netlifyPreset } from './preset.js';

export const netlifyPlugin = definePlugin({
  id: 'netlify',
  roles: ['preset'],
  summary: netlifyPreset.summary,
  config: z.object({}).strict(),
  preset: netlifyPreset,
  create: () => ({}),
});
