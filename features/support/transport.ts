/** The transport of a run's role clients: HTTP (the default) or gRPC (TRANSPORT, --transport on the command). */
export const TRANSPORTS = ["http", "grpc"] as const;
export type Transport = (typeof TRANSPORTS)[number];

export function transport(env = process.env): Transport {
  const t = env.TRANSPORT ?? "http";
  if (!(TRANSPORTS as readonly string[]).includes(t))
    throw new Error(`TRANSPORT=${t}: the suite speaks ${TRANSPORTS.join(" or ")}`);
  return t as Transport;
}
