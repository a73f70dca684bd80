import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { MevCommitError } from "../../lib/errors.ts";

export class AppendLogClosedError extends MevCommitError {
  constructor(readonly path: string) {
    super(`append log ${path} is closed`, { context: { path } });
  }
}

/**
 * A file of lines, each appended with one write(2): durable from the moment `append` returns in the same sense as a
 * committed SQLite transaction with synchronous=NORMAL (in the operating system's page cache: a SIGKILL of the
 * process loses nothing, a crash of the operating system may lose the last lines). Its owner replays the lines at
 * start and clears the file once every line is also somewhere else.
 */
export class AppendLog {
  private fd: number | undefined;
  private bytes: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, "a");
    this.bytes = fstatSync(this.fd).size;
  }

  /** The complete lines of the file. A last line without its newline is a write a crash cut short: never acknowledged. */
  lines(): string[] {
    const parts = readFileSync(this.path, "utf8").split("\n");
    parts.pop();
    return parts.filter((l) => l.length > 0);
  }

  /** Appends one line (it must hold no newline); throws if the file cannot take it (a full disk). */
  append(line: string): void {
    if (this.fd === undefined) throw new AppendLogClosedError(this.path);
    const buf = Buffer.from(`${line}\n`);
    for (let off = 0; off < buf.length; ) off += writeSync(this.fd, buf, off);
    this.bytes += buf.length;
  }

  get size(): number {
    return this.bytes;
  }

  /** Empties the file (appends go on at its new end). */
  clear(): void {
    if (this.fd === undefined) throw new AppendLogClosedError(this.path);
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
