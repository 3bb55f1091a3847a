import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { notionPreset } from './preset.js';

export const notionPlugin = definePlugin({
  id: 'notion',
  roles: ['preset'],
  summary: notionPreset.summary,
  config: z.object({}).strict(),
  preset: notionPreset,
  create: () => ({}),
});
