import { describe, expect, test } from "bun:test";
import { fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import protobuf from "protobufjs";
import { BidOptionsSchema } from "../gen/proto/v1.2/bidderapi/v1/bidderapi_pb.ts";
import {
  type BidOptions,
  BidOptionsDecodeError,
  bidOptionsFromJson,
  bidOptionsToJson,
  decodeBidOptions,
  encodeBidOptions,
  knownOptions,
} from "./bidOptions.ts";
import { bytesToHex, hexToBytes } from "./bytes.ts";
import { BodyDecodeError } from "./grpcCodes.ts";
import { readFirstJsonValue } from "./jsonText.ts";

/** The same messages built independently by protobufjs from their field numbers (upstream-head-delta §1.2). */
const root = protobuf.Root.fromJSON({
  nested: {
    PositionConstraint: {
      fields: { anchor: { type: "int32", id: 1 }, basis: { type: "int32", id: 2 }, value: { type: "int32", id: 3 } },
    },
    BidOption: {
      oneofs: { opt: { oneof: ["positionConstraint"] } },
      fields: { positionConstraint: { type: "PositionConstraint", id: 1 } },
    },
    BidOptions: { fields: { options: { rule: "repeated", type: "BidOption", id: 1 } } },
  },
});
const BidOptionsType = root.lookupType("BidOptions");

function reference(o: BidOptions): string {
  return bytesToHex(BidOptionsType.encode(BidOptionsType.fromObject(o)).finish());
}

const json = (text: string) => bidOptionsFromJson(readFirstJsonValue(text)!);
const jsonAt = (text: string) => bidOptionsFromJson(readFirstJsonValue(text)!, { text, base: 0 });

describe("bid options, binary form", () => {
  const cases: [string, BidOptions][] = [
    ["none", { options: [] }],
    ["top 10th percentile", { options: [{ positionConstraint: { anchor: 1, basis: 1, value: 10 } }] }],
    ["an option with every field zero", { options: [{ positionConstraint: { anchor: 0, basis: 0, value: 0 } }] }],
    ["a negative value", { options: [{ positionConstraint: { anchor: 2, basis: 2, value: -3 } }] }],
    [
      "two options",
      {
        options: [
          { positionConstraint: { anchor: 1, basis: 3, value: 2147483647 } },
          { positionConstraint: { anchor: 2, basis: 2, value: 300 } },
        ],
      },
    ],
  ];
  for (const [name, o] of cases)
    test(`${name}: the same bytes as protobuf, and back`, () => {
      const bytes = encodeBidOptions(o);
      expect(bytesToHex(bytes)).toBe(reference(o));
      expect(decodeBidOptions(bytes)).toEqual(o);
    });

  test("no options encode to zero bytes", () => {
    expect(encodeBidOptions({ options: [] }).length).toBe(0);
  });

  test("an option of an unknown kind is an empty option, which a provider drops; unknown fields are dropped", () => {
    // option 1: oneof case 2 (a later option kind); option 2: a position constraint; then an unknown field 5.
    const decoded = decodeBidOptions(hexToBytes("0a0212000a060a04080118032805"));
    const pc = { positionConstraint: { anchor: 1, basis: 0, value: 3 } };
    expect(decoded).toEqual({ options: [{}, pc] });
    expect(knownOptions(decoded)).toEqual({ options: [pc] });
  });

  test("an empty option encodes as protobuf does (0a00), so it enters the digest", () => {
    expect(bytesToHex(encodeBidOptions({ options: [{}] }))).toBe("0a00");
    expect(bytesToHex(encodeBidOptions({ options: [{}] }))).toBe(reference({ options: [{}] } as BidOptions));
    expect(bidOptionsToJson(decodeBidOptions(hexToBytes("0a00")))).toEqual({ options: [{}] });
  });

  test("truncated bytes fail with a named error", () => {
    expect(() => decodeBidOptions(hexToBytes("0a05"))).toThrow(/truncated/);
  });
});

describe("bid options, proto-JSON", () => {
  test("enum names or numbers, camelCase or proto names", () => {
    const want = { options: [{ positionConstraint: { anchor: 1, basis: 3, value: 25 } }] };
    expect(
      json('{"options":[{"positionConstraint":{"anchor":"ANCHOR_TOP","basis":"BASIS_GAS_PERCENTILE","value":25}}]}'),
    ).toEqual(want);
    expect(json('{"options":[{"position_constraint":{"anchor":1,"basis":3,"value":"25"}}]}')).toEqual(want);
  });

  test("renders as grpc-gateway does, and reads back what it renders", () => {
    const o = { options: [{ positionConstraint: { anchor: 2, basis: 0, value: -1 } }] };
    const rendered = bidOptionsToJson(o);
    expect(rendered).toEqual({
      options: [{ positionConstraint: { anchor: "ANCHOR_BOTTOM", basis: "BASIS_UNSPECIFIED", value: -1 } }],
    });
    expect(json(JSON.stringify(rendered))).toEqual(o);
  });

  test("empty or null options are none", () => {
    expect(json("{}")).toEqual({ options: [] });
    expect(json('{"options":null}')).toEqual({ options: [] });
  });

  test("an option with no kind set is an empty option; an unknown enum name is ignored, as protojson DiscardUnknown", () => {
    expect(json('{"options":[{},{"positionConstraint":null},{"other":1}]}')).toEqual({ options: [{}, {}, {}] });
    expect(json('{"options":[{"positionConstraint":{"anchor":"TOP","basis":"BASIS_ABSOLUTE"}}]}')).toEqual({
      options: [{ positionConstraint: { anchor: 0, basis: 2, value: 0 } }],
    });
  });

  test("bad values are InvalidArgument decode errors with protojson's texts and positions", () => {
    const cases: [string, string][] = [
      [
        '{"options":[{"positionConstraint":{"value":2147483648}}]}',
        "proto: (line 1:44): invalid value for int32 type: 2147483648",
      ],
      ['{"options":[{"positionConstraint":{"anchor":true}}]}', "proto: (line 1:45): invalid value for enum type: true"],
      ['{"options":{}}', "proto: syntax error (line 1:12): unexpected token {"],
      ['{"options":[null]}', "proto: syntax error (line 1:13): unexpected token null"],
      ['{"options":[{"positionConstraint":[]}]}', "proto: syntax error (line 1:35): unexpected token ["],
      ["[]", "proto: syntax error (line 1:1): unexpected token ["],
      ['{"options":[],"options":[]}', 'proto: (line 1:15): duplicate field "options"'],
      [
        '{"options":[{"positionConstraint":{},"position_constraint":{}}]}',
        'proto: (line 1:38): duplicate field "position_constraint"',
      ],
    ];
    for (const [text, message] of cases) {
      let err: unknown;
      try {
        jsonAt(text);
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(BodyDecodeError);
      expect((err as Error).message, text).toBe(message);
    }
  });
});

/** BidOptions{options:[BidOption{position_constraint:{anchor:TOP(1), basis:PERCENTILE(1), value:10}}]}, by hand:
 * 0a 08 (options, 8 bytes) 0a 06 (position_constraint, 6 bytes) 08 01 (anchor) 10 01 (basis) 18 0a (value). */
const TOP_10_PERCENT = "0a080a0608011001180a";

describe("bid options, against the code generated from upstream's v1.2 proto (node/gen)", () => {
  test("a position constraint encodes to its proto bytes, from either JSON spelling, and renders back", () => {
    const camel = '{"options":[{"positionConstraint":{"anchor":"ANCHOR_TOP","basis":"BASIS_PERCENTILE","value":10}}]}';
    const snake = '{"options":[{"position_constraint":{"anchor":1,"basis":1,"value":10}}]}';
    for (const text of [camel, snake]) {
      expect(bytesToHex(encodeBidOptions(json(text)))).toBe(TOP_10_PERCENT);
      expect(bytesToHex(toBinary(BidOptionsSchema, fromJson(BidOptionsSchema, JSON.parse(text))))).toBe(TOP_10_PERCENT);
    }
    const rendered = bidOptionsToJson(decodeBidOptions(hexToBytes(TOP_10_PERCENT)));
    expect(rendered).toEqual(JSON.parse(camel));
    const generated: unknown = toJson(BidOptionsSchema, fromBinary(BidOptionsSchema, hexToBytes(TOP_10_PERCENT)), {
      alwaysEmitImplicit: true,
    });
    expect(rendered).toEqual(generated as typeof rendered);
  });

  test("no options and an empty BidOptions are both zero bytes, rendered as no options", () => {
    for (const text of ["{}", '{"options":[]}']) {
      expect(encodeBidOptions(json(text))).toEqual(new Uint8Array(0));
      expect(toBinary(BidOptionsSchema, fromJson(BidOptionsSchema, JSON.parse(text)))).toEqual(new Uint8Array(0));
    }
    expect(bidOptionsToJson(decodeBidOptions(new Uint8Array(0)))).toEqual({ options: [] });
  });

  test("bytes the generated code refuses are refused with a named error", () => {
    expect(() => fromBinary(BidOptionsSchema, hexToBytes("0aff"))).toThrow();
    expect(() => decodeBidOptions(hexToBytes("0aff"))).toThrow(BidOptionsDecodeError);
  });
});
