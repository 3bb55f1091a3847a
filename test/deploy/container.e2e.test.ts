import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/start-herald.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Instruction {
  op: string;
  args: string;
}
/** the Dockerfile as instructions per stage (continuation lines joined, comments dropped) */
function dockerfileStages(text: string): { name: string; from: string; steps: Instruction[] }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: { name: string; from: string; steps: Instruction[] }[] = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op!.toUpperCase() === 'FROM') {
      const [image, , name] = args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), from: image!, steps: [] });
    } else stages.at(-1)!.steps.push({ op: op!.toUpperCase(), args });
  }
  return stages;
}

const env = (stage: { steps: Instruction[] }) =>
  Object.fromEntries(stage.steps.filter((s) => s.op === 'ENV').flatMap((s) => [...s.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
const json = (args: string) => JSON.parse(args.replace(/^\[/, '[')) as string[];

let child: ReturnType<typeof spawn> | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
});

describe('Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const runtime = stages.at(-1)!;

  it('is multi-stage, runs as a non-root user, keeps data in a volume and checks /healthz', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]!.steps.some((s) => s.op === 'RUN' && /npm ci --omit=dev/.test(s.args))).toBe(true);
    const user = runtime.steps.filter((s) => s.op === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(runtime.steps.find((s) => s.op === 'VOLUME')?.args).toContain('/data');
    expect(runtime.steps.find((s) => s.op === 'HEALTHCHECK')?.args).toMatch(/\/healthz/);
    // no secret is baked into the image: the config reads them from the environment
    expect(Object.keys(env(runtime)).filter((k) => /TOKEN|KEY|SECRET|PASSWORD/.test(k))).toEqual([]);
  });

  it('its runtime stage, run as a script here, serves from only what it copies, configured by env, and passes its HEALTHCHECK', { timeout: 90_000 }, async () => {
    // the image's file system in a temporary folder: every COPY of the runtime stage, the deps stage's
    // node_modules stood in for by this checkout's (Docker itself is not available on this machine)
    const root = tempDir('herald-image-');
    const workdir = runtime.steps.find((s) => s.op === 'WORKDIR')!.args;
    const at = (p: string) => path.join(root, p.startsWith('/') ? p : path.join(workdir, p));
    for (const step of runtime.steps) {
      if (step.op === 'COPY') {
        const parts = step.args.split(/\s+/);
        if (parts[0]!.startsWith('--from=')) {
          // an earlier stage's node_modules or dist/: this checkout's (dist/ only once built here)
          const built = path.join(ROOT, path.basename(parts[1]!));
          fs.mkdirSync(path.dirname(at(parts[2]!)), { recursive: true });
          if (fs.existsSync(built)) fs.symlinkSync(built, at(parts[2]!));
        } else {
          const target = parts[1]!.endsWith('/') ? path.join(at(parts[1]!), path.basename(parts[0]!)) : at(parts[1]!);
          // modification times kept, as COPY does: bin/herald.mjs compares them with dist/'s build
          fs.cpSync(path.join(ROOT, parts[0]!), target, { recursive: true, preserveTimestamps: true });
        }
      }
      if (step.op === 'RUN') {
        const dirs = /mkdir -p (\S+)/.exec(step.args)?.[1];
        expect(dirs, `RUN ${step.args}: only mkdir/chown run in the runtime stage`).toBeDefined();
        fs.mkdirSync(at(dirs!), { recursive: true });
      }
    }
    const imageEnv = Object.fromEntries(Object.entries(env(runtime)).map(([k, v]) => [k, v.startsWith('/') ? at(v) : v]));
    const config = imageEnv.HERALD_CONFIG!;
    // /app inside the config is this image's /app
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replaceAll("'/app/", `'${at('/app')}/`));
    const entry = json(runtime.steps.find((s) => s.op === 'ENTRYPOINT')!.args);
    const cmd = json(runtime.steps.find((s) => s.op === 'CMD')!.args);
    child = spawn(process.execPath, [...entry.slice(1), ...cmd, '--port', '0'], {
      cwd: at(workdir),
      env: {
        PATH: process.env.PATH,
        ...imageEnv,
        HERALD_HOOK_TOKEN: 'hook-token-for-the-image-test',
        HERALD_GATEWAY_TOKEN: 'gateway-token-for-the-image-test',
        HERALD_API_KEY: 'api-key-for-the-image-test-0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c) => (err += String(c)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /herald listening on (http:\/\/\S+)/.exec(err);
        if (match) {
          clearInterval(timer);
          resolve(match[1]!.replace('0.0.0.0', '127.0.0.1'));
        } else if (child!.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(err));
        }
      }, 50);
    });
    // the HEALTHCHECK command as written, on the port this run got
    const check = json(runtime.steps.find((s) => s.op === 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, ''));
    const probe = spawnSync(process.execPath, check.slice(1).map((a) => a.replace('http://127.0.0.1:8787', url)), { encoding: 'utf8' });
    expect(probe.status, probe.stderr).toBe(0);
    // the data lands in the volume
    expect(fs.existsSync(path.join(root, 'data', 'herald.db'))).toBe(true);
  });

  it('the production dependencies are enough: every package the app imports is a dependency (npm ci --omit=dev)', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const production = new Set(Object.keys(pkg.dependencies));
    // what a dependency brings along (tsx brings esbuild) is installed too
    for (const name of [...production]) {
      const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      for (const dep of Object.keys(manifest.dependencies ?? {})) production.add(dep);
    }
    const files = (dir: string): string[] =>
      fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.(ts|mjs|js)$/.test(e.name) ? [path.join(dir, e.name)] : []));
    const missing = new Set<string>();
    for (const file of [...files('src'), ...files('plugins'), ...files('bin')]) {
      for (const m of read(file).matchAll(/^(?!import type)\s*(?:import|export)[^'"]*?from\s+'([^'.][^']*)'|import\('([^'.][^']*)'\)/gm)) {
        const spec = (m[1] ?? m[2])!;
        if (spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!production.has(name)) missing.add(`${name} (${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });
});

describe('compose.yaml', () => {
  const compose = YAML.parse(read('compose.yaml')) as { services: Record<string, any>; volumes: Record<string, unknown> };

  it('runs herald with PostgreSQL: the database healthy first, secrets required from .env, data in volumes', () => {
    const { herald, postgres } = compose.services;
    expect(herald.build).toBe('.');
    expect(herald.depends_on.postgres.condition).toBe('service_healthy');
    expect(postgres.image).toMatch(/^postgres:/);
    expect(postgres.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    expect(new URL(herald.environment.DATABASE_URL.replace(/\$\{[^}]+\}/g, 'x')).hostname).toBe('postgres');
    for (const secret of ['HERALD_HOOK_TOKEN', 'HERALD_GATEWAY_TOKEN', 'HERALD_API_KEY']) expect(herald.environment[secret]).toMatch(/^\$\{\w+:\?/);
    for (const mount of [...herald.volumes, ...postgres.volumes]) expect(Object.keys(compose.volumes)).toContain(mount.split(':')[0]);
    expect(herald.ports.every((p: string) => p.startsWith('127.0.0.1:'))).toBe(true);
  });

  it("herald's config there exists in the image and every variable it reads is set by the compose file", () => {
    const { herald } = compose.services;
    const config = herald.environment.HERALD_CONFIG as string;
    expect(config.startsWith('/app/deploy/')).toBe(true);
    const text = read(config.replace('/app/', ''));
    const variables = [...text.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(0);
    for (const name of variables) expect(Object.keys(herald.environment), name).toContain(name);
    expect(text).toMatch(/storage: \{ postgres: \{ url: '\$\{DATABASE_URL\}' \} \}/);
  });
});

describe('systemd unit', () => {
  it('starts serve as its own user, reloads with SIGHUP and stops with SIGTERM', () => {
    const unit = read('deploy/herald.service');
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1];
    expect(value('ExecStart')).toMatch(/bin\/herald\.mjs serve$/);
    expect(value('ExecReload')).toBe('/bin/kill -HUP $MAINPID');
    expect(value('KillSignal')).toBe('SIGTERM');
    expect(value('User')).toBe('herald');
    expect(unit).toMatch(/^Environment=HERALD_CONFIG=\S+$/m);
  });

  it('passes systemd-analyze verify where systemd is installed', () => {
    const verify = spawnSync('systemd-analyze', ['verify', path.join(ROOT, 'deploy/herald.service')], { encoding: 'utf8' });
    if (verify.error) return; // no systemd on this machine: the checks above still hold
    expect(verify.status, verify.stderr).toBe(0);
  });
});
