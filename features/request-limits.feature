@limits
Feature: A message above 4 MiB is refused with ResourceExhausted, and the node goes on
  gRPC servers refuse a message above their maximum, 4 MiB by default (grpc-go's and grpc-js's), with
  ResourceExhausted; upstream's HTTP gateway hands each request to its gRPC server, so an HTTP body that large is
  refused the same way. Without a limit these requests would be read whole and answered as bad input (code 3) or
  served.

  The HTTP status: upstream (v1.1 and v1.2.5) answers 429 Too Many Requests. Its gateway reads the whole body
  (no limit of its own: p2p/pkg/node/node.go, p2p/pkg/apiserver/api.go), calls its own gRPC server, whose default
  maximum refuses the message with ResourceExhausted, and maps that code to 429 (grpc-gateway
  runtime.HTTPStatusFromCode; api-behaviour §0.1, §0.4). 429 tells a client to slow down and retry, which a body
  that is too large never gets past; the reference answers 413 Content Too Large with the same status body
  (docs/divergences.md "Request body above a route's limit"). So the @upstream scenarios hold the code, 8, on both
  transports and accept exactly those two HTTP statuses, upstream's and the divergence's (any other is a failure);
  the @intended scenario holds every implementation to 413.

  Background:
    Given the target's nodes answer

  @upstream @bids
  Scenario: a bid of more than 4 MiB is refused, and the next bid gets its commitments
    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 runs a provider application that accepts every bid
    And provider 2 runs a provider application that accepts every bid
    When the bidder is sent a bid whose transaction hash list holds a 5 MiB string
    Then it is refused with ResourceExhausted, code 8
    When the bidder sends a bid of 5302 wei
    Then the bid stream ends with HTTP 200 and 2 commitments

  @upstream @notifications
  Scenario: a Subscribe call of more than 4 MiB is refused
    When a client subscribes to the bidder with a topic of 5 MiB
    Then it is refused with ResourceExhausted, code 8

  @upstream @deposits @v1.1
  Scenario: a withdraw_from_windows request of more than 4 MiB is refused
    When the bidder is sent a withdraw_from_windows request listing window 1 1500000 times
    Then the call is refused with ResourceExhausted, code 8

  @upstream @provider
  Scenario: a decision of more than 4 MiB is refused
    When provider 1 is sent a decision whose bid digest is 7 MiB of base64
    Then the call is refused with ResourceExhausted, code 8

  @intended @http @notifications @provider
  Scenario: a body above its route's limit is answered 413 Content Too Large, not 429 Too Many Requests
    Divergence: Request body above a route's limit
    When a client subscribes to the bidder with a topic of 5 MiB
    Then it is refused with ResourceExhausted, code 8
    And the oversized request was answered with HTTP 413
    When provider 1 is sent a decision whose bid digest is 7 MiB of base64
    Then the call is refused with ResourceExhausted, code 8
    And the oversized call was answered with HTTP 413
