/** validatorapi.v1.Validator, written once for every transport (HTTP: node/api, gRPC: node/grpc). */
import { create } from "@bufbuild/protobuf";
import * as pb from "../gen/proto/validatorapi/v1/validatorapi_pb.ts";
import type { SlotInfo } from "../validators/validatorService.ts";

/** What the service needs from the validator schedule. */
export interface ValidatorsSource {
  currentEpoch(): Promise<bigint>;
  getValidators(epoch: bigint): Promise<Map<bigint, SlotInfo>>;
}

export class ValidatorApiService {
  constructor(private readonly source: ValidatorsSource) {}

  /**
   * GetValidators (api-behaviour §7): the proposer of every slot of the epoch and whether it is opted in.
   * Epoch 0 means the current epoch (a proto3 uint64 cannot tell 0 from unset, as upstream). Slots ascending.
   */
  async getValidators(req: { epoch: bigint }): Promise<pb.GetValidatorsResponse> {
    const epoch = req.epoch ? req.epoch : await this.source.currentEpoch();
    const slots = await this.source.getValidators(epoch);
    const items: Record<string, pb.SlotInfo> = {};
    for (const slot of [...slots.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const s = slots.get(slot)!;
      items[slot.toString()] = create(pb.SlotInfoSchema, { BLSKey: s.blsKey, isOptedIn: s.optedIn });
    }
    return create(pb.GetValidatorsResponseSchema, { items });
  }
}
