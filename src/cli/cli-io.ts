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
