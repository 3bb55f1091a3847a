import os from 'node:os';
import path from 'node:path';

/**
 * `~` or `~/...` at the start of a configured path is the home folder, as a shell would read it
 * (OpenClaw's examples write `~/.openclaw/hooks/transforms`). `~user` forms are left alone.
 */
export function expandHome(p: string, home = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith(`~${path.sep}`)) return path.join(home, p.slice(2));
  return p;
}
