import { parseUnits } from "viem";
import { MevCommitError } from "../../../lib/errors.ts";

/** A scenario file is wrong; `field` names the offending field as a path (`providers[1].policy.percent`). */
export class ScenarioError extends MevCommitError {
  constructor(
    readonly file: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${file}: ${field ? `${field}: ` : ""}${problem}`, { context: { file, field } });
  }
}

const describe = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "a list"
      : typeof v === "object"
        ? "an object"
        : `${typeof v} ${JSON.stringify(v)}`;

/**
 * Reads one object of a scenario file field by field, with the path of each field for error messages. `done()`
 * refuses any key that was not read, so a misspelt field is an error that names it and the fields allowed there.
 */
export class Fields {
  private readonly read = new Set<string>();

  constructor(
    readonly file: string,
    readonly path: string,
    private readonly value: Record<string, unknown>,
  ) {}

  static of(file: string, path: string, v: unknown): Fields {
    if (v === null || typeof v !== "object" || Array.isArray(v))
      throw new ScenarioError(file, path, `must be an object, got ${describe(v)}`);
    return new Fields(file, path, v as Record<string, unknown>);
  }

  at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  fail(key: string, problem: string): never {
    throw new ScenarioError(this.file, this.at(key), problem);
  }

  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  raw(key: string): unknown {
    this.read.add(key);
    return this.value[key];
  }

  private required(key: string): unknown {
    const v = this.raw(key);
    if (v === undefined || v === null) this.fail(key, "is required");
    return v;
  }

  string(key: string, def?: string): string {
    const v = def === undefined ? this.required(key) : (this.raw(key) ?? def);
    if (typeof v !== "string" || (v === "" && def !== ""))
      this.fail(key, `must be a non-empty string, got ${describe(v)}`);
    return v;
  }

  number(key: string, o: { def?: number; min?: number; max?: number; integer?: boolean } = {}): number {
    const v = o.def === undefined ? this.required(key) : (this.raw(key) ?? o.def);
    if (typeof v !== "number" || !Number.isFinite(v)) this.fail(key, `must be a number, got ${describe(v)}`);
    if (o.integer && !Number.isInteger(v)) this.fail(key, `must be a whole number, got ${v}`);
    if (o.min !== undefined && v < o.min) this.fail(key, `must be at least ${o.min}, got ${v}`);
    if (o.max !== undefined && v > o.max) this.fail(key, `must be at most ${o.max}, got ${v}`);
    return v;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], def?: T): T {
    const v = def === undefined ? this.required(key) : (this.raw(key) ?? def);
    if (!allowed.includes(v as T)) this.fail(key, `must be one of ${allowed.join(", ")}, got ${describe(v)}`);
    return v as T;
  }

  /** An amount: "0.01 ETH", "5 gwei", "12345 wei", or a whole number of wei (number or digit string). */
  wei(key: string, def?: bigint): bigint {
    const v = def === undefined ? this.required(key) : this.raw(key);
    if (v === undefined || v === null) return def!;
    return parseAmount(v, (problem) => this.fail(key, problem));
  }

  object(key: string): Fields {
    return Fields.of(this.file, this.at(key), this.required(key));
  }

  optionalObject(key: string): Fields | undefined {
    return this.optional(key, (k) => this.object(k));
  }

  /** `read(key)` when the key has a value, else undefined; a key present but null counts as read all the same. */
  optional<T>(key: string, read: (key: string) => T): T | undefined {
    if (this.has(key)) return read(key);
    this.raw(key);
    return undefined;
  }

  list(key: string, o: { min?: number; def?: unknown[] } = {}): { path: string; value: unknown }[] {
    const v = o.def === undefined ? this.required(key) : (this.raw(key) ?? o.def);
    if (!Array.isArray(v)) this.fail(key, `must be a list, got ${describe(v)}`);
    if (o.min !== undefined && v.length < o.min)
      this.fail(key, `needs at least ${o.min} item${o.min === 1 ? "" : "s"}`);
    return v.map((value, i) => ({ path: `${this.at(key)}[${i}]`, value }));
  }

  /** Refuses keys nobody read (misspelt or unknown fields). */
  done(): void {
    for (const k of Object.keys(this.value)) {
      if (!this.read.has(k)) {
        const allowed = [...this.read].join(", ");
        throw new ScenarioError(this.file, this.at(k), `unknown field${allowed ? ` (allowed here: ${allowed})` : ""}`);
      }
    }
  }
}

export function parseAmount(v: unknown, fail: (problem: string) => never): bigint {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) fail(`an amount as a bare number is whole wei; write "${v} ETH" for ether`);
    return BigInt(v);
  }
  if (typeof v !== "string") fail(`must be an amount such as "0.01 ETH", "5 gwei" or "1000 wei", got ${describe(v)}`);
  const m = /^\s*(\d+(?:\.\d+)?)\s*(eth|gwei|wei)?\s*$/i.exec(v);
  if (!m) fail(`must be an amount such as "0.01 ETH", "5 gwei" or "1000 wei", got "${v}"`);
  const unit = (m[2] ?? "wei").toLowerCase();
  const decimals = unit === "eth" ? 18 : unit === "gwei" ? 9 : 0;
  const [, frac = ""] = m[1]!.split(".");
  if (frac.length > decimals) fail(`"${v}" has more decimals than ${unit} allows`);
  return parseUnits(m[1]!, decimals);
}
