import { configOption, type CommandSpec, type OptionSpec } from './command-spec.js';

const urlOption: OptionSpec = { type: 'string', arg: 'URL', help: "the gateway (default: the config's gateway.host and gateway.port)" };
const jsonOption: OptionSpec = { type: 'boolean', help: 'print JSON' };

/**
 * herald's own commands, by their words. Each module is imported only when its command runs;
 * plugin commands (e.g. `webhooks gmail setup`) join them from the plugins' declarations.
 */
export const commands: Record<string, CommandSpec> = {
  serve: {
    summary: 'start the gateway (writes a starter config on first run)',
    options: {
      config: configOption,
      port: { type: 'string', arg: 'N', help: 'listen on this port instead of gateway.port (0 picks a free one)' },
      host: { type: 'string', arg: 'H', help: 'listen on this address instead of gateway.host' },
      pretty: { type: 'boolean', help: 'human-readable log lines (the default when stdout is a terminal; HERALD_LOG_PRETTY=0|1)' },
    },
    details: 'Stops gracefully on SIGTERM/SIGINT; SIGHUP reloads the config (see `herald reload`).',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  'config check': {
    summary: 'validate a config file and print every fault',
    options: { config: configOption },
    details: 'Exit code 1 when the config has a fault; warnings (things that will fail later) do not change it.',
    load: async () => (await import('./config/config-check.js')).configCheckCommand,
  },
  'hooks test': {
    summary: 'dry run: print the action a hook request becomes (or run --fixtures FILE)',
    usage: '<name> --payload FILE [--header K:V ...] [--query K=V ...] | --fixtures FILE',
    positionals: true,
    options: {
      payload: { type: 'string', short: 'p', arg: 'FILE', help: 'the request body (JSON)' },
      header: { type: 'string', short: 'H', multiple: true, arg: 'K:V', help: 'a request header (repeatable)' },
      query: { type: 'string', short: 'q', multiple: true, arg: 'K=V', help: 'a query parameter (repeatable)' },
      fixtures: { type: 'string', arg: 'FILE', help: 'run a fixture file (mappings/<x>.test.json) instead' },
      config: configOption,
    },
    details: 'Runs the templates and the transform, touches no store and starts no run. Unset ${ENV} variables of the config become placeholders (named on stderr).',
    load: async () => (await import('./hooks/hooks-test.js')).hooksTestCommand,
  },
  'hooks send': {
    summary: 'sign a fixture as its sender would and send it to the running gateway',
    usage: '<path> --fixture FILE|NAME',
    positionals: true,
    options: {
      fixture: { type: 'string', short: 'f', arg: 'FILE|NAME', help: "a fixture file, or the name of a fixture of the path's mappings or preset (issues.opened)" },
      config: configOption,
      url: urlOption,
    },
    details: "Signs with the secret of the path's mapping auth (or sends the hook token), prints the answer and the run's console link.",
    load: async () => (await import('./hooks/hooks-send.js')).hooksSendCommand,
  },
  'presets send': {
    summary: "sign one of an enabled preset's fixtures and send it to the running gateway",
    usage: '<preset> <fixture name>',
    positionals: true,
    options: { config: configOption, url: urlOption },
    details: 'The fixture name is an event (and action), e.g. `herald presets send github issues.opened`.',
    load: async () => (await import('./hooks/hooks-send.js')).presetsSendCommand,
  },
  'presets list': {
    summary: 'list the mapping presets: name, path and what each verifies',
    options: {},
    load: async () => (await import('./hooks/presets.js')).presetsListCommand,
  },
  'presets show': {
    summary: 'print the mappings a preset expands to, as YAML',
    usage: '<name> [--option K=V ...]',
    positionals: true,
    options: { option: { type: 'string', short: 'o', multiple: true, arg: 'K=V', help: 'a preset option, as in hooks.presets (repeatable; a JSON value is read as JSON)' } },
    load: async () => (await import('./hooks/presets.js')).presetsShowCommand,
  },
  'presets eject': {
    summary: 'write a preset into the mappings folder as <name>.yaml, to customise',
    usage: '<name> [--option K=V ...]',
    positionals: true,
    options: {
      option: { type: 'string', short: 'o', multiple: true, arg: 'K=V', help: 'a preset option, as in hooks.presets (repeatable)' },
      config: configOption,
    },
    details: "Writes into hooks.mappingsDir of the config (./mappings without one) and never overwrites a file. Then remove the preset from hooks.presets.",
    load: async () => (await import('./hooks/presets.js')).presetsEjectCommand,
  },
  'keys create': {
    summary: 'create a platform API key; prints it once',
    options: {
      name: { type: 'string', arg: 'NAME', help: 'the key name (required)' },
      agents: { type: 'string', arg: 'ID,ID', help: 'only these agents may be used with it' },
      config: configOption,
    },
    load: async () => (await import('./agents/keys.js')).keysCreateCommand,
  },
  'keys list': {
    summary: 'list platform API key names (never the keys)',
    options: { config: configOption },
    load: async () => (await import('./agents/keys.js')).keysListCommand,
  },
  'keys revoke': {
    summary: 'delete a stored platform API key',
    options: { name: { type: 'string', arg: 'NAME', help: 'the key name (required)' }, config: configOption },
    load: async () => (await import('./agents/keys.js')).keysRevokeCommand,
  },
  'agents list': {
    summary: 'list the digital employees, their model and document count',
    options: { json: { type: 'boolean', help: 'print JSON' }, config: configOption },
    load: async () => (await import('./agents/agents-list.js')).agentsListCommand,
  },
  'knowledge upload': {
    summary: 'upload files to an agent knowledge base through a running gateway',
    usage: '--agent ID FILE...',
    positionals: true,
    options: {
      agent: { type: 'string', short: 'a', arg: 'ID', help: 'the agent whose knowledge base takes the files (required)' },
      url: { type: 'string', arg: 'URL', help: 'the gateway (default: the config\'s gateway.host and gateway.port)' },
      'api-key': { type: 'string', arg: 'KEY', help: 'a platform API key (default: $HERALD_API_KEY)' },
      'chunk-size': { type: 'string', arg: 'N', help: 'characters per chunk' },
      'chunk-overlap': { type: 'string', arg: 'N', help: 'characters shared by neighbouring chunks' },
      metadata: { type: 'string', arg: 'JSON', help: 'a JSON object kept with each document' },
      config: configOption,
    },
    load: async () => (await import('./agents/knowledge-upload.js')).knowledgeUploadCommand,
  },
  'cron add': {
    summary: "make a schedule on the running gateway (OpenClaw's cron flags)",
    options: {
      name: { type: 'string', arg: 'NAME', help: 'a name for people (the id is made from it)' },
      id: { type: 'string', arg: 'ID', help: 'the job id (default: from --name, or random)' },
      at: { type: 'string', arg: 'WHEN', help: 'once: an ISO time with its offset, or a duration from now (20m)' },
      every: { type: 'string', arg: 'DURATION', help: 'every period (15m)' },
      cron: { type: 'string', arg: 'EXPR', help: 'a cron expression of 5 or 6 fields' },
      tz: { type: 'string', arg: 'ZONE', help: "the IANA time zone of --cron (default: the machine's)" },
      session: { type: 'string', arg: 'main|isolated', help: 'main: an event on the main session; isolated: a run of its own (default: by the payload)' },
      'system-event': { type: 'string', arg: 'TEXT', help: 'the event a fire adds to the main session' },
      message: { type: 'string', arg: 'TEXT', help: 'the message an isolated run answers' },
      agent: { type: 'string', arg: 'ID', help: 'the agent of the run (default: the default agent)' },
      wake: { type: 'string', arg: 'now|next-heartbeat', help: 'when the heartbeat sees it (default now)' },
      announce: { type: 'boolean', help: 'deliver the reply to --channel (default last) and --to' },
      channel: { type: 'string', arg: 'CHANNEL', help: 'the channel of --announce' },
      to: { type: 'string', arg: 'TARGET', help: 'the recipient of --announce' },
      'delete-after-run': { type: 'boolean', help: 'delete the job once it fired (one-shots)' },
      json: { type: 'boolean', help: 'print the stored job as JSON' },
      url: urlOption,
      config: configOption,
    },
    details: 'One of --at, --every, --cron, and one of --system-event, --message. An isolated job is delivered only with --announce (or --channel, --to). Faults are refused by the gateway, naming the field. Needs gateway.auth.token (or $HERALD_GATEWAY_TOKEN).',
    load: async () => (await import('./admin/cron.js')).cronAddCommand,
  },
  'cron list': { summary: 'list the schedules, the config\'s and those made at run time', options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronListCommand },
  'cron show': { summary: 'one schedule, with its job', usage: 'ID', positionals: true, options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronShowCommand },
  'cron run': { summary: 'run a schedule now (its next fire does not move)', usage: 'ID', positionals: true, options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronRunCommand },
  'cron runs': {
    summary: "a schedule's fires, newest first, with their runs",
    usage: 'ID',
    positionals: true,
    options: { limit: { type: 'string', arg: 'N', help: 'at most N (default 100)' }, json: jsonOption, url: urlOption, config: configOption },
    load: async () => (await import('./admin/cron.js')).cronRunsCommand,
  },
  'cron enable': { summary: 'enable a schedule made at run time (due anew from now)', usage: 'ID', positionals: true, options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronEnableCommand },
  'cron disable': { summary: 'disable a schedule made at run time', usage: 'ID', positionals: true, options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronDisableCommand },
  'cron rm': { summary: 'delete a schedule made at run time', usage: 'ID', positionals: true, options: { json: jsonOption, url: urlOption, config: configOption }, load: async () => (await import('./admin/cron.js')).cronRmCommand },
  'requests list': {
    summary: 'list the newest webhook requests: time, status, path, mapping, what they got or where their mapping failed, id',
    options: {
      failed: { type: 'boolean', help: 'only the requests whose mapping failed' },
      mapping: { type: 'string', arg: 'ID', help: 'only the requests of this mapping' },
      limit: { type: 'string', arg: 'N', help: 'at most N, 1 to 1000 (default 100)' },
      json: jsonOption,
      url: urlOption,
      config: configOption,
    },
    details: 'Newest first. Needs gateway.auth.token (or $HERALD_GATEWAY_TOKEN).',
    load: async () => (await import('./admin/requests.js')).requestsListCommand,
  },
  'requests show': {
    summary: 'show a webhook request: its answer, where and why its mapping failed, whether its payload is kept',
    usage: 'ID',
    positionals: true,
    options: { json: jsonOption, url: urlOption, config: configOption },
    load: async () => (await import('./admin/requests.js')).requestsShowCommand,
  },
  'requests replay': {
    summary: 'replay a request whose payload is kept through the current mappings (after fixing its mapping)',
    usage: 'ID',
    positionals: true,
    options: { json: jsonOption, url: urlOption, config: configOption },
    details: 'Prints the replay\'s receipt: what the request got this time, or where its mapping failed again (exit 1).',
    load: async () => (await import('./admin/requests.js')).requestsReplayCommand,
  },
  reload: {
    summary: 'reload the running gateway\'s config (as SIGHUP does)',
    options: {
      url: { type: 'string', arg: 'URL', help: 'the gateway (default: the config\'s gateway.host and gateway.port)' },
      config: configOption,
    },
    details: 'Mappings, presets, agents, models, channels, keys and limits take effect at once; an invalid file is refused and the running config stays. Needs gateway.auth.token (or $HERALD_GATEWAY_TOKEN).',
    load: async () => (await import('./admin/reload.js')).reloadCommand,
  },
  docs: {
    summary: "regenerate the generated blocks of README.md and docs/ (--write, or --check for staleness)",
    options: {
      write: { type: 'boolean', help: 'rewrite the blocks in place' },
      check: { type: 'boolean', help: 'exit 1 when a block is stale' },
      root: { type: 'string', arg: 'DIR', help: 'the folder holding README.md and docs/ (default: the repository)' },
    },
    load: async () => (await import('./docs.js')).docsCommand,
  },
};
