/**
 * Headless Chromium for browser-level tests: Debian's `chromium` (apt) driven by playwright-core (no
 * browser is downloaded). A test file registers its browser tests with `browserTest(test)`, which skips
 * them, with the reason in the title, where no browser is installed; `.ci/run` installs one.
 *
 *   const it = browserTest(test);
 *   it('the checkout page pays', async (t) => {
 *     const browser = await launchChromium();
 *     t.teardown(() => browser.close());
 *     const page = await browser.newPage();
 *     ...
 *   });
 */
import type { ExecutionContext, TestFn } from 'ava';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';

/** CHROMIUM_PATH, else Debian's package. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Quiet, offline, headless. Playwright gives every launch a new empty `--user-data-dir` of its own
 * (and removes it on close): it refuses the flag in `args`.
 */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why browser tests cannot run on this machine, or undefined when they can. */
export function browserUnavailable(): string | undefined {
  try {
    fs.accessSync(chromiumPath, fs.constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${chromiumPath} (install Debian's chromium, or set CHROMIUM_PATH)`;
  }
}

/** Launches headless Chromium; close it when done (`t.teardown(() => browser.close())`). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs, timeout: 60_000 });
}

/**
 * `test` where a browser is installed; elsewhere each test is registered as skipped, the reason in its
 * title, and the reason is printed once.
 */
export function browserTest(
  test: TestFn,
): (title: string, implementation: (t: ExecutionContext) => Promise<void>) => void {
  const reason = browserUnavailable();
  if (!reason) return (title, implementation) => test(title, implementation);
  process.stderr.write(`browser tests skipped: ${reason}\n`);
  return (title) => test.skip(`${title} (skipped: ${reason})`, () => undefined);
}

/** A static site on its own origin (`http://localhost:<port>`), as a web client is served apart from the API. */
export async function serveSite(
  files: Record<string, { type: string; body: string }>,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://localhost').pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
