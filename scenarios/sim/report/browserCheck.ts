/**
 * Opens a report page in headless Chromium (Debian's chromium, scripts/install-chromium.sh) and says what
 * rendered: each plot's canvas and how many of its pixels were painted, and every console error.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { chromium } from "playwright-core";
import { MevCommitError } from "../../../lib/errors.ts";

import { CHROMIUM_PATH, CHROMIUM_FLAGS as FLAGS } from "../../../node/testing/chromium.ts";

export { CHROMIUM_PATH };

export class BrowserCheckError extends MevCommitError {}

export interface RenderedPage {
  /** Every canvas of the page: its id, size and painted (non-transparent) pixels. */
  canvases: { id: string; width: number; height: number; painted: number }[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Requests the page made to anything but its own file (a self-contained page makes none). */
  requests: string[];
  rendered: boolean;
}

export async function renderInChromium(htmlFile: string, screenshot?: string): Promise<RenderedPage> {
  if (!existsSync(CHROMIUM_PATH))
    throw new BrowserCheckError(
      `no Chromium at ${CHROMIUM_PATH}: run scripts/install-chromium.sh (or set CHROMIUM_PATH)`,
    );
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    const url = `file://${resolve(htmlFile)}`;
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => r.url() !== url && requests.push(r.url()));
    await page.goto(url);
    const rendered = await page
      .waitForSelector("body[data-rendered=true]", { timeout: 15_000 })
      .then(() => true)
      .catch(() => false);
    // Runs in the page (a string: this project compiles without the DOM types).
    const canvases = (await page.evaluate(`[...document.querySelectorAll("canvas")].map((c) => {
      const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      return { id: c.id, width: c.width, height: c.height, painted };
    })`)) as RenderedPage["canvases"];
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
    return { canvases, errors, requests, rendered };
  } finally {
    await browser.close();
  }
}
