/**
 * Byte vectors of the node-to-node wire, produced by running upstream's own Go code at the pinned commit (its
 * handshake, crypto, keyexchange, preconfirmation encryptor and libp2p packages, with go-ethereum and go-libp2p)
 * on the fixed inputs below. Upstream's tests of these packages use random keys and record no bytes, so the
 * vectors were made once by a throw-away program outside the repository; only the resulting bytes are kept.
 */

/** Anvil dev account 0: the bidder. */
export const BIDDER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as const;
export const BIDDER_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as const;
/** Anvil dev account 1: the provider. */
export const PROVIDER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as const;
export const PROVIDER_ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
/** The provider's ECIES secret (32 bytes of 0x01) and a second provider's (0x02). */
export const ECIES_KEY_1 = "0101010101010101010101010101010101010101010101010101010101010101";
export const ECIES_KEY_2 = "0202020202020202020202020202020202020202020202020202020202020202";
/** The provider's BN254 NIKE secret. */
export const PROVIDER_NIKE_SECRET = 123456789n;
/** The bidder's AES key: bytes 0x00..0x1f. */
export const AES_KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
export const CHAIN_ID = 17864n;
export const PRECONF_MANAGER = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;

export const V = {
  /** handshake.New(provider key, "provider", "secret", keys{ECIES 0x01…, NIKE 123456789·G}).handshakeReq */
  handshakeProviderReq:
    "0a0870726f766964657212067365637265741a4140fce4c0e6f49749ba0b70e09a5b9c69664b5d0afc0ce4da462880f05af4a8a32c0832a1722c7493abdfbf1ecb648fc5092052e7e2761422fe712e647ffdc1830122650a21031b84c5567b126440995d3ed5aaba0565d71e1834604819ff9c17f5e9d5dd078f1240142a7688cf05c29f7593351e1b86eb87e3ad5dcb1b0fc3d853e9852040c57019136b5d7e238ae6edc22d1fba5a2dcde8a7b0df53b0c4af7f600e6a0c4610c899",
  handshakeBidderReq:
    "0a0662696464657212067365637265741a4177099368afb9ffc26fb3c34eef9969e4cfa0d830364102f71d69fbb6684822b577d23ab41c8f8c7fb20f7f2532d05cbcf6e8aa64132c4120e1ca66ac52f7f0a100",
  /** HandshakeResp{observed_address: bidder, peer_type: "bidder"} */
  handshakeBidderResp: "0a14f39fd6e51aad88f6f4ce6ab8827279cfffb922661206626964646572",
  /** crypto.EncryptWithAESGCM(AES_KEY, AES_PLAINTEXT) */
  aesGcmCiphertext:
    "a7a4bdf85a56d5127a54916a661a305afdff259774df0f552e32383896e4c45ae88dc2682f0eb0eb46bd526ea0f6db00f5d2f878aa00f884ed5aebe8973ba137836376deb7ade6dccde52f034ddbd67e1e5dd534112927f286431d2e8c73b29068c920471cbd1c1156",
  aesPlaintext: "mev-commit bidder 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 setup 1700000000",
  /** crypto.SerializeEciesPublicKey of ECIES_KEY_1 */
  eciesPublicKey: "031b84c5567b126440995d3ed5aaba0565d71e1834604819ff9c17f5e9d5dd078f",
  /** go-ethereum ecies.Encrypt(rand, pub(ECIES_KEY_1), AES_KEY, nil, nil) */
  eciesCiphertext:
    "042d8dc7d4208bfba6e888d34c48e102c47d8d33f148f9e88758a049666cb3d68b1572ede23a3246bb5fe2b6d2c423ce91ef4fec6ca7c8e1c2bfbb73a6ec5ff411a8edf382c3741341afb92acba94a0529e1b863faa900fb8d6c6f6dce90cd7543df3315870e49c89e732eae5a439f536c0f538d6bc54819855426806533f294347a205df0da25014d9fd098cf50b080aa",
  /** KeyExchange{bidder key, AES_KEY}: createSignedMessage(prepareMessages([ECIES_KEY_1, ECIES_KEY_2 providers])) */
  ekmWithSignature:
    "0a93030a910104d412f9f47e3093301302c191715b942248f32f1ab60b74a470974c17837cf1fd10592e3548f69de204d3e067e62e9ba6277bd9b064abb5ceb1754e46a89c33cb8a238260bd6f372372f527faa9008eaa19e07d74269a6339bb9057ef4cafdc54859e1ef97c560a0d032d03c7b1981c92eec3ea19fae56174615dbac826518a53afa424ce6a595bfd6d04d3f1886f34f90a91010489432ac8e32ec8d173a6cb5889854da5a64e181984961b8d30338997f2888458b87114afd07b423e43af30fdba55f06e401f4cde1edee16e5aff32b1e6291b4e6914e72a64984ec7a6999ff3c3b625a45ba034d3077171c4a00911fa1783464d0b21b25994f1128d4ed1183c9dad4de8e67bb99034fef8de75b4b641cd3bdde324eaccedce63ca0d5685da6ab190368a12698d127b81af2fcdc246e78788f770aa975127396196f8d37e93508ae7c48891f6f70775b15eb6f6426619c0a81afe2dff8d27814ec17cecdfe1709fb36f7742459e23044c693c3be0fef7664b05ea104ba460dc6c4bc961c2b67a08eac8d8df3d37ab794ca0537d09c61241041c2921638914467280dc82fb6d86e348f1ff88430b8633650c1359a31464166ab68dc8632af10b9cb61c03c46e11035dfd91892763b75511c0038cc0b71be500",
  /** The Unix seconds in that message's timestamp text. */
  ekmTimestamp: 1795441342,
  /**
   * encryptor.ConstructEncryptedBid(bid) by the bidder, AES_KEY, domain (CHAIN_ID, PRECONF_MANAGER), for the bid
   * {tx_hash "0549…acae,1a2b", 1 ETH, block 42, decay 1700000000000..1700000012000, slash "0"}
   */
  encryptedBid:
    "0ab2023493b73c125d388b7cbadd8207e0303d334f6c31ebe511ceaae0c1b6bcac6d79a5c9ccc70dc82920cb9bcd8e245f8baef2061d9e417b4bd4c861e1dd40e48202159cd9072a114a7b042267541c8fc9afa57a4cc49472e638d9091757fc5f9a713349320e76a4432554c72193c8e7a58da188af555e38bb4340ec3dd84a6c5743894f850f120cf16d8c9347234819b6b541a8f55cb32dd20820a91f9798338275397b18ce603cf33e001faea1b34adb72b44111bcb4a2386b0098c8cfcb00f70cd01ecb720cf5802c97429da494bf276ae90a970259b01ac9831a50dd4165c1e431302ede6366fc9c09b9130ab9036f20fa8b7497b700f1159c01de5d8842a0e8d17a154a82c0ca4b8491b51d8c32dbc2eb018f87ab20a20ba8fe90a53f43a92945436c94f660fd043efc65d5ca739e88170f",
  /** The BN254 secret that bid was signed with (returned by ConstructEncryptedBid). */
  bidNikeSecret: 0x1961c0cf1a7ac2a79d1b887657acad37030e293ad000dc683498460332a901adn,
  /** The provider's DecryptBidData of it, re-encoded. */
  bidMessage:
    "0a45303534396663376335376666666264626662326366396435653064653136356663363864616462356332376334326664616430626466353036663465616361652c31613262121331303030303030303030303030303030303030182a2220ea4d0f9fd92b7335a6352bcebf39f471672f7db8b6c5e2505cb248d7df5cc25a2a41467f9123ea2f2b56f5bba0df28d65242daadd960e43528164b5e07bbca573d0b21ba4425fcc216ca0a563a98fb2976c95b4ae31bdbab58be255ac074c409674d1b3080d095ffbc3138e0ad96ffbc31424023111d54ec660342415803a45a66aca1e8046bb5d158724928580d0afee96d4c26a12a9ef8fb0cd1bb38fa0695c563932bf4a4fd823963732e79f16b4bee49325a0130",
  /** The provider's ConstructEncryptedPreConfirmation of it (NIKE 123456789), dispatch_timestamp set to 1700000000500. */
  encryptedPreConfirmation:
    "0a204413427fe7dee13e989aa277825becaca922edee7824fceeb863781b436d2f3e1241672b9d3f3a0747d3408d7b00ec88fdcc99d2bc8ee4a3b9eba27e79b05385a1c80165e4eaf9095c398c313250f61500f4d76aa5d162ecb903fa557724188f091f1c20f4d395ffbc31",
  dispatchTimestamp: 1700000000500n,
  /** go-libp2p peer.IDFromPrivateKey(UnmarshalSecp256k1PrivateKey(provider key)) */
  peerId: "16Uiu2HAm7y4wLLNsMjdvS9dKgbXmmmDr8TaiL2HWZrd6sRFZqGZM",
  /** peer.AddrInfo{peerId, /ip4/127.0.0.1/tcp/25001}.MarshalJSON() */
  underlay: '{"ID":"16Uiu2HAm7y4wLLNsMjdvS9dKgbXmmmDr8TaiL2HWZrd6sRFZqGZM","Addrs":["/ip4/127.0.0.1/tcp/25001"]}',
  /** PeerList{[{provider address, underlay}]} */
  peerList:
    "0a7b0a1470997970c51812dc3a010c7d01b50e0d17dc79c812637b224944223a2231365569753248416d377934774c4c4e734d6a64765339644b6762586d6d6d4472385461694c3248575a7264367352465a71475a4d222c224164647273223a5b222f6970342f3132372e302e302e312f7463702f3235303031225d7d",
  /** StreamMsg{error: status(Internal, "bid rejected")}, StreamMsg{data: 010203}, Header{"k": "v"} */
  streamMsgError: "1210080d120c6269642072656a6563746564",
  streamMsgData: "0a03010203",
  header: "0a080a016b12031a0176",
  /** matchProtocolIDWithSemver(id, "preconfirmation", "3.0.0") */
  semver: [
    ["/mev-commit/preconfirmation/3.0.0", true],
    ["/mev-commit/preconfirmation/3.1.0", false],
    ["/mev-commit/preconfirmation/2.9.0", false],
    ["/mev-commit/preconfirmation/3.0.7", true],
  ] as [string, boolean][],
} as const;
