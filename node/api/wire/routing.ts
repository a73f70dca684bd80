import { NotFoundError, UnimplementedError } from "../../protocol/grpcCodes.ts";

/**
 * grpc-gateway's routing errors: an unknown path is 404 `{"code":5,"message":"Not Found"}`; a known path with
 * the wrong method is 501 `{"code":12,"message":"Method Not Allowed"}`. Known paths are the route patterns the
 * app registered (`:param` segments match any one segment).
 */
export function routingError(pathname: string, knownPatterns: Iterable<string>): NotFoundError | UnimplementedError {
  for (const pattern of knownPatterns)
    if (matches(pattern, pathname)) return new UnimplementedError("Method Not Allowed");
  return new NotFoundError("Not Found");
}

function matches(pattern: string, pathname: string): boolean {
  const p = pattern.split("/");
  const s = pathname.replace(/\/+$/, "").split("/");
  if (p.length !== s.length) return false;
  return p.every((seg, i) => (seg.startsWith(":") ? (s[i] ?? "") !== "" : seg === s[i]));
}
