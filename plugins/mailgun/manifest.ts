import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { mailgunPreset } from './preset.js';

export const mailgunPlugin = definePlugin({
  id: 'mailgun',
  roles: ['preset'],
  summary: mailgunPreset.summary,
  config: z.object({}).strict(),
  preset: mailgunPreset,
  create: () => ({}),
});
