import { z } from 'zod';
import { definePlugin } from '../../src/plugins/sdk.js';
import { twilioPreset } from './preset.js';

export const twilioPlugin = definePlugin({
  id: 'twilio',
  roles: ['preset'],
  summary: twilioPreset.summary,
  config: z.object({}).strict(),
  preset: twilioPreset,
  create: () => ({}),
});
