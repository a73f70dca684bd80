@limits
Feature: A message above 4 MiB is refused with ResourceExhausted, and the node goes on
  gRPC servers refuse a message above their maximum, 4 MiB by default (grpc-go's and grpc-js's), with
  ResourceExhausted; upstream's HTTP gateway hands each request to its gRPC server, so an HTTP body that large is
  refused the same way. Over HTTP the status differs by server (grpc-gateway maps the code to 429, a server that
  counts the body as it arrives answers 413): the suite checks the code. Without a limit these requests would be
  read whole and answered as bad input (code 3) or served.

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
