import { definePlugin } from '../../src/plugin-sdk/sdk.js';
import { signalConfigSchema } from './config.js';
import { signalChannel } from './channel.js';

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
