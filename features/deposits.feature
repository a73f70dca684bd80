@deposits @v1.1
Feature: Bidder deposits into windows
  A bidder locks ETH in BidderRegistry per window of 10 L1 blocks (window w spans blocks (w-1)*10+1 … w*10).
  Deposit answers the window's new cumulative total; auto-deposit keeps the next windows funded and withdraws
  the closed ones; closed windows can be withdrawn. What the node answers is checked against the settlement
  chain itself (interface.md §2.7, §3.2, §4.3, §4.8–4.10; api-behaviour.md §1.3, §1.8–1.10, §4, §7).

  Levels: the interface gives the operations and their records (§2.7, §4.3, §4.8–4.10); query names, the default
  windows, the validation texts and the on-chain errors are upstream's.

  The devnet is shared by every scenario of a run, so scenarios do not depend on each other's order: "fresh"
  windows are picked relative to the current one (far ahead, or closed), hold no deposit of the bidder and are
  never handed out twice. Deposits left just ahead of L1 (auto-deposit, the default window) are withdrawn once
  closed where the target has the control API, so that bid features find their windows as they left them.

  Windows are named by a capital letter (W, K, C) bound in the scenario, with an offset ("W+1", "C-1").

  Background:
    Given auto-deposit is not running

  # ------------------------------------------------------------------------------------------------ deposit

  @upstream
  Scenario Outline: a deposit into an explicit window (<key>) answers the window's total
    Given a fresh window W ahead
    When the bidder deposits 1 ETH into window W, naming it with "<key>"
    Then the deposit answer is 1 ETH in window W
    And BidderRegistry holds 1 ETH for the bidder in window W

    Examples:
      | key           |
      | window_number |
      | windowNumber  |

  @upstream
  Scenario: two deposits into one window answer the running total
    Given a fresh window W ahead
    When the bidder deposits 1 ETH into window W
    Then the deposit answer is 1 ETH in window W
    When the bidder deposits 0.25 ETH into window W
    Then the deposit answer is 1.25 ETH in window W
    And BidderRegistry holds 1.25 ETH for the bidder in window W

  @upstream
  Scenario Outline: a deposit into the window of block <block> of a window (<key>)
    Given a fresh window W ahead
    When the bidder deposits 2 gwei into the window of block <block> of window W, naming it with "<key>"
    Then the deposit answer is 2 gwei in window W
    And BidderRegistry holds 2 gwei for the bidder in window W

    Examples:
      | block | key          |
      | 1     | block_number |
      | 10    | blockNumber  |
      | 7     | block_number |

  @upstream
  Scenario: a deposit naming no window goes to the window after the current one
    Given the current window is noted as C
    And the bidder's deposit in window C+1 is noted
    When the bidder deposits 3 gwei without naming a window
    Then the deposit answer is the noted deposit of window C+1 plus 3 gwei
    And BidderRegistry holds the noted deposit of window C+1 plus 3 gwei for the bidder

  @upstream
  Scenario: a window named both ways is taken from the explicit window, not the block
    Given a fresh window W ahead
    And a fresh window V ahead
    When the bidder deposits 1 gwei into window W and the window of block 1 of window V
    Then the deposit answer is 1 gwei in window W
    And BidderRegistry holds 1 gwei for the bidder in window W
    And BidderRegistry holds nothing for the bidder in window V

  @upstream
  Scenario: a query parameter named amount and unknown parameters are ignored; the path amount counts
    Given a fresh window W ahead
    When the bidder is called with POST "/v1/bidder/deposit/5?window_number={W}&amount=7&unknown=x"
    Then the deposit answer is 5 wei in window W
    And BidderRegistry holds 5 wei for the bidder in window W

  # ------------------------------------------------------------------------------------------------ validation

  @upstream
  Scenario Outline: a deposit request with <case> is refused
    When I send POST "<path>" to the bidder
    Then the request fails with HTTP <http>, code <code> and the message "<message>"

    Examples:
      | case                         | path                                                    | http | code | message                                                                                                                                                                                                                                                                             |
      | amount 0                     | /v1/bidder/deposit/0                                    | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                                                                                                                                  |
      | amount 01                    | /v1/bidder/deposit/01                                   | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                                                                                                                                  |
      | amount -1                    | /v1/bidder/deposit/-1                                   | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                                                                                                                                  |
      | amount abc                   | /v1/bidder/deposit/abc                                  | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                                                                                                                                  |
      | amount 1.5                   | /v1/bidder/deposit/1.5                                  | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                                                                                                                                                                  |
      | window_number=0              | /v1/bidder/deposit/1?window_number=0                    | 400  | 3    | validating deposit request: validation error:\n - window_number: window_number must be a positive integer if specified. [window_number]                                                                                                                                             |
      | windowNumber=0               | /v1/bidder/deposit/1?windowNumber=0                     | 400  | 3    | validating deposit request: validation error:\n - window_number: window_number must be a positive integer if specified. [window_number]                                                                                                                                             |
      | block_number=0               | /v1/bidder/deposit/1?block_number=0                     | 400  | 3    | validating deposit request: validation error:\n - block_number: block_number must be a positive integer if specified. [block_number]                                                                                                                                                |
      | every field wrong            | /v1/bidder/deposit/0?window_number=0&blockNumber=0      | 400  | 3    | validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]\n - window_number: window_number must be a positive integer if specified. [window_number]\n - block_number: block_number must be a positive integer if specified. [block_number] |
      | window_number=abc            | /v1/bidder/deposit/1?window_number=abc                  | 400  | 3    | parsing field "window_number": strconv.ParseUint: parsing "abc": invalid syntax                                                                                                                                                                                                     |
      | windowNumber=-1              | /v1/bidder/deposit/1?windowNumber=-1                    | 400  | 3    | parsing field "window_number": strconv.ParseUint: parsing "-1": invalid syntax                                                                                                                                                                                                      |
      | blockNumber=x                | /v1/bidder/deposit/1?blockNumber=x                      | 400  | 3    | parsing field "block_number": strconv.ParseUint: parsing "x": invalid syntax                                                                                                                                                                                                        |
      | window_number above 2^64-1   | /v1/bidder/deposit/1?window_number=18446744073709551616 | 400  | 3    | parsing field "window_number": strconv.ParseUint: parsing "18446744073709551616": value out of range                                                                                                                                                                                |
      | a repeated window_number     | /v1/bidder/deposit/1?window_number=1&window_number=2    | 400  | 3    | too many values for field "window_number": 1, 2                                                                                                                                                                                                                                     |
      | a bad amount and a bad query | /v1/bidder/deposit/abc?window_number=abc                | 400  | 3    | parsing field "window_number": strconv.ParseUint: parsing "abc": invalid syntax                                                                                                                                                                                                     |

  @upstream @auto-deposit
  Scenario Outline: an auto-deposit request with <case> is refused and starts nothing
    When I send POST "<path>" to the bidder
    Then the request fails with HTTP <http>, code <code> and the message "<message>"
    And the auto-deposit status is disabled

    Examples:
      | case                     | path                                                      | http | code | message                                                                                                                                      |
      | amount 0                 | /v1/bidder/auto_deposit/0                                 | 400  | 3    | validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                      |
      | amount 01                | /v1/bidder/auto_deposit/01                                | 400  | 3    | validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                      |
      | amount -1                | /v1/bidder/auto_deposit/-1                                | 400  | 3    | validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                      |
      | amount abc               | /v1/bidder/auto_deposit/abc                               | 400  | 3    | validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]                                      |
      | window_number=0          | /v1/bidder/auto_deposit/1?window_number=0                 | 400  | 3    | validating auto deposit request: validation error:\n - window_number: window_number must be a positive integer if specified. [window_number] |
      | block_number=0           | /v1/bidder/auto_deposit/1?block_number=0                  | 400  | 3    | validating auto deposit request: validation error:\n - block_number: block_number must be a positive integer if specified. [block_number]    |
      | window_number=abc        | /v1/bidder/auto_deposit/1?window_number=abc               | 400  | 3    | parsing field "window_number": strconv.ParseUint: parsing "abc": invalid syntax                                                              |
      | a repeated window_number | /v1/bidder/auto_deposit/1?window_number=1&window_number=2 | 400  | 3    | too many values for field "window_number": 1, 2                                                                                              |

  # ------------------------------------------------------------------------------------------------ get_deposit

  @upstream
  Scenario Outline: get_deposit answers the on-chain amount of a window (<key>)
    Given a fresh window W ahead
    And the bidder has deposited 2 ETH into window W
    When the bidder asks for its deposit in window W, naming it with "<key>"
    Then the deposit answer is 2 ETH in window W

    Examples:
      | key           |
      | window_number |
      | windowNumber  |

  @upstream
  Scenario: get_deposit of a window without a deposit answers 0
    Given a fresh window W ahead
    When the bidder asks for its deposit in window W, naming it with "window_number"
    Then the deposit answer is 0 wei in window W

  @upstream
  Scenario: get_deposit naming no window answers the window after the current one
    Given the current window is noted as C
    And the bidder's deposit in window C+1 is noted
    When the bidder asks for its deposit without naming a window
    Then the deposit answer is the noted deposit of window C+1 plus 0 wei

  @upstream
  Scenario Outline: get_deposit with <case> is refused
    When I send GET "<path>" to the bidder
    Then the request fails with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                    | path                                                 | message                                                                         |
      | window_number=abc       | /v1/bidder/get_deposit?window_number=abc             | parsing field "window_number": strconv.ParseUint: parsing "abc": invalid syntax |
      | a repeated windowNumber | /v1/bidder/get_deposit?windowNumber=4&windowNumber=5 | too many values for field "window_number": 4, 5                                 |

  # ------------------------------------------------------------------------------------------------ status

  @upstream
  Scenario: the status lists a manual deposit with its block range and live balance
    Given a fresh window W ahead
    And the bidder has deposited 1 ETH into window W
    When the bidder asks for its auto-deposit status
    Then the auto-deposit status is disabled
    And the auto-deposit status lists:
      | window | deposited | current |
      | W      | 1 ETH     | no      |

  @intended
  Scenario: the status lists its windows in ascending order
    Divergence: AutoDepositStatus order
    Given fresh windows W to W+3 ahead
    And the bidder has deposited 3 gwei into window W+2
    And the bidder has deposited 1 gwei into window W
    And the bidder has deposited 4 gwei into window W+3
    And the bidder has deposited 2 gwei into window W+1
    Then the auto-deposit status lists its windows in ascending order

  # ------------------------------------------------------------------------------------------------ withdraw_from_windows

  @upstream @sim
  Scenario: withdrawing a closed window answers its amount and empties it
    Given L1 is past window 8
    And a fresh closed window K
    And the bidder has deposited 1 ETH into window K
    When the bidder withdraws from windows K
    Then the withdrawal answers:
      | window | amount |
      | K      | 1 ETH  |
    And BidderRegistry holds nothing for the bidder in window K
    And the auto-deposit status does not list window K

  @upstream @sim
  Scenario: withdrawing two closed windows answers one entry per window, in order, 0 for an empty one
    Given L1 is past window 8
    And a fresh closed window K
    And a fresh closed window L
    And the bidder has deposited 0.5 ETH into window K
    When the bidder withdraws from windows with the body '{"windowNumbers":["{L}",{K}]}'
    Then the withdrawal answers:
      | window | amount  |
      | L      | 0 wei   |
      | K      | 0.5 ETH |
    And BidderRegistry holds nothing for the bidder in window K

  @intended
  Scenario: withdrawing a window that has not closed fails on-chain and keeps the deposit
    Divergence: Chain failures
    Given a fresh window W ahead
    And the bidder has deposited 1 ETH into window W
    And the current window is noted as C
    When the bidder withdraws from windows W
    Then the request fails with HTTP 400, code 9 and the message "waiting for receipt: transaction failed: WithdrawAfterWindowSettled(window={W}, currentWindow={C}): window {W} has not closed yet (current window {C}); withdraw it after it closes"
    And BidderRegistry holds 1 ETH for the bidder in window W

  @intended
  Scenario: withdrawing the current window fails on-chain
    Divergence: Chain failures
    Given the current window is noted as C
    When the bidder withdraws from windows C
    Then the request fails with HTTP 400, code 9 and the message "waiting for receipt: transaction failed: WithdrawAfterWindowSettled(window={C}, currentWindow={C}): window {C} has not closed yet (current window {C}); withdraw it after it closes"

  @upstream
  Scenario Outline: a withdraw_from_windows body with <case> is refused
    When I send POST "/v1/bidder/withdraw_from_windows" to the bidder with body '<body>'
    Then the request fails with HTTP 400, code 3 and the message "<message>"

    Examples:
      | case                    | body                       | message                                                                                                                                                       |
      | an empty list           | {"window_numbers":[]}      | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | an empty camelCase list | {"windowNumbers":[]}       | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | no field                | {}                         | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | no body at all          |                            | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | window 0                | {"window_numbers":[0]}     | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | a 0 among windows       | {"window_numbers":["3",0]} | validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers] |
      | malformed JSON          | x                          | invalid character 'x' looking for beginning of value                                                                                                          |
      | a trailing comma        | {"window_numbers":[1,]}    | invalid character ']' looking for beginning of value                                                                                                          |
      | a truncated body        | {"window_numbers":[1]      | unexpected EOF                                                                                                                                                |

  # ------------------------------------------------------------------------------------------------ withdraw (one window)

  @upstream @sim
  Scenario: withdraw of one closed window answers its amount
    `current` is not judged: upstream marks the window after the last one its auto-depositor saw, which after a
    cancel stays where that auto-deposit stopped and may be the closed window K.
    Given L1 is past window 8
    And a fresh closed window K
    And the bidder has deposited 1 ETH into window K
    And the auto-deposit status soon lists:
      | window | deposited | current |
      | K      | 1 ETH     | any     |
    When the bidder withdraws window K alone
    Then the deposit answer is 1 ETH in window K
    And BidderRegistry holds nothing for the bidder in window K
    And the auto-deposit status lists no window from K to K

  @upstream @sim
  Scenario: withdraw naming no window empties the window before the current one
    Given L1 is past window 8
    And the current window is noted as C
    And the bidder has deposited 1 gwei into window C-1
    And the bidder's deposit in window C-1 is noted
    When the bidder withdraws without naming a window
    Then the deposit answer is the noted deposit of window C-1 plus 0 wei
    And BidderRegistry holds nothing for the bidder in window C-1

  @upstream
  Scenario: withdraw of window 0 is refused
    When I send POST "/v1/bidder/withdraw?window_number=0" to the bidder
    Then the request fails with HTTP 400, code 3 and the message "validating withdraw request: validation error:\n - window_number: window_number must be a positive integer if specified. [window_number]"

  @upstream @sim
  Scenario: withdraw of window 1, the first window, answers its amount
    Given L1 is past window 2
    And the bidder's deposit in window 1 is noted
    And the bidder has deposited 1 gwei into window 1
    When the bidder withdraws window 1 alone
    Then the deposit answer is the noted deposit of window 1 plus 1 gwei
    And BidderRegistry holds nothing for the bidder in window 1

  # ------------------------------------------------------------------------------------------------ auto-deposit

  @upstream @sim @auto-deposit @clean-bidder
  Scenario: auto-deposit keeps the next two windows funded and withdraws closed ones
    Runs first (@clean-bidder) with the next scenario, before it, and leaves no window on the bidder's record.
    Right after a start, "yes or stale": upstream's auto-depositor may take a window event queued by an earlier
    auto-deposit of its process as the latest and mark an earlier window current (docs/divergences.md,
    "AutoDepositStatus isCurrent"); that is an observation, and a window event of this auto-deposit sets it right.
    Given the bidder holds no deposit in the 3 windows after the current one
    And the current window is noted as C
    When the bidder starts auto-deposit of 1 ETH per window
    Then the auto-deposit answer starts at window C+1 with 1 ETH per window
    And BidderRegistry soon holds 1 ETH for the bidder in windows C+1 and C+2
    And the auto-deposit status is enabled
    And the auto-deposit status soon lists:
      | window | deposited | current      |
      | C+1    | 1 ETH     | yes or stale |
      | C+2    | 1 ETH     | no           |
    When L1 advances to window C+1
    Then BidderRegistry soon holds 1 ETH for the bidder in windows C+1, C+2 and C+3
    When L1 advances to window C+2
    Then BidderRegistry soon holds 1 ETH for the bidder in windows C+2, C+3 and C+4
    And BidderRegistry soon holds nothing for the bidder in window C+1
    And the auto-deposit status soon lists no window before window C+2
    And the auto-deposit status is enabled
    And the auto-deposit status soon lists:
      | window | deposited | current |
      | C+2    | 1 ETH     | no      |
      | C+3    | 1 ETH     | yes     |
      | C+4    | 1 ETH     | no      |
    When the bidder cancels auto-deposit
    Then the cancel answer lists exactly the windows the status lists now
    And the auto-deposit status is disabled
    And BidderRegistry holds 1 ETH for the bidder in windows C+2, C+3 and C+4
    When L1 advances to window C+5
    And the bidder withdraws from windows C+2, C+3 and C+4
    Then the withdrawal answers:
      | window | amount |
      | C+2    | 1 ETH  |
      | C+3    | 1 ETH  |
      | C+4    | 1 ETH  |
    And the auto-deposit status lists no window from C+2 to C+4

  @upstream @sim @auto-deposit @clean-bidder
  Scenario: cancel with withdraw=true withdraws the windows once every one of them has closed
    After a cancel with withdraw=true the node withdraws the windows on its record once all of them are below the
    current window, and clears them (api-behaviour §4.4; upstream looks every 5 s). The record also keeps the
    windows of earlier auto-deposits cancelled without withdrawal; while one of them is open, nothing is withdrawn.
    Other scenarios deposit into windows far ahead that no run reaches, so this one runs first (@clean-bidder): on
    a fresh target the node's record then holds only the windows it deposits into here.
    Given the bidder holds no deposit in the 3 windows after the current one
    And the current window is noted as C
    When the bidder starts auto-deposit of 1 gwei per window
    Then BidderRegistry soon holds 1 gwei for the bidder in windows C+1 and C+2
    And the auto-deposit status soon lists windows C+1 and C+2
    Given the windows the auto-deposit status lists are noted
    When the bidder is called with POST "/v1/bidder/cancel_auto_deposit?withdraw=true"
    Then the bidder answers exactly {"windowNumbers":[]}
    When L1 advances to window C+2
    Then BidderRegistry holds 1 gwei for the bidder in windows C+1 and C+2
    When L1 advances to window C+3
    Then once every noted window has closed, BidderRegistry soon holds nothing for the bidder in windows C+1 and C+2, else still 1 gwei in each

  @upstream @auto-deposit
  Scenario: while auto-deposit runs, deposits, withdrawals and a second start are refused
    Given fresh windows W to W+2 ahead
    When the bidder starts auto-deposit of 1 ETH per window from window W
    Then the auto-deposit answer starts at window W with 1 ETH per window
    And BidderRegistry soon holds 1 ETH for the bidder in windows W and W+1
    When the bidder deposits 1 ETH into window W+2
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is already running, stop and then deposit"
    And BidderRegistry holds nothing for the bidder in window W+2
    When the bidder withdraws from windows W
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is already running, stop and then withdraw"
    When the bidder withdraws window W alone
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is already running, stop and then withdraw"
    When the bidder starts auto-deposit of 1 ETH per window
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is already running"
    When the bidder deposits 0 wei without naming a window
    Then the request fails with HTTP 400, code 3 and the message "validating deposit request: validation error:\n - amount: amount must be a valid integer. [amount]"
    When the bidder starts auto-deposit of 0 wei per window
    Then the request fails with HTTP 400, code 3 and the message "validating auto deposit request: validation error:\n - amount: amount must be a valid integer. [amount]"
    When the bidder withdraws from windows with the body '{"window_numbers":[]}'
    Then the request fails with HTTP 400, code 3 and the message "validating withdraw from n windows request: validation error:\n - window_numbers: window_numbers must be a valid array of positive integers. [window_numbers]"
    When the bidder asks for its auto-deposit status
    Then the auto-deposit status is enabled
    And the auto-deposit status lists:
      | window | deposited | current |
      | W      | 1 ETH     | no      |
      | W+1    | 1 ETH     | no      |
    When the bidder cancels auto-deposit
    Then the cancel answer lists exactly the windows the status lists now
    And the auto-deposit status is disabled
    And the auto-deposit status lists:
      | window | deposited | current |
      | W      | 1 ETH     | no      |
      | W+1    | 1 ETH     | no      |
    When the bidder cancels auto-deposit
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is not running"

  @upstream
  Scenario: cancelling auto-deposit when it is not running is refused
    When the bidder cancels auto-deposit
    Then the request fails with HTTP 400, code 9 and the message "auto deposit is not running"

  @upstream @auto-deposit
  Scenario: auto-deposit can start from the window of a block (blockNumber)
    Given fresh windows W to W+1 ahead
    When the bidder is called with POST "/v1/bidder/auto_deposit/3000?blockNumber={last block of W}"
    Then the auto-deposit answer starts at window W with 3000 wei per window
    And BidderRegistry soon holds 3000 wei for the bidder in windows W and W+1

  @upstream @auto-deposit
  Scenario: cancel with withdraw=true answers no windows at once and leaves open windows funded
    Upstream answers auto_deposit once it has sent the deposit transaction, not once it is mined.
    Given fresh windows W to W+1 ahead
    And the bidder has started auto-deposit of 1 gwei per window from window W
    When the bidder is called with POST "/v1/bidder/cancel_auto_deposit?withdraw=true"
    Then the bidder answers exactly {"windowNumbers":[]}
    And the auto-deposit status is disabled
    And BidderRegistry soon holds 1 gwei for the bidder in windows W and W+1
