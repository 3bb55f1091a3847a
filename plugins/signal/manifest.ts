import { z } from 'zod';
import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { signalChannel } from './channel.js';

export const signalConfigSchema = z
  .object({
    url: z.string().url().describe('Base URL of a signal-cli REST API server (bbernhard/signal-cli-rest-api), e.g. `http://127.0.0.1:8080`.'),
    number: z.string().min(1).describe('The registered Signal number herald sends from, in international format (`+4915112345678`).'),
  })
  .strict();

export type SignalConfig = z.output<typeof signalConfigSchema>;

export const signalPlugin = definePlugin({
  id: 'signal',
  roles: ['channel'],
  summary: 'Signal: sends replies through a signal-cli REST API server (`POST /v2/send`).',
  config: signalConfigSchema,
  docs: [
    '`to` is a phone number in international format (`+4915112345678`), a username, or a group id as the REST API lists it (`group.<base64>`).',
    'There is no token: run [signal-cli-rest-api](https://github.com/bbernhard/signal-cli-rest-api) (Docker), register or link a number there (`/v1/register/<number>` or `/v1/qrcodelink`), and keep that server on a private network, since anyone who reaches it can send as you.',
    'Messages over 2000 characters are split (Signal turns longer texts into attachments).',
  ].join('\n\n'),
  guarantees: {
    threads: "ignored: Signal has no threads (a quote needs the author and the original text)",
    idempotency: "none: signal-cli has no idempotency key",
    splitAbove: "2000 characters",
    escaping: "plain text",
  },
  create: ({ config }) => ({ channel: config ? signalChannel(config) : undefined }),
});
