@grpc @provider @bids
Feature: A gRPC stream whose client reads slowly waits for the client
  A gRPC server stream is an HTTP/2 stream: the server may send only as much as the client's flow-control window
  allows, and the client grants more as it reads (RFC 9113 §5.2, §6.9). A client that reads slowly therefore holds
  the server back; the server must wait for it, neither dropping messages nor ending the stream. Upstream's grpc-go
  ServerStream.Send blocks until the window opens, and ReceiveBids ends only when the client leaves
  (api-behaviour §1.7). A node that ends the stream with status OK, or drops what its write buffer cannot take, when
  the client falls behind loses bids its provider application never sees.

  The suite's slow client is written on HTTP/2 frames (features/support/holesSlowReader.ts): it offers a stream
  window of a few hundred bytes and grants nothing more while it is paused, so the node can send about one bid
  until the client reads on. grpc-js on Bun cannot hold a server back (Bun's HTTP/2 client grants window as data
  arrives, read or not). It speaks plain-text HTTP/2: a node whose gRPC address is https:// is skipped.

  Background:
    Given the target's nodes answer

  @upstream
  Scenario: a provider's ReceiveBids read slowly delivers every bid, each once, and stays open
    Given the bidder has 1 ETH deposited for a fresh block range
    And provider 1 is read by a slow gRPC client: ReceiveBids with a 256-byte window, paused
    When the bidder starts 30 bids of 1 to 30 wei at once
    And the slow client reads on after half the decision timeout
    Then the slow client has read the 30 bids, each once, and its stream is still open
