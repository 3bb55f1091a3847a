import fs from 'node:fs';
import type { Logger } from 'pino';

/**
 * Calls `onChange` once a folder has been quiet for `settleMs` after a change: an editor's save
 * (write to a temporary file, rename) or a `git pull` touching ten files is one reload, not ten.
 * A folder that does not exist is not watched (nothing to reload from).
 */
export class FolderWatch {
  private watcher?: fs.FSWatcher;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly dir: string,
    private readonly onChange: () => void,
    private readonly logger: Logger,
    private readonly settleMs = 300,
  ) {}

  start(): void {
    if (this.watcher || !fs.existsSync(this.dir)) return;
    try {
      this.watcher = fs.watch(this.dir, () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(this.onChange, this.settleMs);
        this.timer.unref();
      });
      this.watcher.on('error', (err) => this.logger.warn({ err, dir: this.dir }, 'watching the mappings folder failed; SIGHUP or `herald reload` still reload'));
    } catch (err) {
      this.logger.warn({ err, dir: this.dir }, 'cannot watch the mappings folder; SIGHUP or `herald reload` still reload');
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
