import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { gitlabPreset } from './preset.js';

export const gitlabPlugin = definePlugin({
  id: 'gitlab',
  roles: ['preset'],
  summary: gitlabPreset.summary,
  config: z.object({}).strict(),
  preset: gitlabPreset,
  create: () => ({}),
});
