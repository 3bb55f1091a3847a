import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { PluginService } from '../../../src/plugin-sdk/sdk.js';
import type { GmailConfig } from '../config.js';

const run = promisify(execFile);

/** `tailscale` on PATH, as a shell would find it; undefined when it is not installed */
export function findTailscale(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'tailscale');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The arguments that publish the push endpoint: `tailscale serve|funnel --bg --set-path <path>
 * <target>` (Tailscale's CLI, https://tailscale.com/kb/1242/tailscale-serve). Tailscale strips the
 * mount path before proxying, so the target is the local endpoint with its own path.
 */
export function tailscaleArgs(gmail: GmailConfig): string[] {
  const { tailscale, serve } = gmail;
  const target = tailscale.target ?? `http://127.0.0.1:${serve.port}${serve.path === '/' ? '' : serve.path}`;
  return [tailscale.mode, '--bg', `--set-path=${tailscale.path ?? serve.path}`, /^\d+$/.test(target) ? `http://127.0.0.1:${target}` : target];
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * `hooks.gmail.tailscale` with mode serve or funnel: runs the tailscale binary when the watcher
 * starts, so Pub/Sub can reach the push endpoint; without the binary, the start stops with the
 * exact command to run by hand (or mode off, once the endpoint is exposed another way).
 */
export function tailscaleExposure(gmail: GmailConfig, logger: Logger, env: NodeJS.ProcessEnv = process.env): PluginService | undefined {
  if (gmail.tailscale.mode === 'off') return undefined;
  const args = tailscaleArgs(gmail);
  const command = `tailscale ${args.map(quote).join(' ')}`;
  let binary: string | undefined;
  return {
    name: `tailscale ${gmail.tailscale.mode}`,
    async start() {
      binary = findTailscale(env);
      if (!binary) {
        throw new Error(
          `hooks.gmail.tailscale.mode is "${gmail.tailscale.mode}" but the tailscale binary is not installed (not on PATH). Install Tailscale (https://tailscale.com/download) and run: ${command}; or expose the push endpoint another way and set hooks.gmail.tailscale.mode: "off"`,
        );
      }
      try {
        await run(binary, args, { env, timeout: 30_000 });
      } catch (error) {
        const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
        throw new Error(`\`${command}\` failed${stderr ? `: ${stderr}` : ''}; fix it (tailscale up, enable ${gmail.tailscale.mode} in the tailnet policy) or set hooks.gmail.tailscale.mode: "off"`);
      }
      logger.info({ command }, `gmail push endpoint exposed through tailscale ${gmail.tailscale.mode}`);
    },
    async stop() {
      if (!binary) return;
      // best effort: a tailnet that already dropped the mapping has nothing to turn off
      await run(binary, [gmail.tailscale.mode, `--set-path=${gmail.tailscale.path ?? gmail.serve.path}`, 'off'], { env, timeout: 10_000 }).catch((err: Error) =>
        logger.warn({ err: err.message }, 'tailscale mapping not turned off'),
      );
    },
  };
}
