import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { Glob } from "bun";
import { InvalidArgumentError, RpcError } from "../node/protocol/grpcCodes.ts";
import { DeadlineError } from "../node/util/deadline.ts";
import { findCause, MevCommitError } from "./errors.ts";

class OuterError extends MevCommitError {}
class InnerError extends MevCommitError {
  constructor(readonly port: number) {
    super(`port ${port} is taken`, { context: { port } });
  }
}
class InnermostError extends InnerError {}

describe("MevCommitError", () => {
  test("the name is the class's, the message is kept as given", () => {
    const e = new InnermostError(8080);
    expect(e.name).toBe("InnermostError");
    expect(e.message).toBe("port 8080 is taken");
    expect(String(e)).toBe("InnermostError: port 8080 is taken");
    expect(e).toBeInstanceOf(InnerError);
    expect(e).toBeInstanceOf(MevCommitError);
    expect(e).toBeInstanceOf(Error);
    expect(e.stack).toContain("InnermostError: port 8080 is taken");
  });

  test("context holds the values given, and is empty when none are", () => {
    expect(new InnerError(30303).context).toEqual({ port: 30303 });
    expect(new OuterError("plain").context).toEqual({});
  });

  test("a cause is kept when given and absent otherwise, as with Error", () => {
    const inner = new InnerError(1);
    const outer = new OuterError("wrapped", { cause: inner });
    expect(outer.cause).toBe(inner);
    expect("cause" in new OuterError("alone")).toBe(false);
  });

  test("walk finds this error or the nearest cause of a class, through errors of any kind", () => {
    const innermost = new InnermostError(2);
    const plain = new Error("plain", { cause: innermost });
    const outer = new OuterError("outer", { cause: plain });
    expect(outer.walk(OuterError)).toBe(outer);
    expect(outer.walk(InnerError)).toBe(innermost);
    expect(outer.walk(InnermostError)?.port).toBe(2);
    expect(outer.walk(TypeError)).toBeUndefined();
    expect(outer.walk(Error)).toBe(outer);
  });

  test("findCause reads a caught value of any type and stops on a loop of causes", () => {
    expect(findCause("not an error", Error)).toBeUndefined();
    expect(findCause(undefined, Error)).toBeUndefined();
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(findCause(b, InnerError)).toBeUndefined();
    expect(findCause({ cause: new InnerError(3) }, InnerError)?.port).toBe(3);
  });

  test("the project's errors carry it: RpcError's context, DeadlineError's values", () => {
    const rpc = new InvalidArgumentError("page must be a non-negative integer, got -1", { context: { page: -1 } });
    expect(rpc).toBeInstanceOf(MevCommitError);
    expect(rpc).toBeInstanceOf(RpcError);
    expect(rpc.name).toBe("InvalidArgumentError");
    expect(rpc.context).toEqual({ page: -1 });
    expect(rpc.toStatusBody()).toEqual({
      code: 3,
      message: "page must be a non-negative integer, got -1",
      details: [],
    });
    const deadline = new DeadlineError("the mesh", 500);
    expect(deadline.name).toBe("DeadlineError");
    expect(deadline.context).toEqual({ what: "the mesh", ms: 500 });
  });
});

describe("the project's error classes", () => {
  test("none extends Error (or another built-in error) directly: each extends MevCommitError", async () => {
    const root = resolve(import.meta.dir, "..");
    const direct: string[] = [];
    for (const folder of ["node", "features", "scenarios", "scripts", "loadtest"]) {
      for await (const path of new Glob(`${folder}/**/*.{ts,mjs,js}`).scan({ cwd: root })) {
        if (path.includes("/gen/") || path.includes("node_modules")) continue;
        const text = await Bun.file(resolve(root, path)).text();
        for (const m of text.matchAll(/class (\w+) extends (Error|TypeError|RangeError)\b/g))
          direct.push(`${path}: ${m[1]}`);
      }
    }
    expect(direct).toEqual([]);
  });
});
