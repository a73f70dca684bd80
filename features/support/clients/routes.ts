/**
 * The gateway's unary routes (interface.md §4, api-behaviour §1) as the gRPC calls they stand for, so that a step
 * written as an HTTP request ("I send POST /v1/provider/stake/5 to provider 1") runs over gRPC too: path parameters,
 * then query parameters (either spelling; unknown ones ignored, as the gateway does) and the JSON body become the
 * request message. A request the gateway itself would refuse before the call (an unknown route, a value that does
 * not parse, a repeated singular parameter, a body that is not JSON) has no gRPC form: `grpcCallOf` answers
 * undefined and the step is HTTP-only.
 */
import { type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { MevCommitError } from "../../../lib/errors.ts";
import type { ProtocolRules } from "../protocolRules.ts";
import type { Unary } from "./api.ts";
import { messageOf, NotAMessageError, service, unary } from "./grpc.ts";
import type { ScenarioScope } from "./scope.ts";

type Role = "bidder" | "provider";

/** A route whose RPC the descriptor of the target's protocol version (grpc.ts) does not have. */
export class UnknownRpcError extends MevCommitError {}

const ROUTES: { method: string; path: RegExp; role: Role; rpc: string; body?: boolean }[] = [
  { method: "POST", path: /^\/v1\/bidder\/deposit\/(?<amount>[^/]+)$/, role: "bidder", rpc: "Deposit" },
  { method: "POST", path: /^\/v1\/bidder\/auto_deposit\/(?<amount>[^/]+)$/, role: "bidder", rpc: "AutoDeposit" },
  { method: "POST", path: /^\/v1\/bidder\/cancel_auto_deposit$/, role: "bidder", rpc: "CancelAutoDeposit" },
  { method: "GET", path: /^\/v1\/bidder\/auto_deposit_status$/, role: "bidder", rpc: "AutoDepositStatus" },
  {
    method: "POST",
    path: /^\/v1\/bidder\/withdraw_from_windows$/,
    role: "bidder",
    rpc: "WithdrawFromWindows",
    body: true,
  },
  { method: "GET", path: /^\/v1\/bidder\/get_deposit$/, role: "bidder", rpc: "GetDeposit" },
  // Protocol v1.1's Withdraw takes no body; v1.2's takes `*` (its request has no field a v1.1 body could name).
  { method: "POST", path: /^\/v1\/bidder\/withdraw$/, role: "bidder", rpc: "Withdraw", body: true },
  // Protocol v1.2 (upstream v1.2.5, upstream-head-delta §1.1).
  { method: "POST", path: /^\/v1\/bidder\/deposit_evenly$/, role: "bidder", rpc: "DepositEvenly" },
  { method: "POST", path: /^\/v1\/bidder\/enable_deposit_manager$/, role: "bidder", rpc: "EnableDepositManager" },
  { method: "POST", path: /^\/v1\/bidder\/disable_deposit_manager$/, role: "bidder", rpc: "DisableDepositManager" },
  {
    method: "POST",
    path: /^\/v1\/bidder\/set_target_deposits$/,
    role: "bidder",
    rpc: "SetTargetDeposits",
    body: true,
  },
  { method: "GET", path: /^\/v1\/bidder\/deposit_manager_status$/, role: "bidder", rpc: "DepositManagerStatus" },
  {
    method: "POST",
    path: /^\/v1\/bidder\/request_withdrawals$/,
    role: "bidder",
    rpc: "RequestWithdrawals",
    body: true,
  },
  { method: "GET", path: /^\/v1\/bidder\/get_valid_providers$/, role: "bidder", rpc: "GetValidProviders" },
  { method: "GET", path: /^\/v1\/bidder\/get_all_deposits$/, role: "bidder", rpc: "GetAllDeposits" },
  { method: "GET", path: /^\/v1\/bidder\/get_bid_info$/, role: "bidder", rpc: "GetBidInfo" },
  { method: "POST", path: /^\/v1\/bidder\/claim_slashed_funds$/, role: "bidder", rpc: "ClaimSlashedFunds" },
  { method: "POST", path: /^\/v1\/provider\/stake\/(?<amount>[^/]+)$/, role: "provider", rpc: "Stake" },
  { method: "GET", path: /^\/v1\/provider\/get_stake$/, role: "provider", rpc: "GetStake" },
  { method: "GET", path: /^\/v1\/provider\/get_min_stake$/, role: "provider", rpc: "GetMinStake" },
  { method: "POST", path: /^\/v1\/provider\/withdraw_stake$/, role: "provider", rpc: "WithdrawStake" },
  { method: "POST", path: /^\/v1\/provider\/unstake$/, role: "provider", rpc: "Unstake" },
  { method: "GET", path: /^\/v1\/provider\/get_provider_reward$/, role: "provider", rpc: "GetProviderReward" },
  {
    method: "POST",
    path: /^\/v1\/provider\/withdraw_provider_reward$/,
    role: "provider",
    rpc: "WithdrawProviderReward",
  },
  { method: "GET", path: /^\/v1\/provider\/get_commitment_info$/, role: "provider", rpc: "GetCommitmentInfo" },
];

const servicesOf = (rules: ProtocolRules) => ({
  bidder: service("bidderapi.v1.Bidder", rules),
  provider: service("providerapi.v1.Provider", rules),
});

/** The request message (JSON mapping) of a query string, or undefined when the gateway would refuse the query. */
function queryFields(input: DescMessage, query: URLSearchParams): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const key of new Set(query.keys())) {
    const field = input.fields.find((f) => f.name === key || f.jsonName === key);
    if (!field) continue;
    const values = query.getAll(key);
    if (field.fieldKind === "list") out[field.jsonName] = [...((out[field.jsonName] as string[]) ?? []), ...values];
    else if (values.length > 1 || field.jsonName in out) return undefined;
    else if (field.fieldKind === "scalar" && field.scalar === ScalarType.BOOL) {
      if (values[0] !== "true" && values[0] !== "false") return undefined;
      out[field.jsonName] = values[0] === "true";
    } else out[field.jsonName] = values[0];
  }
  return out;
}

export interface RouteCall {
  role: Role;
  rpc: string;
  request: unknown;
}

/** The gRPC call a gateway request stands for on a node of the protocol version, or undefined when it has none. */
export function grpcCallOf(
  method: string,
  pathAndQuery: string,
  body: string | undefined,
  rules: ProtocolRules,
): RouteCall | undefined {
  const url = new URL(pathAndQuery, "http://gateway");
  const route = ROUTES.find((r) => r.method === method && r.path.test(url.pathname));
  if (!route) return undefined;
  const svc = servicesOf(rules)[route.role];
  const rpc = svc.methods.find((m) => m.name === route.rpc);
  if (!rpc) throw new UnknownRpcError(`protocol ${rules.version}'s ${svc.typeName} has no ${route.rpc}`);
  const input = rpc.input;
  const fromQuery = queryFields(input, url.searchParams);
  if (!fromQuery) return undefined;
  let fromBody: Record<string, unknown> = {};
  if (route.body && body !== undefined && body.trim() !== "") {
    try {
      fromBody = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (!fromBody || typeof fromBody !== "object" || Array.isArray(fromBody)) return undefined;
  }
  const fromPath = { ...route.path.exec(url.pathname)!.groups };
  for (const [k, v] of Object.entries(fromPath)) fromPath[k] = decodeURIComponent(v);
  const request = { ...fromQuery, ...fromBody, ...fromPath };
  try {
    messageOf(input, request);
  } catch (e) {
    if (e instanceof NotAMessageError) return undefined;
    throw e;
  }
  return { role: route.role, rpc: route.rpc, request };
}

/** Makes the call on the node at `rpcUrl`, which speaks the protocol version. */
export function callRoute(call: RouteCall, rpcUrl: string, scope: ScenarioScope, rules: ProtocolRules): Promise<Unary> {
  return unary(servicesOf(rules)[call.role], rpcUrl, call.rpc, call.request, scope);
}
