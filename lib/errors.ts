/**
 * The base class of every error the project throws: the node, the conformance suite, the scenarios and the scripts.
 * It lives outside node/ so that the conformance suite, which must not import the node it judges, shares it too;
 * it is pure (no I/O, no protocol logic) and imports nothing.
 */

export interface MevCommitErrorOptions {
  /** The error this one was thrown for. */
  cause?: unknown;
  /** The values that explain the error (a port, a file, a field), for logs and tests. */
  context?: Record<string, unknown>;
}

/** A class of error, abstract or not, whatever its constructor takes. */
type ErrorClass<T> = abstract new (...args: never[]) => T;

/** How deep `walk` follows a chain of causes before it gives up (a cause chain may loop). */
const MAX_CAUSE_DEPTH = 64;

/**
 * An error with its name taken from its class, the values that explain it (`context`) and an optional cause.
 * The message is the error's whole text, exactly as given: messages that reach clients are upstream's.
 */
export class MevCommitError extends Error {
  /** The values that explain the error; empty when the message says it all. */
  readonly context: Readonly<Record<string, unknown>>;

  constructor(message: string, options: MevCommitErrorOptions = {}) {
    // A cause is set only when given, as Error does: `"cause" in e` stays false otherwise.
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // The most derived class's name, so a subclass need not repeat it (nothing here is minified).
    this.name = new.target.name;
    this.context = options.context ?? {};
  }

  /** This error or the first of its causes, nearest first, that is an instance of `cls`; undefined when none is. */
  walk<T>(cls: ErrorClass<T>): T | undefined {
    return findCause(this, cls);
  }
}

/** `e` or the first of its causes, nearest first, that is an instance of `cls`: `walk` for a caught value of any type. */
export function findCause<T>(e: unknown, cls: ErrorClass<T>): T | undefined {
  let x = e;
  for (let depth = 0; x !== undefined && x !== null && depth < MAX_CAUSE_DEPTH; depth++) {
    if (x instanceof cls) return x;
    x = typeof x === "object" ? (x as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}
