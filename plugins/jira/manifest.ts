import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { jiraPreset } from './preset.js';

export const jiraPlugin = definePlugin({
  id: 'jira',
  roles: ['preset'],
  summary: jiraPreset.summary,
  config: z.object({}).strict(),
  preset: jiraPreset,
  create: () => ({}),
});
