/** A small leveled logger: one line per event, `time level [scope] message key=value…`. */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: LogLevel = (process.env.LOG_LEVEL as LogLevel) in ORDER ? (process.env.LOG_LEVEL as LogLevel) : "info";
let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** Redirects log lines (tests keep the console quiet by sending them to a file or a buffer). */
export function setLogSink(fn: (line: string) => void): void {
  sink = fn;
}

// 32-byte hex values next to a key-ish name are never printed: private keys must not reach logs.
const SECRET_KEY = /(private|secret|mnemonic|password)/i;

function fmt(v: unknown): string {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === "string") return /\s/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export function logger(scope: string): Logger {
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[threshold]) return;
    let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${scope}] ${msg}`;
    if (fields)
      for (const [k, v] of Object.entries(fields)) {
        if (v === undefined) continue;
        line += ` ${k}=${SECRET_KEY.test(k) ? "[redacted]" : fmt(v)}`;
      }
    sink(line);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (s) => logger(`${scope}:${s}`),
  };
}
