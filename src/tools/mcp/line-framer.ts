/** a line past the limit: what was read of it is dropped, and nothing after it is read */
export class OversizedLineError extends Error {}

/**
 * Newline-delimited messages (MCP's stdio framing) cut from a byte stream, each refused as soon as
 * it passes `maxBytes`. Each chunk is scanned once and the pieces of a line are joined once, when
 * its newline comes: the SDK's ReadBuffer joins its whole buffer again at every chunk, so a 50 MB
 * answer cost seconds of CPU before its size was even known.
 */
export class LineFramer {
  private pieces: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** the complete lines `chunk` ends (without their `\n` or `\r\n`); throws OversizedLineError past the limit */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let rest = chunk;
    for (;;) {
      const end = rest.indexOf(10);
      const upTo = end === -1 ? rest.length : end;
      if (this.size + upTo > this.maxBytes) {
        this.clear();
        throw new OversizedLineError(`a message is larger than ${this.maxBytes} bytes`);
      }
      if (end === -1) {
        if (rest.length) {
          this.pieces.push(rest);
          this.size += rest.length;
        }
        return lines;
      }
      this.pieces.push(rest.subarray(0, end));
      const line = Buffer.concat(this.pieces, this.size + end).toString('utf8');
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      this.clear();
      rest = rest.subarray(end + 1);
    }
  }

  clear(): void {
    this.pieces = [];
    this.size = 0;
  }
}
