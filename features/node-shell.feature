@http
Feature: Node shell and wire conventions
  Every node answers health checks, serves its OpenAPI document, and answers unknown paths and wrong methods
  exactly as grpc-gateway does, so that clients written for the upstream node behave the same against it.

  Levels: the interface names only the /v1 operations and a machine-readable description (§9), so the health
  route and the routing errors are upstream's behaviour (api-behaviour §0.1, §0.4); the OpenAPI document is the
  `openapi` capability (upstream's node serves none).

  Background:
    Given the target's nodes answer

  @upstream
  Scenario Outline: <node> health check
    When I send GET "/health" to the <node>
    Then the HTTP status is 200
    And the body is the text "ok"

    Examples:
      | node       |
      | bidder     |
      | provider 1 |
      | provider 2 |

  @upstream
  Scenario Outline: an unknown path on the <node> is 404 NotFound
    When I send <method> "<path>" to the <node>
    Then the HTTP status is 404
    And the content type is JSON
    And the body is the status 5 "Not Found"

    Examples:
      | node       | method | path                  |
      | bidder     | GET    | /v1/nope              |
      | bidder     | POST   | /v1/bidder/nope       |
      | provider 1 | GET    | /v2/provider/get_stake |
      | bidder     | GET    | /                     |

  @upstream
  Scenario Outline: a route of the other role is 404 on the <node>
    When I send <method> "<path>" to the <node>
    Then the HTTP status is 404
    And the body is the status 5 "Not Found"

    Examples:
      | node       | method | path                              |
      | bidder     | GET    | /v1/provider/receive_bids         |
      | provider 1 | POST   | /v1/bidder/bid                    |

    @v1.1
    Examples: a window deposit route
      | node       | method | path                              |
      | provider 1 | GET    | /v1/bidder/auto_deposit_status    |

    @v1.2
    Examples: a per-provider deposit route
      | node       | method | path                              |
      | provider 1 | GET    | /v1/bidder/get_all_deposits       |

  @upstream
  Scenario Outline: a known path with the wrong method is 501 on the <node>
    When I send <method> "<path>" to the <node>
    Then the HTTP status is 501
    And the content type is JSON
    And the body is the status 12 "Method Not Allowed"

    Examples:
      | node       | method | path                               |
      | bidder     | GET    | /v1/bidder/bid                     |
      | bidder     | DELETE | /v1/bidder/deposit/100             |
      | provider 1 | POST   | /v1/provider/receive_bids          |
      | provider 1 | GET    | /v1/provider/send_processed_bids   |

    @v1.1
    Examples: a window deposit route
      | node       | method | path                               |
      | bidder     | POST   | /v1/bidder/auto_deposit_status     |

    @v1.2
    Examples: a per-provider deposit route
      | node       | method | path                               |
      | bidder     | POST   | /v1/bidder/deposit_manager_status  |

  @spec @openapi @v1.1
  Scenario: the bidder node serves its OpenAPI document
    When I send GET "/swagger/json" to the bidder
    Then the HTTP status is 200
    And the OpenAPI document lists these operations:
      | method | path                              |
      | POST   | /v1/bidder/bid                    |
      | POST   | /v1/bidder/deposit/{amount}       |
      | POST   | /v1/bidder/auto_deposit/{amount}  |
      | GET    | /v1/bidder/auto_deposit_status    |
      | POST   | /v1/bidder/withdraw_from_windows  |
      | POST   | /v1/bidder/cancel_auto_deposit    |
      | GET    | /v1/bidder/get_deposit            |
      | POST   | /v1/bidder/withdraw               |
      | GET    | /v1/bidder/get_bid_info           |
      | POST   | /v1/bidder/claim_slashed_funds    |
      | POST   | /v1/subscribe                     |
      | GET    | /v1/validator/get_validators      |
      | GET    | /v1/debug/topology                |

  @upstream @openapi @v1.2
  Scenario: the bidder node serves its OpenAPI document with the per-provider deposit routes
    Upstream v1.2.5 p2p/rpc/bidderapi/v1/bidderapi.proto (upstream-head-delta §1.1): the window routes are gone.
    When I send GET "/swagger/json" to the bidder
    Then the HTTP status is 200
    And the OpenAPI document lists these operations:
      | method | path                                  |
      | POST   | /v1/bidder/bid                        |
      | POST   | /v1/bidder/deposit/{amount}           |
      | POST   | /v1/bidder/deposit_evenly             |
      | POST   | /v1/bidder/enable_deposit_manager     |
      | POST   | /v1/bidder/disable_deposit_manager    |
      | POST   | /v1/bidder/set_target_deposits        |
      | GET    | /v1/bidder/deposit_manager_status     |
      | POST   | /v1/bidder/request_withdrawals        |
      | GET    | /v1/bidder/get_valid_providers        |
      | GET    | /v1/bidder/get_deposit                |
      | GET    | /v1/bidder/get_all_deposits           |
      | POST   | /v1/bidder/withdraw                   |
      | GET    | /v1/bidder/get_bid_info               |
      | POST   | /v1/bidder/claim_slashed_funds        |
      | POST   | /v1/subscribe                         |
      | GET    | /v1/validator/get_validators          |
      | GET    | /v1/debug/topology                    |

  @spec @openapi
  Scenario: a provider node serves its OpenAPI document
    When I send GET "/swagger/json" to the provider 1
    Then the HTTP status is 200
    And the OpenAPI document lists these operations:
      | method | path                              |
      | GET    | /v1/provider/receive_bids         |
      | POST   | /v1/provider/send_processed_bids  |
      | GET    | /v1/provider/get_commitment_info  |
      | POST   | /v1/provider/stake/{amount}       |
      | GET    | /v1/provider/get_stake            |
      | GET    | /v1/provider/get_min_stake        |
      | POST   | /v1/provider/unstake              |
      | POST   | /v1/provider/withdraw_stake       |
      | GET    | /v1/provider/get_provider_reward  |
      | POST   | /v1/provider/withdraw_provider_reward |
      | POST   | /v1/subscribe                     |
      | GET    | /v1/validator/get_validators      |
      | GET    | /v1/debug/topology                |
