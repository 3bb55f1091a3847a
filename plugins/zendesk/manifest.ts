import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { zendeskPreset } from './preset.js';

export const zendeskPlugin = definePlugin({
  id: 'zendesk',
  roles: ['preset'],
  summary: zendeskPreset.summary,
  config: z.object({}).strict(),
  preset: zendeskPreset,
  create: () => ({}),
});
