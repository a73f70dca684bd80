@bids @bid-validation
Feature: SendBid refuses invalid bids with upstream's codes and messages
  SendBid checks a bid before it goes anywhere (api-behaviour.md §1.1): protovalidate first (every violation, in
  field order, or a CEL runtime error that replaces them), then "empty bid", "both txHashes and rawTransactions are
  provided", then the decoding of raw transactions. Every refusal comes before the first stream message, so it is
  the stream envelope `{"error":{code,message,details}}` with the HTTP status mapped from the gRPC code (§0.4,
  §0.5). A body that cannot be decoded as a Bid fails inside the gateway, before the call, and is answered in the
  unary format `{code,message,details}` instead.

  The valid bid the outlines change is
    {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "1000",
     "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
  and a change sets fields (null removes one). $RAW_1 is a signed raw transaction.

  Background:
    Given the target's nodes answer

  @upstream
  Scenario Outline: an invalid bid is refused: <case>
    When the bidder sends a valid bid changed by <change>
    Then the bid is refused with HTTP <status>, code <code> and the message "<message>"

    Examples:
      | case                                 | change                                                                                                 | status | code | message |
      | tx hash of 63 characters             | {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa"]}                       | 400    | 3    | validating bid: validation error:\n - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes] |
      | tx hash that is not hex              | {"txHashes": ["zz4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"]}                      | 400    | 3    | validating bid: validation error:\n - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes] |
      | tx hash with an upper-case 0X        | {"txHashes": ["0Xfe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"]}                    | 400    | 3    | validating bid: validation error:\n - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes] |
      | amount 0                             | {"amount": "0"}                                                                                        | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | amount with a leading zero           | {"amount": "01"}                                                                                       | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | negative amount                      | {"amount": "-1"}                                                                                       | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | amount that is not a number          | {"amount": "abc"}                                                                                      | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | empty amount                         | {"amount": ""}                                                                                         | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | no amount                            | {"amount": null}                                                                                       | 400    | 3    | validating bid: validation error:\n - amount: amount must be a valid integer. [amount] |
      | block number 0                       | {"blockNumber": 0}                                                                                     | 400    | 3    | validating bid: validation error:\n - block_number: block_number must be a valid integer. [block_number] |
      | negative block number                | {"blockNumber": -1}                                                                                    | 400    | 3    | validating bid: runtime error: error evaluating block_number: unsigned integer overflow |
      | decay start 0                        | {"decayStartTimestamp": "0"}                                                                           | 400    | 3    | validating bid: validation error:\n - decay_start_timestamp: decay_start_timestamp must be a valid integer. [decay_start_timestamp] |
      | negative decay end                   | {"decayEndTimestamp": "-5"}                                                                            | 400    | 3    | validating bid: runtime error: error evaluating decay_end_timestamp: unsigned integer overflow |
      | reverting hash that is not a hash    | {"revertingTxHashes": ["abc"]}                                                                         | 400    | 3    | validating bid: validation error:\n - reverting_tx_hashes: reverting_tx_hashes must be an array of valid transaction hashes. [reverting_tx_hashes] |
      | raw transaction that is not hex      | {"txHashes": null, "rawTransactions": ["0xzz"]}                                                        | 400    | 3    | validating bid: validation error:\n - raw_transactions: raw_transactions must be an array of valid raw transactions. [raw_transactions] |
      | slash amount that is not a number    | {"slashAmount": "abc"}                                                                                 | 400    | 3    | validating bid: validation error:\n - slash_amount: slash_amount must be a valid integer. [slash_amount] |
      | negative slash amount                | {"slashAmount": "-1"}                                                                                  | 400    | 3    | validating bid: validation error:\n - slash_amount: slash_amount must be a valid integer. [slash_amount] |
      | slash amount above 2^64-1            | {"slashAmount": "18446744073709551616"}                                                                | 400    | 3    | validating bid: runtime error: error evaluating slash_amount: type conversion error from 'string' to 'uint' |
      | several violations, in field order   | {"txHashes": ["x"], "amount": "0", "slashAmount": "x"}                                                 | 400    | 3    | validating bid: validation error:\n - tx_hashes: tx_hashes must be a valid array of transaction hashes. [tx_hashes]\n - amount: amount must be a valid integer. [amount]\n - slash_amount: slash_amount must be a valid integer. [slash_amount] |
      | a runtime error replaces violations  | {"txHashes": ["x"], "amount": "0", "blockNumber": -1}                                                  | 400    | 3    | validating bid: runtime error: error evaluating block_number: unsigned integer overflow |
      | no field at all                      | {"txHashes": null, "amount": null, "blockNumber": null, "decayStartTimestamp": null, "decayEndTimestamp": null} | 400 | 3 | validating bid: validation error:\n - amount: amount must be a valid integer. [amount]\n - block_number: block_number must be a valid integer. [block_number]\n - decay_start_timestamp: decay_start_timestamp must be a valid integer. [decay_start_timestamp]\n - decay_end_timestamp: decay_end_timestamp must be a valid integer. [decay_end_timestamp] |
      | neither hashes nor raw transactions  | {"txHashes": null}                                                                                     | 400    | 3    | empty bid |
      | empty lists of both                  | {"txHashes": [], "rawTransactions": []}                                                                | 400    | 3    | empty bid |
      | both hashes and raw transactions     | {"rawTransactions": ["$RAW_1"]}                                                                        | 400    | 3    | both txHashes and rawTransactions are provided |
      | raw transaction of odd length        | {"txHashes": null, "rawTransactions": ["0xabc"]}                                                       | 400    | 3    | decoding raw transaction: encoding/hex: odd length hex string |
      | empty raw transaction                | {"txHashes": null, "rawTransactions": [""]}                                                            | 400    | 3    | unmarshaling raw transaction: typed transaction too short |
      | raw transaction of an unknown type   | {"txHashes": null, "rawTransactions": ["05aa"]}                                                        | 400    | 3    | unmarshaling raw transaction: transaction type not supported |

  @upstream @http
  Scenario Outline: a body that is not a Bid message is refused in the unary format: <case>
    When the bidder is sent the body '<body>'
    Then the request is refused in the unary format with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                            | body                               | message |
      | malformed JSON                  | {"amount": x}                      | invalid character 'x' looking for beginning of value |
      | truncated JSON                  | {"amount":"1000",                  | unexpected EOF |
      | not JSON at all                 | not json                           | invalid character 'o' in literal null (expecting 'u') |
      | a JSON array                    | [1]                                | proto: syntax error (line 1:1): unexpected token [ |
      | a number for a string field     | {"amount": 5}                      | proto: (line 1:12): invalid value for string type: 5 |
      | an object for a string field    | {"amount": {"x": 1}}               | proto: (line 1:12): invalid value for string type: { |
      | a string for a list             | {"txHashes":"abc"}                 | proto: syntax error (line 1:13): unexpected token "abc" |
      | a non-number for an int64       | {"amount":"1","blockNumber":"12x"} | proto: (line 1:29): invalid value for int64 type: "12x" |
      | both spellings of one field     | {"blockNumber":1,"block_number":2} | proto: (line 1:18): duplicate field "block_number" |

  @upstream @http
  Scenario Outline: <method> <path> is not SendBid
    When I send <method> "<path>" to the bidder
    Then the HTTP status is <status>
    And the content type is JSON
    And the body is the status <code> "<message>"

    Examples:
      | method | path               | status | code | message            |
      | POST   | /v1/bidder/bids    | 404    | 5    | Not Found          |
      | POST   | /v1/bidder/bid/1   | 404    | 5    | Not Found          |
      | POST   | /v1/bid            | 404    | 5    | Not Found          |
      | GET    | /v1/bidder/bid     | 501    | 12   | Method Not Allowed |
      | PUT    | /v1/bidder/bid     | 501    | 12   | Method Not Allowed |
      | DELETE | /v1/bidder/bid     | 501    | 12   | Method Not Allowed |

  @upstream @http
  Scenario: a valid body sent as text/plain is still decoded as JSON, as grpc-gateway does
    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends the bid with content type "text/plain":
      """
      {"txHashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "amount": "4321",
       "blockNumber": "$BLOCK", "decayStartTimestamp": "$DECAY_START", "decayEndTimestamp": "$DECAY_END"}
      """
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment echoes the bid's amount, block number and decay timestamps
    And every commitment is signed by the provider it names

  @upstream
  Scenario Outline: a bid <form> is accepted
    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends a valid bid changed by <change>
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment is signed by the provider it names
    And every commitment has <field> <value>

    Examples:
      | form                                     | change                                                                                                                                                                                                         | field             | value |
      | with a hash without 0x                   | {}                                                                                                                                                                                                             | txHashes          | ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"] |
      | with a 0x-prefixed hash                  | {"txHashes": ["0xfe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"]}                                                                                                                         | txHashes          | ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"] |
      | with a 0x-prefixed reverting hash        | {"revertingTxHashes": ["0x71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"]}                                                                                                                | revertingTxHashes | ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"] |
      | in proto (snake_case) field names        | {"txHashes": null, "tx_hashes": ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"], "blockNumber": null, "block_number": "$BLOCK", "slash_amount": "7"}                                   | slashAmount       | "7" |
      | with int64 fields as JSON numbers        | {"blockNumber": $BLOCK, "decayStartTimestamp": $DECAY_START, "decayEndTimestamp": $DECAY_END}                                                                                                                  | blockNumber       | "$BLOCK" |
      | with the largest slash amount            | {"slashAmount": "18446744073709551615"}                                                                                                                                                                        | slashAmount       | "18446744073709551615" |
      | with unknown fields                      | {"whatever": {"nested": [1, 2]}, "laterField": "x"}                                                                                                                                                            | bidAmount         | "1000" |

  @intended
  Scenario Outline: a bid <form> is accepted and committed to in lower case
    Divergence: Transaction hashes
    Upstream keeps the case of the hashes it was given (it only strips 0x), so its oracle, which compares lower-case
    hashes, would slash every such commitment.

    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    When the bidder sends a valid bid changed by <change>
    Then the bid stream ends with HTTP 200 and 1 commitment
    And every commitment is signed by the provider it names
    And every commitment has <field> <value>

    Examples:
      | form                                     | change                                                                                 | field             | value |
      | with a mixed-case hash                   | {"txHashes": ["FE4cb47db3630551BEEDFBD02a71ecc69fd59758e2ba699606e2d5c74284FFA7"]}                                                                                                                           | txHashes          | ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"] |
      | with a 0x-prefixed mixed-case hash       | {"txHashes": ["0xFe4Cb47Db3630551BeEdFbD02a71ecc69fd59758e2ba699606e2d5c74284fFa7"]}                                                                                                                         | txHashes          | ["fe4cb47db3630551beedfbd02a71ecc69fd59758e2ba699606e2d5c74284ffa7"] |
      | with a 0x-prefixed upper-case reverting hash | {"revertingTxHashes": ["0x71C1348F2D7FF7E814F9C3617983703435EA7446DE420AEAC488BF1DE35737E8"]}                                                                                                            | revertingTxHashes | ["71c1348f2d7ff7e814f9c3617983703435ea7446de420aeac488bf1de35737e8"] |

  @upstream @sim-nodes
  Scenario: with no provider connected, SendBid fails with Internal "no providers available"
    Given every provider node has left the network
    When the bidder sends a valid bid changed by {}
    Then the bid is refused with HTTP 500, code 13 and the message "error sending bid: no providers available"

  @upstream
  Scenario: the bidder node keeps serving bids after refusing invalid ones
    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder is sent these bodies, one after another:
      | body                                                                                          |
      | {"amount": x}                                                                                 |
      | [1]                                                                                           |
      | {}                                                                                            |
      | {"txHashes":["x"],"amount":"0","blockNumber":-1,"decayStartTimestamp":1,"decayEndTimestamp":1} |
      | {"rawTransactions":[""],"amount":"1","blockNumber":1,"decayStartTimestamp":1,"decayEndTimestamp":1} |
      | {"slashAmount":"99999999999999999999999","amount":"1","blockNumber":1,"decayStartTimestamp":1,"decayEndTimestamp":1} |
    Then every one of them was refused with HTTP 400 and code 3
    When the bidder sends a bid of 1000 wei
    Then the bid stream ends with HTTP 200 and 2 commitments
    And every commitment is signed by the provider it names
    And the target's nodes answer
