/**
 * Headless Chromium as the browser tests use it: Debian's chromium (scripts/install-chromium.sh installs it when
 * missing; CHROMIUM_PATH names another) with flags that keep it quiet on a machine without a network.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** No background connections, no sandbox (tests run as root), no GPU. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
