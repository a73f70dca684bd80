#!/usr/bin/env bash
# Installs Debian's nftables (the nft command: network faults between a --network netns devnet's hosts) when it is
# missing. Idempotent: prints where nft is and exits 0 when it is already there. Needs apt-get (as root, or sudo).
set -euo pipefail
if command -v nft >/dev/null; then
  echo "nft: $(command -v nft) ($(nft --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "nft (nftables) is missing and apt-get is not available: install nftables for the network-fault tests" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else echo "installing nftables needs root (or sudo)" >&2; exit 1; fi
fi
echo "nft: not found; installing Debian's nftables with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends nftables
nft --version
