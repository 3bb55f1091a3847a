/** Where a command writes: stdout for results, stderr for faults and progress. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stdout: process.stdout,
  stderr: process.stderr,
};

/**
 * `herald presets list | head`: a reader that closes the pipe early ends the command quietly, as
 * Unix tools do, instead of crashing on an unhandled EPIPE (not for `serve`, whose stdout is its log).
 */
export function endQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
