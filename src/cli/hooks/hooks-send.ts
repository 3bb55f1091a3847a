import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { MappingAuth } from '../../config/sections/mapping-schema.js';
import { hooksPrefix } from '../../config/hooks-path.js';
import { ConfigError } from '../../errors.js';
import { mappingFaultLines } from '../../mappings/loading/mapping-fault-lines.js';
import { trimSlashes } from '../../mappings/hook-request.js';
import { resolveMappings } from '../../mappings/loading/resolve-mappings.js';
import { senderSignature } from '../../mappings/signatures/sender-signing.js';
import { loadConfigFile, type LoadedConfig } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import { PACKAGE_ROOT } from '../../utils/install-layout.js';
import { parseExactJson } from '../../utils/exact-json.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { gatewayBase, unreachableGateway } from '../admin/gateway-address.js';

const USAGE = 'usage: herald hooks send <path> --fixture FILE|NAME [--config FILE] [--url URL]\n       herald presets send <preset> <fixture name> [--config FILE] [--url URL]';

interface FixtureCase {
  name?: string;
  headers?: Record<string, string>;
  payload?: unknown;
}

/** `herald hooks send`: signs a fixture as its sender would, with the configured secret, and posts it to the running gateway. */
export async function hooksSendCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const parsed = parse(argv);
  if (typeof parsed === 'string' || !parsed.positionals[0] || !parsed.values.fixture) return usage(io, typeof parsed === 'string' ? parsed : undefined);
  return send(trimSlashes(parsed.positionals[0]), parsed.values.fixture, parsed.values, io, builtins);
}

/** `herald presets send github issues.opened`: the same, on the path of an enabled preset, with one of its fixtures. */
export async function presetsSendCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const parsed = parse(argv);
  const [name, fixture] = typeof parsed === 'string' ? [] : parsed.positionals;
  if (typeof parsed === 'string' || !name || !fixture) return usage(io, typeof parsed === 'string' ? parsed : undefined);
  const loaded = await loadConfigFile(configPathFrom(parsed.values.config), { builtins });
  const enabled = loaded.plugins.enabledPresets(loaded.config).presets.find((p) => p.name === name);
  if (!enabled) {
    io.err(`herald presets send: "${name}" is not in hooks.presets of ${loaded.file} (enabled: ${loaded.plugins.enabledPresets(loaded.config).presets.map((p) => p.name).join(', ') || 'none'})`);
    return 1;
  }
  return send(trimSlashes(enabled.options.path), fixture, parsed.values, io, builtins, loaded, name);
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: { fixture: { type: 'string', short: 'f' }, config: { type: 'string', short: 'c' }, url: { type: 'string' } } });
  } catch (error) {
    return (error as Error).message;
  }
}

function usage(io: CliIo, problem?: string): number {
  io.err(`${problem ? `herald hooks send: ${problem}\n` : ''}${USAGE}`);
  return 2;
}

async function send(
  hookPath: string,
  fixture: string,
  flags: { config?: string; url?: string },
  io: CliIo,
  builtins: PluginSource[],
  preloaded?: LoadedConfig,
  preset?: string,
): Promise<number> {
  const command = preset ? 'herald presets send' : 'herald hooks send';
  const loaded = preloaded ?? (await loadConfigFile(configPathFrom(flags.config), { builtins }));
  const { config } = loaded;
  let mappings: Awaited<ReturnType<typeof resolveMappings>>;
  try {
    mappings = await resolveMappings(loaded, { config, channelNames: loaded.plugins.channelNames() });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const fault of await mappingFaultLines(error.faults, config.hooks.mappingsDir)) io.err(`${command}: ${fault}`);
    return 1;
  }
  const ofPath = mappings.filter((m) => m.path === hookPath);
  if (!ofPath.length) {
    io.err(`${command}: no mapping serves the path "${hookPath}" (paths: ${[...new Set(mappings.flatMap((m) => m.path ?? []))].join(', ') || 'none'})`);
    return 1;
  }
  // mappings of yours on the preset's path shadow it: sending them the preset's fixture would test them, not the preset
  if (preset && !ofPath.some((m) => presetOf(m.origin) === preset)) {
    const yours = [...new Set(ofPath.map((m) => (m.origin ?? '').replace(/\[\d+\]$/, '')))].join(', ');
    io.err(
      `${command}: the ${preset} preset does not answer "${hookPath}": your mappings (${yours}) shadow it there. ` +
        `Remove them (or set hooks.mappingsDir to another folder), or give the preset its own path and id ({ name: "${preset}", path: "...", id: "..." }); ` +
        `\`herald hooks send ${hookPath} --fixture FILE|NAME\` sends to your mappings`,
    );
    return 1;
  }
  const found = findFixture(fixture, ofPath.map((m) => m.origin ?? ''));
  if (typeof found === 'string') {
    io.err(`${command}: ${found}`);
    return 1;
  }
  const body = Buffer.from(JSON.stringify(found.payload ?? {}));
  const auth = ofPath.map((m) => m.definition?.auth as MappingAuth | undefined).find((a) => a !== undefined);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...lowerKeys(found.headers) };
  if (auth) {
    const signed = senderSignature(auth, body, Date.now());
    if (!signed) {
      io.err(`${command}: ${/^[aeiou]/i.test(auth.type) ? 'an' : 'a'} ${auth.type} signature is made with the sender's own keys or over more than the body; send it from the sender (or herald hooks test for a dry run)`);
      return 1;
    }
    Object.assign(headers, lowerKeys(signed));
  } else if (config.hooks.token) headers.authorization = `Bearer ${config.hooks.token}`;

  const base = gatewayBase(config.gateway, flags.url);
  const url = `${base}${hooksPrefix(config.hooks.path)}/${hookPath}`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    io.err(`${command}: ${unreachableGateway(base, cause, flags.url)}`);
    return 1;
  }
  const text = await response.text();
  io.err(`POST ${url}${found.name ? ` (${found.name})` : ''}${auth ? `, signed as ${auth.type}` : ''}`);
  io.out(`${response.status} ${text}`);
  if (response.headers.get('idempotent-replayed') === 'true') io.err('replayed: the fixture\'s delivery id was seen before, so the first answer came back (Idempotent-Replayed: true)');
  const runId = /"runId":"([^"]+)"/.exec(text)?.[1];
  if (runId) io.out(`run: ${base}/console#/runs/${encodeURIComponent(runId)}`);
  return response.ok ? 0 : 1;
}

/** the preset a mapping comes from, by its origin (`hooks.presets[1] (github, mapping 3)`) */
const presetOf = (origin: string | undefined) => /\((\S+), mapping \d+\)$/.exec(origin ?? '')?.[1];

const lowerKeys = (headers: Record<string, string> | undefined) => Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));

/**
 * A fixture file (a case `{payload, headers}`, a list of cases (the first), or a bare payload), or
 * the name of a case in the fixtures of the path's mappings: a mapping file's `*.test.json`, a
 * preset's `plugins/<id>/fixtures/<id>.json`. A name like `issues.opened` matches a case whose
 * headers carry `issues` (the event) and whose payload's action or type is `opened`; else a case
 * whose name contains it.
 */
function findFixture(spec: string, origins: string[]): FixtureCase | string {
  if (fs.existsSync(spec)) {
    let value: unknown;
    try {
      value = parseExactJson(fs.readFileSync(spec, 'utf8'));
    } catch (error) {
      return `cannot read the fixture ${spec}: ${(error as Error).message}`;
    }
    const first = Array.isArray(value) ? value[0] : value;
    const isCase = first && typeof first === 'object' && 'payload' in first;
    return isCase ? (first as FixtureCase) : { payload: first };
  }
  const files = new Set<string>();
  for (const origin of origins) {
    const preset = presetOf(origin);
    if (preset) files.add(path.join(PACKAGE_ROOT, 'plugins', preset, 'fixtures', `${preset}.json`));
    const mappingFile = origin.replace(/\[\d+\]$/, '');
    const sibling = mappingFile.replace(/\.(ya?ml|json5?)$/i, '.test.json');
    if (sibling !== mappingFile) files.add(sibling);
  }
  const cases = [...files].filter((f) => fs.existsSync(f)).flatMap((f) => (parseExactJson(fs.readFileSync(f, 'utf8')) as FixtureCase[]) ?? []);
  if (!cases.length) return `"${spec}" is neither a file nor a fixture of this path's mappings (none has fixtures)`;
  const [event, action] = spec.split('.', 2);
  const byEvent = cases.find((c) => {
    const values = Object.values(c.headers ?? {}).map((v) => String(v).toLowerCase());
    const payload = (c.payload ?? {}) as { action?: unknown; type?: unknown; event?: unknown };
    const eventMatches = values.includes(event!.toLowerCase()) || payload.type === event || payload.event === event;
    return eventMatches && (action === undefined || payload.action === action || payload.type === spec || payload.event === spec);
  });
  const byName = byEvent ?? cases.find((c) => c.payload !== undefined && (c.name ?? '').toLowerCase().includes(spec.toLowerCase()));
  if (byName) return byName;
  return `no fixture "${spec}" for this path; its fixtures: ${cases.map((c) => c.name ?? '(unnamed)').join(' | ')}`;
}
